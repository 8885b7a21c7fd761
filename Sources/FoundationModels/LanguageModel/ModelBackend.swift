import Foundation
import Synchronization

/// A session's model, with its type erased: the capabilities and the executor that serves it.
///
/// The executor is created from the model's ``LanguageModel/executorConfiguration`` on first use and shared
/// by every session whose model has an equal configuration (``ExecutorCache``).
package struct ModelBackend: Sendable {
    /// The model's capabilities, read when a request starts.
    let capabilities: @Sendable () -> LanguageModelCapabilities
    /// The model when it is the on-device one.
    package let systemModel: SystemLanguageModel?
    private let respondBody: @Sendable (LanguageModelExecutorGenerationRequest, LanguageModelExecutorGenerationChannel) async throws -> Void
    private let prewarmBody: @Sendable (Transcript) -> Void

    package init<Model: LanguageModel>(_ model: Model) {
        capabilities = { model.capabilities }
        systemModel = model as? SystemLanguageModel
        respondBody = { request, channel in
            let executor = try ExecutorCache.shared.executor(for: model)
            try await executor.respond(to: request, model: model, streamingInto: channel)
        }
        prewarmBody = { transcript in
            guard let executor = try? ExecutorCache.shared.executor(for: model) else { return }
            executor.prewarm(model: model, transcript: transcript)
        }
    }

    /// Runs the executor for `request`, reading its events as they arrive.
    ///
    /// - Parameter onEvent: Called with each event, in order.
    /// - Throws: What the executor throws, or `CancellationError` when the task is cancelled before the executor ends.
    package func respond(
        to request: LanguageModelExecutorGenerationRequest,
        onEvent: (any LanguageModelExecutorGenerationChannel.Event) throws -> Void
    ) async throws {
        let channel = LanguageModelExecutorGenerationChannel()
        let respondBody = self.respondBody
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await respondBody(request, channel)
                    channel.finish()
                } catch {
                    channel.finish(throwing: error)
                    throw error
                }
            }
            for try await event in channel { try onEvent(event) }
            // A cancelled reader's loop ends as if the response were complete; what was read is only a part.
            try Task.checkCancellation()
            try await group.waitForAll()
        }
    }

    /// Asks the executor to prepare for a request continuing `transcript`.
    package func prewarm(_ transcript: Transcript) {
        prewarmBody(transcript)
    }
}
