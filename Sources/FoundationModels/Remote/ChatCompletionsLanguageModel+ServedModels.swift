package import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ChatCompletionsLanguageModel {
    /// What the server says it serves (`GET …/v1/models`), in a canonical form: each listed model's `id`, with
    /// its `root` (vLLM's source model) and `meta` (llama-server's size and shape) where the server gives them.
    /// `nil` when the server does not answer with a model list within `timeout` seconds.
    ///
    /// A model name alone does not say which weights answer: llama-server answers to any name, and a server
    /// restarted with another file keeps its address. Result caches key on this as well.
    package func servedModels(timeout: TimeInterval = 10) async -> String? {
        var request = URLRequest(url: configuration.modelsURL)
        request.httpMethod = "GET"
        request.timeoutInterval = timeout
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let name = configuration.apiKeyEnvironmentVariable {
            guard let key = ProcessInfo.processInfo.environment[name], !key.isEmpty else { return nil }
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        }
        // Plain http skips URLSession, which keeps a core busy while it waits (see PlainHTTPStream).
        let stream = request.url?.scheme == "http"
            ? PlainHTTPStream.start(request, requestTimeout: timeout, resourceTimeout: timeout)
            : HTTPStreamingTask.start(request, requestTimeout: timeout, resourceTimeout: timeout)
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
        guard (200..<300).contains(status) else { return nil }
        return Self.servedModels(inModelList: body)
    }

    /// The canonical form of a `/v1/models` body, or `nil` if it lists no model.
    package static func servedModels(inModelList body: Data) -> String? {
        guard let list = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let data = list["data"] as? [[String: Any]] else { return nil }
        let entries = data.compactMap { card -> String? in
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
