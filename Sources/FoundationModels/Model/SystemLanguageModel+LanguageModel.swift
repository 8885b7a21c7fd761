import FMEngine
import FMLlama
import Foundation
import Synchronization

extension SystemLanguageModel: LanguageModel {
    /// Guided generation and tool calling; the on-device model on Linux neither reasons nor reads images.
    public var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities(capabilities: [.guidedGeneration, .toolCalling])
    }

    /// The engine this model runs on: its model file and adapter. Instances with different use cases or
    /// guardrails share the engine (and its KV caches).
    public var executorConfiguration: Executor.Configuration {
        Executor.Configuration(modelPath: modelURL.path, adapterPath: adapter?.fileURL.path)
    }

    /// An executor that responds to session requests with the on-device model: on Linux, the in-process
    /// llama.cpp engine.
    ///
    /// The executor renders the transcript with the model's chat template (the use case's own text included),
    /// constrains decoding to the request's schema — or, with tools, to a choice between tool calls and the
    /// answer — and streams the response, tool calls and the engine's token counts to the channel. It checks
    /// prompts, tool outputs and responses against the model's ``Guardrails``.
    public struct Executor: LanguageModelExecutor {
        /// The model type this executor processes requests for.
        public typealias Model = SystemLanguageModel

        /// A configuration for an executor capable of running an on-device system model.
        public struct Configuration: Hashable, Sendable {
            let modelPath: String
            let adapterPath: String?
        }

        let configuration: Configuration

        /// The work of each model's latest prewarm. A request waits for it: started together, the two would
        /// evaluate the same instructions side by side, and the request would reuse none of the prewarm's.
        static let latestPrewarms = Mutex<[Configuration: Task<Void, Never>]>([:])

        /// Creates the executor; the model loads on the first request or prewarm, off the cooperative pool.
        public init(configuration: Configuration) {
            self.configuration = configuration
        }

        /// Loads the model and evaluates the transcript's rendered instructions — and, when its last entry is a
        /// prompt, that prompt's text as the start of the next user message — into the KV cache.
        ///
        /// Best effort: it returns at once and does the work on the engine's thread.
        public func prewarm(model: SystemLanguageModel, transcript: Transcript) {
            guard model.isReady else { return }
            let configuration = self.configuration
            let work = Task.detached(priority: .utility) {
                guard let engine = try? await ModelRegistry.shared.engine(at: configuration.modelPath, adapterPath: configuration.adapterPath)
                else { return }
                var entries = Array(transcript)
                var prefix: String?
                if case .prompt(let prompt)? = entries.last {
                    prefix = prompt.segments.modelText
                    entries.removeLast()
                }
                // Rendered as the first request will be: a session's tools, which its instructions entry lists,
                // add their definitions and calling instructions to the system message.
                let tools = entries.flatMap { entry -> [Transcript.ToolDefinition] in
                    if case .instructions(let instructions) = entry { instructions.toolDefinitions } else { [] }
                }
                let messages = ConversationRenderer(model: model, tools: tools).messages(for: Transcript(entries: entries))
                if let text = Generator.prefillText(messages: messages, userPrefix: prefix, llama: engine.model.llama) {
                    await engine.prefill(text)
                }
            }
            Self.latestPrewarms.withLock { $0[configuration] = work }
            // Once done, the prewarm is forgotten (unless a later one replaced it), so requests stop waiting on it.
            Task.detached(priority: .utility) {
                await work.value
                Self.latestPrewarms.withLock { if $0[configuration] == work { $0[configuration] = nil } }
            }
        }

        /// Returns when `work` has finished, or throws `CancellationError` as soon as the caller is cancelled:
        /// a prewarm of long instructions takes seconds, and a cancelled request has no reason to sit them out.
        static func wait(for work: Task<Void, Never>) async throws {
            // `Task.value` ignores the waiter's cancellation; an AsyncStream's iteration ends with it. The task that
            // watches `work` then lives on until the prewarm ends, which takes no longer than its prefill.
            let finished = AsyncStream<Void> { continuation in
                Task {
                    await work.value
                    continuation.finish()
                }
            }
            for await _ in finished {}
            try Task.checkCancellation()
        }

        /// The engine of the configuration's model, loading it off the cooperative pool on first use.
        ///
        /// - Throws: ``SystemLanguageModel/Error/assetsUnavailable(_:)`` when the file cannot be loaded.
        static func engine(for configuration: Configuration) async throws -> Engine {
            do {
                return try await ModelRegistry.shared.engine(at: configuration.modelPath, adapterPath: configuration.adapterPath)
            } catch {
                throw SystemLanguageModel.Error.assetsUnavailable(.init(debugDescription:
                    "The model at \(configuration.modelPath) could not be loaded: \(error)"))
            }
        }

        /// Generates the response to `request` with the in-process engine.
        ///
        /// - Throws: ``SystemLanguageModel/Error/assetsUnavailable(_:)`` when the model file is missing;
        ///   ``LanguageModelError`` for an overflowing context, guardrail violations, refusals and unsupported
        ///   guides; ``GeneratedContent/ParsingError`` when guided output is cut short; `CancellationError`.
        public nonisolated(nonsending) func respond(
            to request: LanguageModelExecutorGenerationRequest,
            model: SystemLanguageModel,
            streamingInto channel: LanguageModelExecutorGenerationChannel
        ) async throws {
            guard model.isReady else {
                throw SystemLanguageModel.Error.assetsUnavailable(.init(debugDescription: model.missingModelMessage))
            }
            let engine = try await Self.engine(for: configuration)
            // Once the model's prewarm is done this request starts from its prefill.
            if let prewarm = Self.latestPrewarms.withLock({ $0[configuration] }) { try await Self.wait(for: prewarm) }
            let turn = try await SystemTurn(request: request, model: model, engine: engine)
            let reporter = turn.reporter(channel)
            let outcome: GenerationOutcome
            do {
                outcome = try await engine.generate(turn.job) { bytes, tokens in reporter.update(bytes: bytes, tokens: tokens) }
            } catch {
                throw turn.error(for: error, reporter: reporter)
            }
            try turn.finish(outcome, reporter: reporter, channel: channel)
        }
    }
}

extension SystemLanguageModel {
    /// Loads the model (and its adapter) now instead of on the first request, so that a file that is present
    /// but cannot be loaded (cut short, another format) is reported before anything depends on it.
    ///
    /// - Throws: ``SystemLanguageModel/Error/assetsUnavailable(_:)`` when the file is missing or cannot be loaded.
    package func load() async throws {
        guard isReady else { throw SystemLanguageModel.Error.assetsUnavailable(.init(debugDescription: missingModelMessage)) }
        _ = try await Executor.engine(for: executorConfiguration)
    }
}
