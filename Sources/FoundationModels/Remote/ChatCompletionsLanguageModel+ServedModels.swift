package import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a server said when asked for its model list.
package enum ServedModels: Sendable, Equatable {
    /// The canonical form of the listed models that answer requests (see
    /// `servedModels(inModelList:named:)`).
    case served(String)
    /// The server answered, without a model list (a proxy or server without `/v1/models`).
    case unlisted
    /// No answer: the server is down, unreachable, or still loading its model.
    case unreachable
}

extension ChatCompletionsLanguageModel {
    /// What the server says it serves (`GET …/v1/models`). A server that turns the request away (429, or 503
    /// while llama-server loads its model) is asked again on the configuration's retry schedule; `timeout` bounds
    /// each attempt.
    ///
    /// A model name alone does not say which weights answer: llama-server answers to any name, and a server
    /// restarted with another file keeps its address. Result caches key on this as well.
    package func servedModels(timeout: TimeInterval = 10) async -> ServedModels {
        var request = URLRequest(url: configuration.modelsURL)
        request.httpMethod = "GET"
        request.timeoutInterval = timeout
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let name = configuration.apiKeyEnvironmentVariable {
            guard let key = ProcessInfo.processInfo.environment[name], !key.isEmpty else { return .unreachable }
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        }
        var attempt = 0
        while true {
            guard let (status, body) = await Self.get(request, timeout: timeout) else { return .unreachable }
            if status == 429 || status == 503 {
                attempt += 1
                guard attempt <= configuration.retryPolicy.maximumRetries else { return .unreachable }
                let delay = configuration.retryPolicy.delay(beforeRetry: attempt, retryAfter: nil)
                do { try await Task.sleep(for: .seconds(delay)) } catch { return .unreachable }
                continue
            }
            // A server error (a 502 from a proxy whose backend is down, a 500) says nothing of what answers: taken
            // for a server without a model list, answers would be cached under its bare address, and another
            // model's read back from there after a restart.
            if status >= 500 { return .unreachable }
            guard (200..<300).contains(status) else { return .unlisted }
            return Self.servedModels(inModelList: body, named: configuration.model).map(ServedModels.served) ?? .unlisted
        }
    }

    /// One GET: its status and body, or `nil` when no whole answer of at most a megabyte arrived.
    private static func get(_ request: URLRequest, timeout: TimeInterval) async -> (Int, Data)? {
        let stream = startHTTPRequest(request, requestTimeout: timeout, resourceTimeout: timeout)
        var status = 0
        var body = Data()
        do {
            for try await event in stream {
                switch event {
                case .head(let head): status = head.statusCode
                case .body(let data):
                    // A model list is small; a body past a megabyte is not one.
                    guard body.count + data.count <= 1 << 20 else { return nil }
                    body.append(data)
                }
            }
        } catch {
            return nil
        }
        return status == 0 ? nil : (status, body)
    }

    /// The canonical form of a `/v1/models` body, or `nil` if it lists no model: each listed model's `id`, with
    /// its `root` (vLLM's source model) and `meta` (llama-server's size and shape, `fm serve`'s content digest)
    /// where the server gives them. When a card's `id` or one of its `aliases` is `name`, only those cards count,
    /// so a server listing a catalogue is keyed by the model asked for.
    package static func servedModels(inModelList body: Data, named name: String) -> String? {
        guard let list = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let data = list["data"] as? [[String: Any]] else { return nil }
        let named = data.filter { card in
            card["id"] as? String == name || (card["aliases"] as? [String] ?? []).contains(name)
        }
        let entries = (named.isEmpty ? data : named).compactMap { card -> String? in
            guard let id = card["id"] as? String else { return nil }
            var entry = "id=" + id
            if let root = card["root"] as? String { entry += " root=" + root }
            // `meta` only: other fields (vLLM's `created`, permissions) change from one request to the next.
            if let meta = card["meta"], JSONSerialization.isValidJSONObject(meta),
               let text = try? JSONSerialization.data(withJSONObject: meta, options: [.sortedKeys]) {
                entry += " meta=" + String(decoding: text, as: UTF8.self)
            }
            return entry
        }
        return entries.isEmpty ? nil : entries.sorted().joined(separator: "; ")
    }
}

extension ChatCompletionsConfiguration {
    /// The server's model list, beside ``chatCompletionsURL``: `…/v1/models`.
    package var modelsURL: URL {
        let chat = chatCompletionsURL
        guard var components = URLComponents(url: chat, resolvingAgainstBaseURL: false) else { return chat }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        if path.hasSuffix("/chat/completions") { path.removeLast("/chat/completions".count) }
        components.percentEncodedPath = path + "/models"
        return components.url ?? chat
    }
}
