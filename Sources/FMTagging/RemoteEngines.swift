public import FMCache
public import FoundationModels
import Foundation
import Synchronization

/// OpenAI-compatible servers a tagging job sends its texts to instead of the in-process engine, taken in turn
/// (round-robin) so a job spreads over a fleet.
public final class RemoteEngines: Sendable {
    /// The servers' models, one per endpoint.
    public let models: [ChatCompletionsLanguageModel]
    private let next = Mutex(0)
    /// What each endpoint said it serves, once ``identifyServedModels(cache:)`` asked.
    private let served = Mutex<[String?]?>(nil)

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

    /// What identifies the results in the cache: every endpoint (any may answer a text), the model name, and
    /// what the endpoint serves when ``identifyServedModels(cache:)`` learned it.
    public var identity: String {
        let served = served.withLock { $0 } ?? []
        return "remote " + models.indices.map { index in
            let model = models[index]
            let name = "\(model.configuration.endpoint.absoluteString) \(model.configuration.model)"
            guard index < served.count, let serving = served[index] else { return name }
            return name + " serving " + serving
        }.joined(separator: ", ")
    }

    /// Asks every endpoint what it serves (`GET /v1/models`), so cached results do not outlive a model
    /// swapped behind the same address and name. An endpoint that does not answer (it is down, or has no model
    /// list) counts as serving what it served when it last answered, recorded in `cache`, so a finished job
    /// reads its results from the cache while the servers are away.
    public func identifyServedModels(cache: ResultCache?) async {
        let answers = await withTaskGroup(of: (Int, String?).self) { group in
            for (index, model) in models.enumerated() {
                group.addTask { (index, await model.servedModels()) }
            }
            var answers = [String?](repeating: nil, count: models.count)
            for await (index, answer) in group { answers[index] = answer }
            return answers
        }
        let identities = models.indices.map { index -> String? in
            let model = models[index]
            let key = ResultCache.key(["served models", model.configuration.endpoint.absoluteString, model.configuration.model])
            if let answer = answers[index] {
                try? cache?.store(answer, forKey: key)
                return answer
            }
            return (try? cache?.value(forKey: key)) ?? nil
        }
        served.withLock { $0 = identities }
    }
}
