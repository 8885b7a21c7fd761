import Foundation
@testable import FoundationModels
import Testing

/// A structure whose properties are declared out of alphabetical order, one of them named like the private
/// ordering keyword.
@Generable
struct WireForecast {
    var zone: String
    @Guide(.range(1...3))
    var level: Int
    var propertyOrdering: Bool
}

/// The pure parts of `ChatCompletionsLanguageModel`: SSE parsing, stream bookkeeping, message rendering, schema
/// text, request body, backoff and structured-answer validation.
struct ChatCompletionsWireTests {
    // MARK: Server-sent events

    @Test func sseEventsSurviveAnyChunkingAndLineEnding() {
        let body = ": comment\r\ndata: {\"a\":1}\r\n\r\nevent: ping\ndata: line one\ndata: line two\nid: 7\n\ndata: [DONE]\r\r"
        let expected = [
            ServerSentEvent(type: nil, data: #"{"a":1}"#, id: nil),
            ServerSentEvent(type: "ping", data: "line one\nline two", id: "7"),
            ServerSentEvent(type: nil, data: "[DONE]", id: "7"),
        ]
        let bytes = Array(body.utf8)
        for chunkSize in [1, 2, 3, 5, bytes.count] {
            #expect(Self.events(in: bytes, chunkSize: chunkSize) == expected, "chunks of \(chunkSize) bytes")
        }
    }

    /// The events of `bytes` fed to one parser in chunks of `chunkSize`, then finished.
    static func events(in bytes: [UInt8], chunkSize: Int) -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        var start = 0
        while start < bytes.count {
            events += parser.feed(bytes[start..<min(start + chunkSize, bytes.count)])
            start += chunkSize
        }
        return events + parser.finish()
    }

    @Test func anEventWithoutItsBlankLineIsDropped() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("data: partial".utf8)).isEmpty)
        #expect(parser.finish().isEmpty)
    }

    @Test func oneLeadingByteOrderMarkIsSkipped() {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let bytes = mark + Array("data: x\n\n".utf8)
        for chunkSize in [1, 2, bytes.count] {
            #expect(Self.events(in: bytes, chunkSize: chunkSize) == [ServerSentEvent(type: nil, data: "x", id: nil)],
                    "chunks of \(chunkSize) bytes")
        }
        // Only one: a second mark belongs to the first line's field name, which is no field's.
        var parser = ServerSentEventParser()
        #expect(parser.feed(mark + bytes).isEmpty)
    }

    // MARK: Stream bookkeeping

    static func chunk(_ json: String) throws -> ChatCompletionsChunk {
        try JSONDecoder.snakeCase.decode(ChatCompletionsChunk.self, from: Data(json.utf8))
    }

    @Test func textToolCallPiecesAndUsageAreAssembled() throws {
        var state = ChatCompletionsStreamState()
        #expect(try state.apply(Self.chunk(#"{"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}"#)).isEmpty)
        #expect(try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#)) == [.text("Hi")])
        #expect(try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}"#)) == [.reasoning("hmm")])
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"getWeather","arguments":"{\"ci"}}]}}]}"#))
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"getTime","arguments":""}}]}}]}"#))
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Paris\"}"}}]}}]}"#))
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#))
        _ = try state.apply(Self.chunk(#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":4}}}"#))
        #expect(state.text == "Hi")
        #expect(state.toolCalls == [
            .init(id: "call_a", name: "getWeather", arguments: #"{"city":"Paris"}"#),
            .init(id: "call_b", name: "getTime", arguments: ""),
        ])
        #expect(state.finishReason == "tool_calls")
        #expect(state.usage?.promptTokens == 12 && state.usage?.completionTokens == 5)
        #expect(state.usage?.promptTokensDetails?.cachedTokens == 4)
        #expect(state.completionID == "c1" && state.model == "m")
    }

    @Test func anErrorInsideTheStreamIsThrownWithTheServersMessage() throws {
        var state = ChatCompletionsStreamState()
        #expect(throws: ChatCompletionsError.httpError(status: 500, message: "slot crashed")) {
            _ = try state.apply(Self.chunk(#"{"error":{"code":500,"message":"slot crashed","type":"server_error"}}"#))
        }
    }

    /// `fm serve` names its errors by string codes; a name is never turned into a status.
    @Test func errorsInsideTheStreamAreClassifiedByTheirCode() throws {
        var cut = ChatCompletionsStreamState(isStringRequest: false)
        _ = try cut.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"content":"{\"zone\":"}}]}"#))
        let limit = #expect(throws: GeneratedContent.ParsingError.self) {
            _ = try cut.apply(Self.chunk(#"{"error":{"message":"The response reached max_tokens.","type":"invalid_request_error","param":"max_tokens","code":"max_tokens_reached"}}"#))
        }
        #expect((limit?.underlyingError as? ResponseLimit) == ResponseLimit.maximumResponseTokens)
        #expect(limit?.rawContent == #"{"zone":"#)

        var long = ChatCompletionsStreamState()
        let context = #expect(throws: LanguageModelError.self) {
            _ = try long.apply(Self.chunk(#"{"error":{"message":"The prompt needs 5000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#))
        }
        guard case .contextSizeExceeded? = context else { Issue.record("not the context error: \(String(describing: context))"); return }

        // The same code after a structured answer began: the answer reached the end of the window, which local
        // generation reports as a parsing error with the window as its limit.
        var window = ChatCompletionsStreamState(isStringRequest: false)
        _ = try window.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"content":"{\"zone\":"}}]}"#))
        let windowed = #expect(throws: GeneratedContent.ParsingError.self) {
            _ = try window.apply(Self.chunk(#"{"error":{"message":"The response reached the end of the context window.","type":"invalid_request_error","code":"context_length_exceeded"}}"#))
        }
        #expect((windowed?.underlyingError as? ResponseLimit) == ResponseLimit.contextWindow)

        var guided = ChatCompletionsStreamState(isStringRequest: false)
        let refusal = #expect(throws: LanguageModelError.self) {
            _ = try guided.apply(Self.chunk(#"{"error":{"message":"Blocked.","type":"invalid_request_error","code":"content_filter"}}"#))
        }
        guard case .refusal? = refusal else { Issue.record("not a refusal: \(String(describing: refusal))"); return }

        var failed = ChatCompletionsStreamState()
        #expect(throws: ChatCompletionsError.invalidResponse("The server reported an error (generation_failed): boom")) {
            _ = try failed.apply(Self.chunk(#"{"error":{"message":"boom","type":"server_error","code":"generation_failed"}}"#))
        }
    }

    /// vLLM answers a prompt beyond its context with HTTP 400 and the error object itself as the body.
    @Test func vLLMsContextLengthErrorIsTheContextSizeError() throws {
        let body = #"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#
        let serverError = try #require(try Self.chunk(body).error)
        let error = serverError.classified(status: 400, isStringRequest: true, partialText: "")
        guard case LanguageModelError.contextSizeExceeded(let info) = error else { Issue.record("not the context error: \(error)"); return }
        #expect(info.contextSize == 4096 && info.tokenCount == 5000)
        let other = try #require(try Self.chunk(#"{"error":{"message":"model not found","type":"invalid_request_error","code":"model_not_found"}}"#).error)
        #expect((other.classified(status: 404, isStringRequest: true, partialText: "") as? ChatCompletionsError)
            == ChatCompletionsError.httpError(status: 404, message: "model not found"))
    }

    /// Old llama-server and LM Studio send `"id":""`; the session tells calls apart by id, so each gets its own.
    @Test func toolCallsWithoutIdsGetUniqueOnes() throws {
        var state = ChatCompletionsStreamState()
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"","type":"function","function":{"name":"getWeather","arguments":"{}"}},{"index":1,"id":"","type":"function","function":{"name":"getTime","arguments":"{}"}}]}}]}"#))
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"function":{"name":"getDate","arguments":"{}"}}]}}]}"#))
        let ids = state.toolCalls.map(\.id)
        #expect(state.toolCalls.map(\.name) == ["getWeather", "getTime", "getDate"])
        #expect(Set(ids).count == 3, "\(ids)")
        #expect(ids.allSatisfy { $0.hasPrefix("call_") && $0.count > 5 }, "\(ids)")
    }

    /// A server or proxy that gives every call one fixed id would have the session merge them into one call with
    /// both calls' arguments; the second gets an id of its own, and keeps its name and arguments.
    @Test func callsSharingAnIdAreKeptApart() throws {
        var state = ChatCompletionsStreamState()
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_0","function":{"name":"getWeather","arguments":"{\"city\":\"Oslo\"}"}}]}}]}"#))
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_0","function":{"name":"getTime","arguments":"{}"}}]}}]}"#))
        // A later piece of the second call repeating the shared id does not take the first call's id back.
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_0","function":{"arguments":""}}]}}]}"#))
        #expect(state.toolCalls.map(\.name) == ["getWeather", "getTime"])
        #expect(state.toolCalls.map(\.arguments) == [#"{"city":"Oslo"}"#, "{}"])
        #expect(state.toolCalls[0].id == "call_0" && state.toolCalls[1].id != "call_0")
    }

    /// Pieces without an `index` go on with the call before them unless they name a new one: each used to open a
    /// call of its own without a name, and the real call kept only the start of its arguments.
    @Test func piecesWithoutAnIndexContinueTheLastCall() throws {
        var state = ChatCompletionsStreamState()
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_a","function":{"name":"getWeather","arguments":"{\"ci"}}]}}]}"#))
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"ty\":\"Oslo\"}"}}]}}]}"#))
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_b","function":{"name":"getTime","arguments":"{}"}}]}}]}"#))
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_b","function":{"arguments":""}}]}}]}"#))
        #expect(state.toolCalls.map(\.name) == ["getWeather", "getTime"])
        #expect(state.toolCalls.map(\.id) == ["call_a", "call_b"])
        #expect(state.toolCalls[0].arguments == #"{"city":"Oslo"}"#)

        // No index, and one fixed id on every piece: a piece naming a tool starts a call, the rest continue it.
        var fixed = ChatCompletionsStreamState()
        for piece in [#"{"id":"call_0","function":{"name":"getWeather","arguments":""}}"#, #"{"id":"call_0","function":{"arguments":"{}"}}"#,
                      #"{"id":"call_0","function":{"name":"getTime","arguments":""}}"#, #"{"id":"call_0","function":{"arguments":"{}"}}"#] {
            _ = try fixed.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[\#(piece)]}}]}"#))
        }
        #expect(fixed.toolCalls.map(\.name) == ["getWeather", "getTime"])
        #expect(fixed.toolCalls.map(\.arguments) == ["{}", "{}"])
        #expect(Set(fixed.toolCalls.map(\.id)).count == 2)
    }

    // MARK: How the answer ended

    /// `length` is a token limit, the request's or the server's own (`fm serve`'s `--max-tokens`, a hosted
    /// model's output cap): text cut by it ends early, as local text does, whether or not `max_tokens` was sent.
    @Test func lengthIsATokenLimitAndEndsTextEarly() throws {
        var state = ChatCompletionsStreamState()
        _ = try state.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"content":"The capital is"},"finish_reason":"length"}]}"#))
        _ = try state.apply(Self.chunk(#"{"choices":[],"usage":{"prompt_tokens":30,"completion_tokens":6}}"#))
        #expect(state.responseLimit(maximumTokens: nil) == ResponseLimit.maximumResponseTokens)
        #expect(state.responseLimit(maximumTokens: 6) == ResponseLimit.maximumResponseTokens)
        try state.checkEnding(maximumTokens: 6)
        try state.checkEnding(maximumTokens: nil)
        var stopped = ChatCompletionsStreamState()
        _ = try stopped.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"content":"Paris."},"finish_reason":"stop"}]}"#))
        #expect(stopped.responseLimit(maximumTokens: 6) == nil)
    }

    @Test func toolCallArgumentsCutByTheLimitAreAParsingErrorWithTheLimit() throws {
        var empty = ChatCompletionsStreamState()
        _ = try empty.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"getWeather","arguments":""}}]},"finish_reason":"length"}]}"#))
        let error = #expect(throws: GeneratedContent.ParsingError.self) { try empty.checkEnding(maximumTokens: 10) }
        #expect((error?.underlyingError as? ResponseLimit) == ResponseLimit.maximumResponseTokens)

        var unclosed = ChatCompletionsStreamState()
        _ = try unclosed.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"getWeather","arguments":"{\"ci"}}]},"finish_reason":"length"}]}"#))
        let cut = #expect(throws: GeneratedContent.ParsingError.self) { try unclosed.checkEnding(maximumTokens: nil) }
        #expect((cut?.underlyingError as? ResponseLimit) == ResponseLimit.maximumResponseTokens)

        // A call cut before its name is no answer either: the text (here none) must not stand in for it.
        var unnamed = ChatCompletionsStreamState()
        _ = try unnamed.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function"}]},"finish_reason":"length"}]}"#))
        let nameless = #expect(throws: GeneratedContent.ParsingError.self) { try unnamed.checkEnding(maximumTokens: 2) }
        #expect((nameless?.underlyingError as? ResponseLimit) == ResponseLimit.maximumResponseTokens)

        // The same call ended by the model: empty arguments mean none.
        var ended = ChatCompletionsStreamState()
        _ = try ended.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"getWeather","arguments":""}}]},"finish_reason":"tool_calls"}]}"#))
        try ended.checkEnding(maximumTokens: 10)
    }

    @Test func contentFilterIsTheGuardrailErrorForTextAndARefusalForASchema() throws {
        let filtered = #"{"choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}"#
        var text = ChatCompletionsStreamState()
        _ = try text.apply(Self.chunk(filtered))
        let violation = #expect(throws: LanguageModelError.self) { try text.checkEnding(maximumTokens: nil) }
        guard case .guardrailViolation? = violation else { Issue.record("not a guardrail violation: \(String(describing: violation))"); return }
        var guided = ChatCompletionsStreamState(isStringRequest: false)
        _ = try guided.apply(Self.chunk(filtered))
        let refusal = #expect(throws: LanguageModelError.self) { try guided.checkEnding(maximumTokens: nil) }
        guard case .refusal? = refusal else { Issue.record("not a refusal: \(String(describing: refusal))"); return }
    }

    // MARK: Messages

    @Test func theTranscriptBecomesChatMessages() throws {
        let call = Transcript.ToolCall(id: "call_1", toolName: "getWeather",
                                       arguments: GeneratedContent(properties: ["city": "Paris"]))
        let transcript = Transcript(entries: [
            .instructions(.init(segments: [.text(.init(content: "Be brief."))], toolDefinitions: [])),
            .prompt(.init(segments: [.text(.init(content: "Weather in Paris?"))])),
            .toolCalls(.init([call])),
            .toolOutput(.init(id: "call_1", toolName: "getWeather", segments: [.text(.init(content: "Sunny."))])),
            .response(.init(assetIDs: [], segments: [.structure(.init(schemaName: "X", content: GeneratedContent(properties: ["ok": true])))])),
            .reasoning(.init(segments: [.text(.init(content: "not sent"))])),
        ])
        let messages = try ChatMessageRenderer.messages(for: transcript, schema: nil)
        #expect(messages == [
            ChatCompletionsMessage(role: "system", content: "Be brief."),
            ChatCompletionsMessage(role: "user", content: "Weather in Paris?"),
            ChatCompletionsMessage(role: "assistant", content: nil,
                                   toolCalls: [.init(id: "call_1", name: "getWeather", arguments: #"{"city":"Paris"}"#)]),
            ChatCompletionsMessage(role: "tool", content: "Sunny.", toolCallID: "call_1"),
            ChatCompletionsMessage(role: "assistant", content: #"{"ok":true}"#),
        ])
        #expect(messages[2].json.compactJSONString ==
            #"{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"getWeather","arguments":"{\"city\":\"Paris\"}"}}]}"#)
    }

    /// Words written beside tool calls travel with them, as one assistant message.
    @Test func aResponseJustBeforeToolCallsIsTheirMessagesContent() throws {
        let call = Transcript.ToolCall(id: "call_1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Paris"]))
        let transcript = Transcript(entries: [
            .prompt(.init(segments: [.text(.init(content: "Weather in Paris?"))])),
            .response(.init(assetIDs: [], segments: [.text(.init(content: "Let me check."))])),
            .reasoning(.init(segments: [.text(.init(content: "not sent"))])),
            .toolCalls(.init([call])),
            .toolOutput(.init(id: "call_1", toolName: "getWeather", segments: [.text(.init(content: "Sunny."))])),
            .toolCalls(.init([call])),
        ])
        let messages = try ChatMessageRenderer.messages(for: transcript, schema: nil)
        #expect(messages.map(\.role) == ["user", "assistant", "tool", "assistant", "tool"])
        #expect(messages[1].content == "Let me check.")
        #expect(messages[1].toolCalls.map(\.id) == ["call_1"])
        #expect(messages[3].content == nil, "calls after a tool output are a message of their own")
    }

    /// A call kept without its output (a tool that threw under `preserveTranscript`) still gets a tool message,
    /// since OpenAI-compatible servers refuse tool calls that no tool messages answer.
    @Test func aCallWithoutItsOutputIsAnsweredWithANote() throws {
        let paris = Transcript.ToolCall(id: "call_1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Paris"]))
        let rome = Transcript.ToolCall(id: "call_2", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Rome"]))
        let transcript = Transcript(entries: [
            .prompt(.init(segments: [.text(.init(content: "Weather in Paris and Rome?"))])),
            .toolCalls(.init([paris, rome])),
            .toolOutput(.init(id: "call_1", toolName: "getWeather", segments: [.text(.init(content: "Sunny."))])),
            .prompt(.init(segments: [.text(.init(content: "And now?"))])),
        ])
        let messages = try ChatMessageRenderer.messages(for: transcript, schema: nil)
        #expect(messages.map(\.role) == ["user", "assistant", "tool", "tool", "user"])
        #expect(messages[3] == ChatCompletionsMessage(role: "tool", content: ChatMessageRenderer.unansweredCallNote, toolCallID: "call_2"))
        // Every call is answered before the next message.
        let answered = Set(messages.compactMap(\.toolCallID))
        #expect(messages.flatMap(\.toolCalls).allSatisfy { answered.contains($0.id) })
    }

    @Test func theSchemaInThePromptJoinsTheLeadingSystemMessage() throws {
        let schema = WireForecast.generationSchema
        let withInstructions = Transcript(entries: [
            .instructions(.init(segments: [.text(.init(content: "Be brief."))], toolDefinitions: [])),
            .prompt(.init(segments: [.text(.init(content: "Forecast?"))])),
        ])
        let messages = try ChatMessageRenderer.messages(for: withInstructions, schema: schema)
        #expect(messages.count == 2)
        #expect(messages[0].content == "Be brief.\n\nRespond with JSON that matches this schema: \(ChatCompletionsSchema.text(for: schema))")
        let bare = try ChatMessageRenderer.messages(for: Transcript(entries: [withInstructions[1]]), schema: schema)
        #expect(bare.map(\.role) == ["system", "user"])
    }

    /// Instructions that only carry tools send no empty system message; a schema note still gets one.
    @Test func instructionsWithoutTextSendNoSystemMessage() throws {
        let tool = Transcript.ToolDefinition(name: "getWeather", description: "Weather.", parameters: WireForecast.generationSchema)
        let transcript = Transcript(entries: [
            .instructions(.init(segments: [], toolDefinitions: [tool])),
            .prompt(.init(segments: [.text(.init(content: "Hi"))])),
        ])
        #expect(try ChatMessageRenderer.messages(for: transcript, schema: nil).map(\.role) == ["user"])
        let schema = WireForecast.generationSchema
        let withSchema = try ChatMessageRenderer.messages(for: transcript, schema: schema)
        #expect(withSchema.map(\.role) == ["system", "user"])
        #expect(withSchema.first?.content == "Respond with JSON that matches this schema: \(ChatCompletionsSchema.text(for: schema))")
    }

    // MARK: Schema text and request body

    @Test func schemaTextListsPropertiesInDeclarationOrderWithoutPrivateKeywords() {
        let text = ChatCompletionsSchema.text(for: WireForecast.generationSchema)
        let zone = text.range(of: #""zone""#)!.lowerBound
        let level = text.range(of: #""level""#)!.lowerBound
        let flag = text.range(of: #""propertyOrdering":{"#)!.lowerBound
        #expect(zone < level && level < flag, "\(text)")
        #expect(!text.contains(#""propertyOrdering":["#), "the ordering list is left out: \(text)")
        #expect(text.contains(#""required":["zone","level","propertyOrdering"]"#))
        #expect(ChatCompletionsSchema.name(for: WireForecast.generationSchema) == "WireForecast")
        #expect(ChatCompletionsSchema.isStrictCompatible(WireForecast.generationSchema))
    }

    @Test func theRequestBodyCarriesFormatToolsOptionsAndStreaming() throws {
        let tool = Transcript.ToolDefinition(name: "getWeather", description: "Weather.", parameters: WireForecast.generationSchema)
        let request = LanguageModelExecutorGenerationRequest(
            id: UUID(), transcript: Transcript(entries: [.prompt(.init(segments: [.text(.init(content: "Hi"))]))]),
            enabledTools: [tool], schema: WireForecast.generationSchema,
            generationOptions: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 20, toolCallingMode: .required),
            contextOptions: ContextOptions(includeSchemaInPrompt: false), metadata: [:])
        let body = try ChatCompletionsRequest(model: "m", request: request, sendsResponseFormat: true).json.compactJSONString
        let schema = ChatCompletionsSchema.text(for: WireForecast.generationSchema)
        #expect(body.hasPrefix(#"{"model":"m","messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"function","function":{"name":"getWeather","description":"Weather.","parameters":"# + schema))
        #expect(body.contains(#""tool_choice":"required""#))
        #expect(body.contains(#""response_format":{"type":"json_schema","json_schema":{"name":"WireForecast","strict":true,"schema":"# + schema + "}}"))
        #expect(body.hasSuffix(#""temperature":0,"max_tokens":20,"stream":true,"stream_options":{"include_usage":true}}"#))
        let unenforced = try ChatCompletionsRequest(model: "m", request: request, sendsResponseFormat: false).json.compactJSONString
        #expect(!unenforced.contains("response_format"))
    }

    /// A negative temperature acts as 0 here, so a server that refuses one below 0 (OpenAI) is sent 0.
    @Test func aNegativeTemperatureIsSentAsZero() throws {
        func body(_ options: GenerationOptions) throws -> String {
            let request = LanguageModelExecutorGenerationRequest(
                id: UUID(), transcript: Transcript(entries: [.prompt(.init(segments: [.text(.init(content: "Hi"))]))]),
                enabledTools: [], schema: nil, generationOptions: options, contextOptions: ContextOptions(), metadata: [:])
            return try ChatCompletionsRequest(model: "m", request: request, sendsResponseFormat: false).json.compactJSONString
        }
        #expect(try body(GenerationOptions(temperature: -0.5)).contains(#""temperature":0,"#))
        #expect(try body(GenerationOptions(temperature: 0.4)).contains(#""temperature":0.4,"#))
        #expect(try !body(GenerationOptions()).contains("temperature"))
    }

    @Test(arguments: [
        ("http://h:8080", "http://h:8080/v1/chat/completions"),
        ("http://h:8080/", "http://h:8080/v1/chat/completions"),
        ("https://api.example.com/v1", "https://api.example.com/v1/chat/completions"),
        ("http://h/proxy/v1/chat/completions", "http://h/proxy/v1/chat/completions"),
    ])
    func theChatCompletionsRouteIsAppendedOnce(_ endpoint: String, _ expected: String) {
        let configuration = ChatCompletionsConfiguration(endpoint: URL(string: endpoint)!, model: "m")
        #expect(configuration.chatCompletionsURL.absoluteString == expected)
    }

    @Test(arguments: [
        ("http://h:8080", "http://h:8080/v1/models"),
        ("https://api.example.com/v1/", "https://api.example.com/v1/models"),
        ("http://h/proxy/v1/chat/completions?key=1", "http://h/proxy/v1/models?key=1"),
    ])
    func theModelListIsBesideTheChatCompletionsRoute(_ endpoint: String, _ expected: String) {
        let configuration = ChatCompletionsConfiguration(endpoint: URL(string: endpoint)!, model: "m")
        #expect(configuration.modelsURL.absoluteString == expected)
    }

    /// The served-model identity keeps what names the weights (`id`, `root`, `meta`) and drops what changes
    /// between requests (`created`); its order does not depend on the server's.
    @Test func servedModelsKeepWhatNamesTheWeights() {
        let llamaServer = #"{"object":"list","data":[{"id":"m.gguf","object":"model","created":1,"owned_by":"llamacpp","meta":{"size":9,"n_params":3}}]}"#
        let again = #"{"object":"list","data":[{"id":"m.gguf","object":"model","created":2,"owned_by":"llamacpp","meta":{"n_params":3,"size":9}}]}"#
        let served = ChatCompletionsLanguageModel.servedModels(inModelList: Data(llamaServer.utf8), named: "default")
        #expect(served == #"id=m.gguf meta={"n_params":3,"size":9}"#)
        #expect(ChatCompletionsLanguageModel.servedModels(inModelList: Data(again.utf8), named: "default") == served)
        let vllm = #"{"data":[{"id":"b","root":"/m/b","created":5},{"id":"a","root":"/m/a"}]}"#
        #expect(ChatCompletionsLanguageModel.servedModels(inModelList: Data(vllm.utf8), named: "default") == "id=a root=/m/a; id=b root=/m/b")
        // A catalogue: the card of the model asked for, by id or alias, and not the rest.
        #expect(ChatCompletionsLanguageModel.servedModels(inModelList: Data(vllm.utf8), named: "b") == "id=b root=/m/b")
        let aliased = #"{"data":[{"id":"x.gguf","aliases":["small"]},{"id":"y.gguf"}]}"#
        #expect(ChatCompletionsLanguageModel.servedModels(inModelList: Data(aliased.utf8), named: "small") == "id=x.gguf")
        for body in [#"{"data":[]}"#, #"{"error":"no"}"#, "not json", #"{"data":[{"name":"x"}]}"#] {
            #expect(ChatCompletionsLanguageModel.servedModels(inModelList: Data(body.utf8), named: "default") == nil, "\(body)")
        }
    }

    // MARK: Backoff

    @Test func backoffDoublesUpToTheBoundAndHonoursRetryAfter() {
        let policy = ChatCompletionsRetryPolicy(maximumRetries: 10, initialDelay: 0.5, maximumDelay: 4)
        #expect((1...6).map { policy.delay(beforeRetry: $0, retryAfter: nil) } == [0.5, 1, 2, 4, 4, 4])
        #expect(policy.delay(beforeRetry: 1, retryAfter: 3) == 3)
        #expect(policy.delay(beforeRetry: 1, retryAfter: 120) == 4, "a server's Retry-After is bounded")
        #expect(policy.delay(beforeRetry: 1_000, retryAfter: nil) == 4)
        #expect(ChatCompletionsRetryPolicy(maximumRetries: -2).maximumRetries == 0)
    }

    /// Every delay is one `Duration.seconds` can hold and a request can outlive, whatever the policy's properties
    /// hold: NaN and infinity trapped there, and an infinite cap let a server's `Retry-After` wait for ages.
    @Test func delaysAreFiniteWhateverThePolicySays() {
        var uncapped = ChatCompletionsRetryPolicy(maximumRetries: 3, initialDelay: 1, maximumDelay: .infinity)
        var delays = [uncapped.delay(beforeRetry: 1, retryAfter: 1e300), uncapped.delay(beforeRetry: 63, retryAfter: nil)]
        uncapped.initialDelay = .nan
        delays.append(uncapped.delay(beforeRetry: 2, retryAfter: nil))
        uncapped.initialDelay = .infinity
        uncapped.maximumDelay = .nan
        delays.append(uncapped.delay(beforeRetry: 2, retryAfter: nil))
        delays.append(uncapped.delay(beforeRetry: 1, retryAfter: .infinity))
        for delay in delays {
            #expect(delay.isFinite && delay >= 0 && delay <= PlainHTTPStream.longestWait, "\(delay)")
            _ = Duration.seconds(delay)
        }
        #expect(delays[0] == PlainHTTPStream.longestWait && delays[2] == 0 && delays[3] == 0)
    }

    @Test func retryAfterIsReadAsSecondsOrAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_000_000_000)  // Sun, 09 Sep 2001 01:46:40 GMT
        #expect(ChatCompletionsRetryPolicy.retryAfterSeconds(" 7 ", now: now) == 7)
        #expect(ChatCompletionsRetryPolicy.retryAfterSeconds("Sun, 09 Sep 2001 01:46:50 GMT", now: now) == 10)
        #expect(ChatCompletionsRetryPolicy.retryAfterSeconds("Sun, 09 Sep 2001 01:40:00 GMT", now: now) == 0)
        #expect(ChatCompletionsRetryPolicy.retryAfterSeconds("soon", now: now) == nil)
        #expect(ChatCompletionsRetryPolicy.retryAfterSeconds("-3", now: now) == nil)
    }

    // MARK: Validation

    @Test func validAnswersAreAcceptedWhateverTheirSpacingAndMemberOrder() throws {
        let validator = try StructuredOutputValidator(schema: WireForecast.generationSchema)
        for text in [
            #"{"zone":"north","level":2,"propertyOrdering":true}"#,
            "{ \"zone\": \"north\",\n  \"level\": 2, \"propertyOrdering\": true }\n",
            #"{"level":2,"propertyOrdering":true,"zone":"north"}"#,
        ] {
            let value = try validator.validate(text)
            #expect(value.compactJSONString == #"{"zone":"north","level":2,"propertyOrdering":true}"#, "\(text)")
        }
    }

    @Test(arguments: [
        "Hello there!",
        #"{"zone":"north","level":2"#,
        #"{"zone":"north","level":7,"propertyOrdering":true}"#,
        #"{"zone":"north","level":"2","propertyOrdering":true}"#,
        #"{"zone":"north","propertyOrdering":true}"#,
        #"{"zone":"north","level":2,"propertyOrdering":true,"extra":1}"#,
        #"["north",2,true]"#,
        // Half a surrogate pair is no character: read, it would be U+FFFD, which the server did not write.
        #"{"zone":"caf\udce9","level":2,"propertyOrdering":true}"#,
        #"{"zone":"\ud83d","level":2,"propertyOrdering":true}"#,
    ])
    func invalidAnswersThrowTheParsingError(_ text: String) throws {
        let validator = try StructuredOutputValidator(schema: WireForecast.generationSchema)
        #expect(throws: GeneratedContent.ParsingError.self) { _ = try validator.validate(text) }
    }
}
