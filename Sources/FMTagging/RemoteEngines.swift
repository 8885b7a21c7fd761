public import FoundationModels
import Foundation
import Synchronization

/// OpenAI-compatible servers a tagging job sends its texts to instead of the in-process engine, taken in turn
/// (round-robin) so a job spreads over a fleet.
public final class RemoteEngines: Sendable {
    /// The servers' models, one per endpoint.
    public let models: [ChatCompletionsLanguageModel]
    private let next = Mutex(0)

    /// Creates the set; `models` must not be empty.
    public init(models: [ChatCompletionsLanguageModel]) {
        precondition(!models.isEmpty, "RemoteEngines needs at least one model.")
        self.models = models
    }

    /// The model for the next request.
    public func nextModel() -> ChatCompletionsLanguageModel {
        next.withLock { index in
            defer { index = (index + 1) % models.count }
            return models[index]
        }
    }

    /// What identifies the results in the cache: every endpoint (any may answer a text) and the model name.
    public var identity: String {
        "remote " + models.map { "\($0.configuration.endpoint.absoluteString) \($0.configuration.model)" }.joined(separator: ", ")
    }
}
