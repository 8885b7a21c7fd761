import Foundation

/// One message of an OpenAI chat: `system`, `user`, `assistant` (text or tool calls) or `tool` (a tool's output).
struct ChatCompletionsMessage: Sendable, Equatable {
    /// `system`, `user`, `assistant` or `tool`.
    var role: String
    /// The text; `nil` for an assistant message that only calls tools.
    var content: String?
    /// The calls of an assistant message.
    var toolCalls: [ChatCompletionsToolCall] = []
    /// The call a `tool` message answers.
    var toolCallID: String?

    /// The message as OpenAI's JSON.
    var json: GeneratedContent {
        var members: [(String, GeneratedContent)] = [("role", .text(role))]
        members.append(("content", content.map(GeneratedContent.text) ?? GeneratedContent(kind: .null)))
        if !toolCalls.isEmpty {
            members.append(("tool_calls", GeneratedContent(kind: .array(toolCalls.map(\.json)))))
        }
        if let toolCallID { members.append(("tool_call_id", .text(toolCallID))) }
        return .object(members)
    }
}

/// A tool call in an assistant message.
struct ChatCompletionsToolCall: Sendable, Equatable {
    /// The call's identifier, which the `tool` message with its output repeats.
    var id: String
    /// The tool's name.
    var name: String
    /// The arguments as JSON text (OpenAI sends and expects a string, not an object).
    var arguments: String

    var json: GeneratedContent {
        .object([("id", .text(id)), ("type", .text("function")),
                 ("function", .object([("name", .text(name)), ("arguments", .text(arguments))]))])
    }
}

/// The body of a `POST /v1/chat/completions` request.
///
/// Written through ``GeneratedContent`` and the order-keeping ``JSONWriter`` rather than `Encodable`: Foundation's
/// `JSONEncoder` does not keep key order, and the schemas inside must list properties in declaration order.
struct ChatCompletionsRequest: Sendable {
    var model: String
    var messages: [ChatCompletionsMessage]
    /// The tools offered, as OpenAI `function` tools.
    var tools: [Transcript.ToolDefinition] = []
    /// `auto`, `required` or `none`; `nil` leaves the server's default.
    var toolChoice: String?
    /// The `response_format` schema, when the server enforces schemas.
    var responseSchema: GenerationSchema?
    var temperature: Double?
    var topP: Double?
    /// Not part of OpenAI's API, but llama-server, vLLM and Ollama read it.
    var topK: Int?
    var seed: UInt64?
    var maxTokens: Int?
    var stream = true

    /// Builds the request for `executorRequest`.
    ///
    /// - Parameters:
    ///   - sendsResponseFormat: Whether to send the schema as `response_format` (the server enforces schemas).
    /// - Throws: ``LanguageModelError/unsupportedTranscriptContent(_:)`` for content a chat message cannot hold.
    init(model: String, request: LanguageModelExecutorGenerationRequest, sendsResponseFormat: Bool) throws {
        self.model = model
        let includesSchema = request.schema != nil && request.contextOptions.includeSchemaInPrompt != false
        messages = try ChatMessageRenderer.messages(for: request.transcript, schema: includesSchema ? request.schema : nil)
        let mode = request.generationOptions.toolCallingMode?.kind
        if !request.enabledToolDefinitions.isEmpty {
            tools = request.enabledToolDefinitions
            toolChoice = switch mode {
            case .required: "required"
            case .disallowed: "none"
            case .allowed, nil: nil
            }
        }
        if sendsResponseFormat { responseSchema = request.schema }
        let options = request.generationOptions
        // A negative temperature acts as 0 (`GenerationOptions.temperature`); OpenAI refuses one below 0.
        temperature = options.temperature.map { max(0, $0) }
        switch options.samplingMode?.kind {
        case .greedy:
            // Temperature 0 is greedy on every OpenAI-compatible server.
            temperature = 0
        case .top(let k, let seed):
            topK = k
            self.seed = seed
        case .nucleus(let threshold, let seed):
            topP = threshold
            self.seed = seed
        case nil:
            break
        }
        maxTokens = options.maximumResponseTokens
    }

    /// The request as OpenAI's JSON.
    var json: GeneratedContent {
        var members: [(String, GeneratedContent)] = [
            ("model", .text(model)),
            ("messages", GeneratedContent(kind: .array(messages.map(\.json)))),
        ]
        if !tools.isEmpty {
            members.append(("tools", GeneratedContent(kind: .array(tools.map { tool in
                .object([("type", .text("function")), ("function", .object([
                    ("name", .text(tool.name)),
                    ("description", .text(tool.description)),
                    ("parameters", ChatCompletionsSchema.document(for: tool.parameters)),
                ]))])
            }))))
            if let toolChoice { members.append(("tool_choice", .text(toolChoice))) }
        }
        if let responseSchema {
            members.append(("response_format", .object([
                ("type", .text("json_schema")),
                ("json_schema", .object([
                    ("name", .text(ChatCompletionsSchema.name(for: responseSchema))),
                    ("strict", GeneratedContent(kind: .bool(ChatCompletionsSchema.isStrictCompatible(responseSchema)))),
                    ("schema", ChatCompletionsSchema.document(for: responseSchema)),
                ])),
            ])))
        }
        if let temperature { members.append(("temperature", .number(temperature))) }
        if let topP { members.append(("top_p", .number(topP))) }
        if let topK { members.append(("top_k", .number(Double(topK)))) }
        // A seed beyond 2^53 would lose digits as a JSON number; servers take 32-bit seeds anyway.
        if let seed { members.append(("seed", .number(Double(seed & 0xFFFF_FFFF)))) }
        if let maxTokens { members.append(("max_tokens", .number(Double(maxTokens)))) }
        members.append(("stream", GeneratedContent(kind: .bool(stream))))
        if stream {
            members.append(("stream_options", .object([("include_usage", GeneratedContent(kind: .bool(true)))])))
        }
        return .object(members)
    }

    /// The request body: compact JSON.
    var body: Data { Data(json.compactJSONString.utf8) }
}
