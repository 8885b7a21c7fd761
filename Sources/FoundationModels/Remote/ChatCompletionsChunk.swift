/// One `data:` event of a streamed chat completion (`chat.completion.chunk`), or a whole non-streamed completion.
///
/// Every field is optional: servers differ in what they send, and a chunk carrying only usage has no choices.
struct ChatCompletionsChunk: Decodable, Sendable {
    var id: String?
    var model: String?
    var choices: [Choice]?
    var usage: Usage?
    /// An error reported inside the stream (llama-server and vLLM do this after the headers were sent).
    var error: ChatCompletionsServerError?

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

    /// The body of an error response.
    struct Body: Decodable, Sendable {
        var error: ChatCompletionsServerError
    }
}
