import Foundation

/// One `data:` event of a streamed chat completion (`chat.completion.chunk`), or a whole non-streamed completion.
///
/// Every field is optional: servers differ in what they send, and a chunk carrying only usage has no choices.
struct ChatCompletionsChunk: Decodable, Sendable {
    var id: String?
    var model: String?
    var choices: [Choice]?
    var usage: Usage?
    /// An error reported inside the stream (llama-server and vLLM do this after the headers were sent), or the
    /// error of an error response's body.
    var error: ChatCompletionsServerError?

    private enum CodingKeys: String, CodingKey { case id, model, object, choices, usage, error }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        model = try container.decodeIfPresent(String.self, forKey: .model)
        choices = try container.decodeIfPresent([Choice].self, forKey: .choices)
        usage = try container.decodeIfPresent(Usage.self, forKey: .usage)
        error = try container.decodeIfPresent(ChatCompletionsServerError.self, forKey: .error)
        // vLLM (some versions) sends the error object itself, not under `error`: `{"object":"error","message":…}`.
        if error == nil, (try? container.decodeIfPresent(String.self, forKey: .object)) == "error" {
            error = try ChatCompletionsServerError(from: decoder)
        }
    }

    struct Choice: Decodable, Sendable {
        var index: Int?
        /// The increment of a streamed chunk.
        var delta: Delta?
        /// The whole message of a non-streamed completion.
        var message: Delta?
        var finishReason: String?
    }

    struct Delta: Decodable, Sendable {
        var role: String?
        var content: String?
        /// The thinking of reasoning models, as llama-server, vLLM and DeepSeek send it.
        var reasoningContent: String?
        var toolCalls: [ToolCallDelta]?
    }

    /// A piece of a tool call: the first piece of a call has its `id` and `name`, later ones more `arguments`.
    struct ToolCallDelta: Decodable, Sendable {
        var index: Int?
        var id: String?
        var type: String?
        var function: FunctionDelta?
    }

    struct FunctionDelta: Decodable, Sendable {
        var name: String?
        var arguments: String?
    }

    struct Usage: Decodable, Sendable {
        var promptTokens: Int?
        var completionTokens: Int?
        var promptTokensDetails: PromptDetails?
        var completionTokensDetails: CompletionDetails?

        struct PromptDetails: Decodable, Sendable {
            var cachedTokens: Int?
        }

        struct CompletionDetails: Decodable, Sendable {
            var reasoningTokens: Int?
        }
    }
}

/// The `error` object of an OpenAI error response (`{"error": {"message": …, "type": …}}`); some servers send a
/// plain string instead.
struct ChatCompletionsServerError: Decodable, Sendable {
    var message: String
    var type: String?
    var code: Int?
    /// OpenAI's string `code`, such as `context_length_exceeded` (also `fm serve`'s).
    var codeName: String?
    /// llama-server's token counts for `exceed_context_size_error`.
    var nPromptTokens: Int?
    var nCtx: Int?

    private enum CodingKeys: String, CodingKey { case message, type, code, nPromptTokens, nCtx }

    init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            message = text
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        message = (try? container.decode(String.self, forKey: .message)) ?? "unknown error"
        type = try? container.decode(String.self, forKey: .type)
        // `code` is a number on llama-server and a string on OpenAI.
        code = try? container.decode(Int.self, forKey: .code)
        codeName = try? container.decode(String.self, forKey: .code)
        nPromptTokens = try? container.decode(Int.self, forKey: .nPromptTokens)
        nCtx = try? container.decode(Int.self, forKey: .nCtx)
    }

    /// The error a caller sees for this one, whether it came with an HTTP error status or inside a stream: the one
    /// place server errors are classified.
    ///
    /// - Parameters:
    ///   - status: The HTTP status, or `nil` for an error reported inside a stream (whose status was 200).
    ///   - isStringRequest: Whether the request asked for text rather than a value of a schema.
    ///   - partialText: The answer's text so far.
    /// - Returns: ``LanguageModelError/contextSizeExceeded(_:)`` for a prompt beyond the context;
    ///   ``GeneratedContent/ParsingError`` with ``ResponseLimit/maximumResponseTokens`` for `max_tokens_reached`
    ///   (`fm serve`'s code for a value still open at `max_tokens`); the guardrail error for `content_filter`;
    ///   ``LanguageModelError/timeout(_:)`` for `timeout`; else ``ChatCompletionsError/httpError(status:message:)``
    ///   with the HTTP status (or a numeric `code`), or ``ChatCompletionsError/invalidResponse(_:)`` when there is
    ///   no status to give.
    func classified(status: Int?, isStringRequest: Bool, partialText: String) -> any Error {
        let source = status.map { "The server answered HTTP \($0): " } ?? "The server reported an error during the response: "
        // llama-server names the error by its type, OpenAI and fm serve by its code, vLLM only in its message.
        // fm serve reports a structured answer cut by the end of the window under the same code, after the answer
        // began: that is what local generation throws as a parsing error with the window as its limit.
        if status == nil, !isStringRequest, !partialText.isEmpty, codeName == "context_length_exceeded" {
            return GeneratedContent.ParsingError(
                rawContent: partialText, underlyingError: ResponseLimit.contextWindow, debugDescription: source + message)
        }
        if self.type == "exceed_context_size_error" || codeName == "context_length_exceeded"
            || message.range(of: "maximum context length", options: .caseInsensitive) != nil {
            return LanguageModelError.contextSizeExceeded(.init(
                contextSize: nCtx ?? number(after: ["maximum context length is "]) ?? 0,
                tokenCount: nPromptTokens ?? number(after: Self.requestedTokenPhrases) ?? 0,
                debugDescription: source + message))
        }
        switch codeName ?? "" {
        case "max_tokens_reached":
            return GeneratedContent.ParsingError(
                rawContent: partialText, underlyingError: ResponseLimit.maximumResponseTokens, debugDescription: source + message)
        case "content_filter":
            return ChatCompletionsStreamState.contentFilterError(isStringRequest: isStringRequest, debugDescription: source + message)
        case "timeout":
            return LanguageModelError.timeout(.init(debugDescription: source + message))
        default:
            break
        }
        // A string code is a name, not a status: only a real status (or llama-server's numeric code) is one.
        if let httpStatus = status ?? code { return ChatCompletionsError.httpError(status: httpStatus, message: message) }
        let name = codeName.map { " (\($0))" } ?? ""
        return ChatCompletionsError.invalidResponse("The server reported an error\(name): \(message)")
    }

    /// How the servers we know give the token count of a prompt too long for the context, most precise first:
    /// vLLM ("… for a total of at least 5097 tokens", "you requested 5000 tokens", "your request has 5000 input
    /// tokens") and OpenAI ("your messages resulted in 9000 tokens").
    private static let requestedTokenPhrases = [
        "for a total of at least ", "you requested ", "your messages resulted in ", "your request has ",
    ]

    /// The number just after the first of `phrases` that the message contains.
    private func number(after phrases: [String]) -> Int? {
        for phrase in phrases {
            guard let range = message.range(of: phrase, options: .caseInsensitive) else { continue }
            if let value = Int(message[range.upperBound...].prefix(while: { $0.isASCII && $0.isNumber })) { return value }
        }
        return nil
    }
}
