public import FMCache
public import FoundationModels
import Foundation
import Synchronization

/// OpenAI-compatible servers a tagging job sends its texts to instead of the in-process engine, taken in turn
/// (round-robin) so a job spreads over a fleet.
public final class RemoteEngines: Sendable {
    /// The servers' models, one per endpoint.
    public let models: [ChatCompletionsLanguageModel]
    /// How many requests each server is sent at once, by index of ``models``; models of one endpoint share one.
    let throttles: [ServerThrottle]
    private let next = Mutex(0)
    /// What each endpoint serves, once ``identifyServedModels(cache:)`` asked, and whether every endpoint said.
    private let served = Mutex<(identities: [String?], complete: Bool)?>(nil)
    /// The model name each endpoint's answers carry, by endpoint, as first seen; and whether one endpoint's
    /// answers have named two models (a server restarted with another file during the job).
    private let answering = Mutex<(names: [URL: String], changed: Bool)>(([:], false))

    /// Creates the set; `models` must not be empty.
    public init(models: [ChatCompletionsLanguageModel]) {
        precondition(!models.isEmpty, "RemoteEngines needs at least one model.")
        self.models = models
        // One throttle per server: endpoints listed twice (or under two model names) share what that server admits.
        var byEndpoint: [URL: ServerThrottle] = [:]
        throttles = models.map { model in
            if let shared = byEndpoint[model.configuration.endpoint] { return shared }
            let throttle = ServerThrottle()
            byEndpoint[model.configuration.endpoint] = throttle
            return throttle
        }
    }

    /// Every model, starting with the next request's and going on in turn: the order in which one request tries
    /// the servers when some cannot be reached. Requests in flight at once share the turn, so each takes its
    /// own starting point rather than asking for the next model again.
    public func nextInTurn() -> [ChatCompletionsLanguageModel] {
        serversInTurn().map(\.model)
    }

    /// As ``nextInTurn()``, with each server's throttle.
    func serversInTurn() -> [(model: ChatCompletionsLanguageModel, throttle: ServerThrottle)] {
        let start = next.withLock { index in
            defer { index = (index + 1) % models.count }
            return index
        }
        return models.indices.map { ((start + $0) % models.count) }.map { (models[$0], throttles[$0]) }
    }

    /// What identifies the results in the cache: every endpoint (any may answer a text), the model name, and
    /// what the endpoint serves when ``identifyServedModels(cache:)`` learned it. The order the endpoints are
    /// listed in does not count: it changes which server a text goes to first, not what answers it.
    public var identity: String {
        let served = served.withLock { $0?.identities } ?? []
        return "remote " + models.indices.map { index in
            let model = models[index]
            let name = "\(model.configuration.endpoint.absoluteString) \(model.configuration.model)"
            guard index < served.count, let serving = served[index] else { return name }
            return name + " serving " + serving
        }.sorted().joined(separator: ", ")
    }

    /// Whether results may be stored under ``identity``: not when an endpoint did not answer, since it counts as
    /// serving what it last served, and may come back serving another model.
    ///
    /// Nor once an endpoint's answers named another model than its first ones did: the identity was learned before
    /// the job, and results of the model that took over would be read back later as the first one's.
    public var storesResults: Bool {
        (served.withLock { $0?.complete } ?? true) && !answering.withLock { $0.changed }
    }

    /// The endpoints that have answered a text of this job.
    private let answered = Mutex<Set<URL>>([])

    /// Notes that `endpoint` answered a text: from then on it accepts the job's requests, so a refusal is about a
    /// text (a proxy's filter), not about the key or the model name.
    func noteAnswered(by endpoint: URL) {
        _ = answered.withLock { $0.insert(endpoint) }
    }

    /// Whether `endpoint` has answered a text of this job.
    func hasAnswered(_ endpoint: URL) -> Bool {
        answered.withLock { $0.contains(endpoint) }
    }

    /// Notes the model name an answer of `endpoint` carried (OpenAI's `model`: llama-server sends its file's
    /// path or alias, vLLM and `fm serve` the served name).
    func noteAnswer(from endpoint: URL, model name: String) {
        answering.withLock { answering in
            if let first = answering.names[endpoint] {
                if first != name { answering.changed = true }
            } else {
                answering.names[endpoint] = name
            }
        }
    }

    /// Asks every endpoint what it serves (`GET /v1/models`), so cached results do not outlive a model swapped
    /// behind the same address and name. An endpoint that does not answer (it is down, or loading a model)
    /// counts as serving what it served when it last answered, recorded in `cache`, so a finished job reads its
    /// results from the cache while the servers are away; such a job stores no results. An endpoint without a
    /// model list is named by its address and model name alone.
    public func identifyServedModels(cache: ResultCache?) async {
        let answers = await withTaskGroup(of: (Int, ServedModels).self) { group in
            for (index, model) in models.enumerated() {
                group.addTask { (index, await model.servedModels()) }
            }
            var answers = [ServedModels](repeating: .unreachable, count: models.count)
            for await (index, answer) in group { answers[index] = answer }
            return answers
        }
        var complete = true
        var identities: [String?] = []
        for (model, answer) in zip(models, answers) {
            let key = ResultCache.key(["served models", model.configuration.endpoint.absoluteString, model.configuration.model])
            switch answer {
            case .served(let answer):
                try? await cache?.store(answer, forKey: key)
                identities.append(answer)
            case .unlisted:
                identities.append(nil)
            case .unreachable:
                complete = false
                identities.append(((try? await cache?.value(forKey: key)) ?? nil) ?? "unknown")
            }
        }
        served.withLock { $0 = (identities, complete) }
    }
}
