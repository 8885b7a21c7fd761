import Foundation
import FoundationModels

/// The JSON a chat completion answers with: one `chat.completion` object, or `chat.completion.chunk` events.
struct ChatCompletionResponse: Sendable {
    let id = "chatcmpl-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let created = Int(Date().timeIntervalSince1970)
    let model: String

    /// The whole answer of a non-streamed request.
    func completion(text: String, calls: [ToolCallText], finishReason: String, usage: ChatUsage) -> GeneratedContent {
        var message: [(String, GeneratedContent)] = [("role", .text("assistant")), ("content", calls.isEmpty ? .text(text) : .null)]
        if !calls.isEmpty { message.append(("tool_calls", .array(calls.enumerated().map { $1.json(index: nil) }))) }
        return .object([
            ("id", .text(id)), ("object", .text("chat.completion")), ("created", .integer(created)), ("model", .text(model)),
            ("choices", .array([.object([
                ("index", .integer(0)), ("message", .object(message)), ("logprobs", .null), ("finish_reason", .text(finishReason)),
            ])])),
            ("usage", usage.json),
        ])
    }

    /// A streamed chunk with `delta` and, on the last one, the finish reason.
    func chunk(delta: [(String, GeneratedContent)], finishReason: String? = nil) -> GeneratedContent {
        header([("choices", .array([.object([
            ("index", .integer(0)), ("delta", .object(delta)), ("logprobs", .null),
            ("finish_reason", finishReason.map(GeneratedContent.text) ?? .null),
        ])]))])
    }

    /// The usage chunk that ends a stream when the client asked for it (`choices` is empty).
    func usageChunk(_ usage: ChatUsage) -> GeneratedContent {
        header([("choices", .array([])), ("usage", usage.json)])
    }

    private func header(_ members: [(String, GeneratedContent)]) -> GeneratedContent {
        .object([("id", .text(id)), ("object", .text("chat.completion.chunk")), ("created", .integer(created)), ("model", .text(model))] + members)
    }
}

/// A tool call of the answer.
struct ToolCallText: Sendable {
    var id: String
    var name: String
    var arguments: String

    /// The call as OpenAI writes it; streamed calls carry their position as `index`.
    func json(index: Int?) -> GeneratedContent {
        var members: [(String, GeneratedContent)] = []
        if let index { members.append(("index", .integer(index))) }
        members += [("id", .text(id)), ("type", .text("function")),
                    ("function", .object([("name", .text(name)), ("arguments", .text(arguments))]))]
        return .object(members)
    }
}

/// A completion's token counts.
struct ChatUsage: Sendable {
    var prompt = 0
    var cached = 0
    var completion = 0

    var json: GeneratedContent {
        .object([
            ("prompt_tokens", .integer(prompt)), ("completion_tokens", .integer(completion)),
            ("total_tokens", .integer(prompt + completion)),
            ("prompt_tokens_details", .object([("cached_tokens", .integer(cached))])),
        ])
    }
}
