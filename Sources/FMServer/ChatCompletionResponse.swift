import FMEngine
import Foundation
import FoundationModels

/// The JSON a chat completion answers with: one `chat.completion` object, or `chat.completion.chunk` events.
struct ChatCompletionResponse: Sendable {
    let id = "chatcmpl-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let created = Int(Date().timeIntervalSince1970)
    let model: String

    /// One answer of a non-streamed request.
    struct Choice {
        let text: String
        let calls: [ToolCallText]
        let finishReason: String
        /// The answer's tokens with their log-probabilities, when the request asked for them.
        let logprobs: [TokenLogprob]?
    }

    /// The whole response of a non-streamed request: its answers, in order, and the usage of all of them.
    func completion(choices: [Choice], usage: ChatUsage) -> GeneratedContent {
        .object([
            ("id", .text(id)), ("object", .text("chat.completion")), ("created", .integer(created)), ("model", .text(model)),
            ("choices", .array(choices.enumerated().map { index, choice in
                var message: [(String, GeneratedContent)] = [("role", .text("assistant")), ("content", choice.calls.isEmpty ? .text(choice.text) : .null)]
                if !choice.calls.isEmpty { message.append(("tool_calls", .array(choice.calls.map { $0.json(index: nil) }))) }
                return .object([
                    ("index", .integer(index)), ("message", .object(message)), ("logprobs", choice.logprobs.map(Self.logprobs) ?? .null),
                    ("finish_reason", .text(choice.finishReason)),
                ])
            })),
            ("usage", usage.json),
        ])
    }

    /// A streamed chunk of answer `index` with `delta`, the log-probabilities of tokens and, on its last one, the
    /// finish reason.
    func chunk(index: Int, delta: [(String, GeneratedContent)], logprobs: [TokenLogprob]? = nil, finishReason: String? = nil) -> GeneratedContent {
        header([("choices", .array([.object([
            ("index", .integer(index)), ("delta", .object(delta)), ("logprobs", logprobs.map(Self.logprobs) ?? .null),
            ("finish_reason", finishReason.map(GeneratedContent.text) ?? .null),
        ])]))])
    }

    /// The usage chunk that ends a stream when the client asked for it (`choices` is empty).
    func usageChunk(_ usage: ChatUsage) -> GeneratedContent {
        header([("choices", .array([])), ("usage", usage.json)])
    }

    /// OpenAI's `logprobs` object: each token's text, bytes and log-probability, with the likeliest alternatives.
    private static func logprobs(_ tokens: [TokenLogprob]) -> GeneratedContent {
        func candidate(_ candidate: TokenLogprob.Candidate) -> [(String, GeneratedContent)] {
            // JSON has no infinity; OpenAI writes -9999 for a token the model all but rules out.
            [("token", .text(String(decoding: candidate.bytes, as: UTF8.self))), ("logprob", .number(max(-9_999, candidate.logprob))),
             ("bytes", .array(candidate.bytes.map { .integer(Int($0)) }))]
        }
        return .object([
            ("content", .array(tokens.map { token in
                .object(candidate(token.chosen) + [("top_logprobs", .array(token.top.map { .object(candidate($0)) }))])
            })),
            ("refusal", .null),
        ])
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

    init(prompt: Int = 0, cached: Int = 0, completion: Int = 0) {
        self.prompt = prompt
        self.cached = cached
        self.completion = completion
    }

    /// The usage of a request with several answers, as OpenAI counts it: the prompt once (the first answer's),
    /// the completion tokens of every answer.
    init(combining answers: [ChatUsage]) {
        self.init(prompt: answers.first?.prompt ?? 0, cached: answers.first?.cached ?? 0,
                  completion: answers.reduce(0) { $0 + $1.completion })
    }

    var json: GeneratedContent {
        .object([
            ("prompt_tokens", .integer(prompt)), ("completion_tokens", .integer(completion)),
            ("total_tokens", .integer(prompt + completion)),
            ("prompt_tokens_details", .object([("cached_tokens", .integer(cached))])),
        ])
    }
}
