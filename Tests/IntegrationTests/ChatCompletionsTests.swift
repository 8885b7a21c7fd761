import Foundation
import FoundationModels
import Synchronization
import Testing

/// A city, generated as a structure with two properties in a fixed order.
@Generable
struct RemoteCity {
    @Guide(description: "The city's name")
    var name: String
    @Guide(description: "The country the city is in")
    var country: String
}


/// `ChatCompletionsLanguageModel` against a real llama-server running the tiny model, started for each test on
/// a free loopback port and killed at its end; the retry, stream-ending and tool round-trip tests use small Python
/// HTTP servers.
@Suite("ChatCompletionsLanguageModel against llama-server", .serialized, .timeLimit(.minutes(10)))
struct ChatCompletionsTests {
    static let greedy = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 32)

    static func model(_ server: LlamaServer, enforcesSchemas: Bool = true) -> ChatCompletionsLanguageModel {
        ChatCompletionsLanguageModel(endpoint: server.url, model: "tiny", enforcesSchemas: enforcesSchemas,
                                     requestTimeout: 60, retryPolicy: .none)
    }

    @Test func respondsWithTextAndReportsUsage() async throws {
        try await LlamaServer.with { server in
            let session = LanguageModelSession(model: Self.model(server), instructions: "You are a helpful assistant.")
            let response = try await session.respond(to: "Say hello to Ada.", options: Self.greedy)
            #expect(!response.content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
            #expect(session.usage.input.totalTokenCount > 0, "the server's usage is reported")
            #expect(session.usage.output.totalTokenCount > 0 && session.usage.output.totalTokenCount <= 32)
            #expect(session.transcript.count == 3, "instructions, prompt, response")
            guard case .response(let entry)? = session.transcript.last else { Issue.record("no response entry"); return }
            #expect(entry.metadata["completionID"] != nil, "the server's completion id is kept")
            let reason = entry.metadata["finishReason"] as? String
            #expect(reason == (session.usage.output.totalTokenCount == 32 ? "length" : "stop"), "the server's finish reason is kept")

            // A second turn sends the first one back as history.
            let second = try await session.respond(to: "Now say goodbye.", options: Self.greedy)
            #expect(!second.content.isEmpty)
            #expect(session.transcript.count == 5)
        }
    }

    @Test func streamsTextAsItArrives() async throws {
        try await LlamaServer.with { server in
            let session = LanguageModelSession(model: Self.model(server))
            let stream = session.streamResponse(
                to: "Write two sentences about the sea.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40))
            var snapshots: [String] = []
            for try await snapshot in stream { snapshots.append(snapshot.content) }
            #expect(snapshots.count > 3, "text arrives in several pieces, not at the end")
            for (earlier, later) in zip(snapshots, snapshots.dropFirst()) {
                #expect(later.hasPrefix(earlier), "each snapshot extends the previous one")
            }
            let response = try await stream.collect()
            #expect(response.content == snapshots.last)
        }
    }

    @Test func guidedGenerationFollowsTheSchema() async throws {
        try await LlamaServer.with { server in
            let session = LanguageModelSession(model: Self.model(server, enforcesSchemas: true))
            let response = try await session.respond(
                to: "Name a large city in Japan.", generating: RemoteCity.self,
                options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 64))
            #expect(!response.content.name.isEmpty)
            #expect(!response.content.country.isEmpty)
            #expect(response.rawContent.jsonString.range(of: "name")!.lowerBound < response.rawContent.jsonString.range(of: "country")!.lowerBound,
                    "properties come in declaration order")
        }
    }

    @Test func guidedGenerationNeedsAServerThatEnforcesSchemas() async throws {
        // No request is sent: the session refuses before the executor runs.
        let model = ChatCompletionsLanguageModel(endpoint: URL(string: "http://127.0.0.1:9")!, model: "tiny", enforcesSchemas: false)
        #expect(!model.capabilities.contains(.guidedGeneration))
        let session = LanguageModelSession(model: model)
        await #expect {
            _ = try await session.respond(to: "Name a city.", generating: RemoteCity.self)
        } throws: { error in
            guard case LanguageModelError.unsupportedCapability(let info) = error else { return false }
            return info.capability == .guidedGeneration
        }
    }

    @Test func anAnswerThatIsNotAValueOfTheSchemaThrowsTheDecodingError() async throws {
        try await LlamaServer.with { server in
            // Without enforcement no `response_format` is sent; a greeting prompt gets prose, which must not
            // become a value.
            let model = Self.model(server, enforcesSchemas: false)
            let executor = ChatCompletionsExecutor(configuration: model.executorConfiguration)
            let transcript = Transcript(entries: [.prompt(Transcript.Prompt(segments: [.text(.init(content: "Say hello in one short sentence."))]))])
            let request = LanguageModelExecutorGenerationRequest(
                id: UUID(), transcript: transcript, enabledTools: [], schema: RemoteCity.generationSchema,
                generationOptions: Self.greedy, contextOptions: ContextOptions(includeSchemaInPrompt: false), metadata: [:])
            let channel = LanguageModelExecutorGenerationChannel()
            await #expect(throws: GeneratedContent.ParsingError.self) {
                try await executor.respond(to: request, model: model, streamingInto: channel)
            }
        }
    }

    // No tool round trip runs against llama-server: the tiny model's chat template has no tool section, so the
    // pinned server answers tool requests with plain text; with a tool-format template its grammar for
    // `tool_choice: required` allows free text before the call and the tiny model never starts one; and the
    // default model (Qwen2.5-Coder-0.5B, Hermes template under `--jinja`) writes the call as bare JSON without
    // `<tool_call>` tags, which the server returns as content. The mapping both ways — transcript calls and
    // outputs to messages, streamed `tool_calls` pieces to tool-call events — is tested without a server in
    // FoundationModelsTests/ChatCompletionsWireTests, and over HTTP with a scripted server below.

    @Test func anUnreachableServerIsReportedAsSuch() async throws {
        let port = try LlamaServer.freePort()
        let model = ChatCompletionsLanguageModel(endpoint: URL(string: "http://127.0.0.1:\(port)")!, model: "tiny")
        let session = LanguageModelSession(model: model)
        await #expect {
            _ = try await session.respond(to: "Hello")
        } throws: { error in
            guard case ChatCompletionsError.unreachable(let endpoint, _) = error else { return false }
            return endpoint.port == port
        }
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let listener = try Listener()
        defer { listener.close() }
        let model = ChatCompletionsLanguageModel(endpoint: URL(string: "http://127.0.0.1:\(listener.port)")!, model: "tiny",
                                                 requestTimeout: 1, retryPolicy: .none)
        let started = Date()
        await #expect {
            _ = try await LanguageModelSession(model: model).respond(to: "Hello")
        } throws: { error in
            if case LanguageModelError.timeout = error { return true }
            return false
        }
        #expect(Date().timeIntervalSince(started) < 20)
    }

    @Test func httpErrorsCarryTheStatusAndTheServersMessage() async throws {
        try await LlamaServer.with { server in
            let model = ChatCompletionsLanguageModel(endpoint: server.url.appendingPathComponent("no/such/route"), model: "tiny")
            await #expect {
                _ = try await LanguageModelSession(model: model).respond(to: "Hello")
            } throws: { error in
                guard case ChatCompletionsError.httpError(let status, let message) = error else { return false }
                return status == 404 && !message.isEmpty
            }
            // A prompt beyond the server's 2048-token context is refused by the server, and said so.
            let long = String(repeating: "word ", count: 3_000)
            await #expect {
                _ = try await LanguageModelSession(model: Self.model(server)).respond(to: long, options: Self.greedy)
            } throws: { error in
                if case LanguageModelError.contextSizeExceeded(let info) = error { return info.contextSize == 2048 }
                if case ChatCompletionsError.httpError(let status, _) = error { return status == 400 }
                return false
            }
        }
    }

    @Test func cancellingTheTaskStopsTheRequest() async throws {
        try await LlamaServer.with { server in
            let model = Self.model(server)
            let executor = ChatCompletionsExecutor(configuration: model.executorConfiguration)
            let transcript = Transcript(entries: [.prompt(Transcript.Prompt(segments: [.text(.init(content: "Write a very long story about a dragon."))]))])
            let request = LanguageModelExecutorGenerationRequest(
                id: UUID(), transcript: transcript, enabledTools: [], schema: nil,
                generationOptions: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 1_500),
                contextOptions: ContextOptions(), metadata: [:])
            let channel = LanguageModelExecutorGenerationChannel()
            let task = Task { try await executor.respond(to: request, model: model, streamingInto: channel) }
            // Cancel once the first text has arrived: the request is under way.
            for try await event in channel where event is LanguageModelExecutorGenerationChannel.Response { break }
            let cancelled = Date()
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(Date().timeIntervalSince(cancelled) < 5, "the request ends promptly")
            // The server's only slot is free again: a new request is answered at once, not after 1,500 tokens.
            let started = Date()
            _ = try await LanguageModelSession(model: model)
                .respond(to: "Say hi.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8))
            #expect(Date().timeIntervalSince(started) < 5)
        }
    }

    @Test func rateLimitsAreRetriedWithBackoffThenReported() async throws {
        let server = try await BusyServer(status: 429)
        defer { server.stop() }
        let model = ChatCompletionsLanguageModel(
            endpoint: server.url, model: "tiny",
            retryPolicy: ChatCompletionsRetryPolicy(maximumRetries: 2, initialDelay: 0.05, maximumDelay: 1))
        await #expect {
            _ = try await LanguageModelSession(model: model).respond(to: "Hello")
        } throws: { error in
            guard case LanguageModelError.rateLimited(let info) = error else { return false }
            return info.debugDescription.contains("busy, try later")
        }
        #expect(server.requestCount == 3, "the first request and two retries")
    }

    @Test func anUnavailableServerIsRetriedThenReportedWithItsStatus() async throws {
        let server = try await BusyServer(status: 503)
        defer { server.stop() }
        let model = ChatCompletionsLanguageModel(
            endpoint: server.url, model: "tiny",
            retryPolicy: ChatCompletionsRetryPolicy(maximumRetries: 1, initialDelay: 0.05, maximumDelay: 1))
        await #expect(throws: ChatCompletionsError.httpError(status: 503, message: "busy, try later")) {
            _ = try await LanguageModelSession(model: model).respond(to: "Hello")
        }
        #expect(server.requestCount == 2)
    }

    @Test func aStreamThatEndsBeforeTheServerFinishedIsAnError() async throws {
        let server = try await ScriptedChatServer(script: ScriptedChatServer.cutShortScript)
        defer { server.stop() }
        let model = ChatCompletionsLanguageModel(endpoint: server.url, model: "scripted", retryPolicy: .none)
        await #expect(throws: ChatCompletionsError.invalidResponse("The stream ended before the server finished the answer.")) {
            _ = try await LanguageModelSession(model: model).respond(to: "What is the capital of France?")
        }
    }

    /// `[DONE]` with no chunk of an answer before it (only a usage chunk, or nothing) is the server's failure, as a
    /// stream cut short is, not an empty answer: for text and for a schema alike.
    @Test func aStreamWithoutAnyPartOfAnAnswerIsAnError() async throws {
        let usageOnly = #"{"id":"c","model":"m","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":0}}"#
        for events in [[], [usageOnly]] {
            let server = try await ScriptedChatServer(script: ScriptedChatServer.eventStreamAnswer(events))
            defer { server.stop() }
            let model = ChatCompletionsLanguageModel(endpoint: server.url, model: "scripted", enforcesSchemas: true, retryPolicy: .none)
            let failure = ChatCompletionsError.invalidResponse("The stream ended without any part of an answer.")
            await #expect(throws: failure, "\(events)") {
                _ = try await LanguageModelSession(model: model).respond(to: "What is the capital of France?")
            }
            await #expect(throws: failure, "\(events)") {
                _ = try await LanguageModelSession(model: model).respond(to: "Pick a number.", generating: Int.self)
            }
        }
    }

    @Test func doneEndsTheAnswerThoughTheConnectionStaysOpen() async throws {
        let server = try await ScriptedChatServer(script: ScriptedChatServer.heldOpenScript)
        defer { server.stop() }
        let model = ChatCompletionsLanguageModel(endpoint: server.url, model: "scripted", requestTimeout: 5, retryPolicy: .none)
        let started = Date()
        let response = try await LanguageModelSession(model: model).respond(to: "What is the capital of France?")
        #expect(response.content == "The capital is Paris.")
        #expect(Date().timeIntervalSince(started) < 5, "the answer ends at [DONE], not when the connection does")
    }

    /// Bytes that are not UTF-8 in a streamed answer are refused, as in a whole JSON answer, rather than read
    /// as U+FFFD and passed on (and cached) as the model's text.
    @Test func aStreamThatIsNotUTF8IsAnError() async throws {
        var body = Data(#"data: {"id":"c","choices":[{"index":0,"delta":{"content":"caf"#.utf8)
        body.append(0xE9)
        body.append(Data(#" ok"},"finish_reason":"stop"}]}"#.utf8) + Data("\n\ndata: [DONE]\n\n".utf8))
        let server = try await ScriptedChatServer(script: ScriptedChatServer.rawAnswer(
            head: "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: \(body.count)\r\n\r\n", bodyBytes: body))
        defer { server.stop() }
        let model = ChatCompletionsLanguageModel(endpoint: server.url, model: "scripted", retryPolicy: .none)
        await #expect(throws: ChatCompletionsError.invalidResponse("The event stream is not valid UTF-8.")) {
            _ = try await LanguageModelSession(model: model).respond(to: "Hello")
        }
    }

    /// A server that streams on past `max_tokens` is stopped after a few events a token, not read (and its text
    /// kept) until the resource timeout.
    @Test func aStreamFarPastMaxTokensIsCutOff() async throws {
        let events = Array(repeating: #"{"id":"c","choices":[{"index":0,"delta":{"content":"and on "},"finish_reason":null}]}"#, count: 100)
        let server = try await ScriptedChatServer(script: ScriptedChatServer.eventStreamAnswer(events))
        defer { server.stop() }
        let model = ChatCompletionsLanguageModel(endpoint: server.url, model: "scripted", retryPolicy: .none)
        // Four events a token and 64 more: 84 for 5 tokens.
        await #expect(throws: ChatCompletionsError.invalidResponse("The server sent more than 84 events without finishing the answer.")) {
            _ = try await LanguageModelSession(model: model).respond(to: "Hello", options: GenerationOptions(maximumResponseTokens: 5))
        }
    }

    /// A server's answer is data, not something to trust: a `Content-Length` of -1 once took a negative count of
    /// bytes off the reader's buffer, which traps and ends the whole process.
    @Test func aNegativeContentLengthIsAnErrorNotACrash() async throws {
        let server = try await ScriptedChatServer(script: ScriptedChatServer.rawAnswer(
            head: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n",
            body: #"{"choices":[{"index":0,"message":{"content":"Hi."},"finish_reason":"stop"}]}"#))
        defer { server.stop() }
        let model = ChatCompletionsLanguageModel(endpoint: server.url, model: "scripted", retryPolicy: .none)
        await #expect(throws: ChatCompletionsError.self) {
            _ = try await LanguageModelSession(model: model).respond(to: "Hello")
        }
    }

    /// Token counts near `Int`'s end (or below zero) are held to what a count can be: adding them up for the
    /// response's and the session's totals trapped. (`Usage`'s own sums hold at `Int`'s ends too: UsageTests.)
    @Test func usageCountsPastWhatACountCanBeAreHeld() async throws {
        let server = try await ScriptedChatServer(script: ScriptedChatServer.eventStreamAnswer([
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"Hi."},"finish_reason":"stop"}]}"#,
            #"{"id":"c","choices":[],"usage":{"prompt_tokens":9223372036854775807,"completion_tokens":9,"prompt_tokens_details":{"cached_tokens":-4}}}"#,
        ]))
        defer { server.stop() }
        let model = ChatCompletionsLanguageModel(endpoint: server.url, model: "scripted", retryPolicy: .none)
        let session = LanguageModelSession(model: model)
        let first = try await session.respond(to: "Hello")
        #expect(first.content == "Hi.")
        #expect(first.usage.input.totalTokenCount == Int(Int32.max) && first.usage.input.cachedTokenCount == 0)
        #expect(first.usage.totalTokenCount == Int(Int32.max) + 9)
        _ = try await session.respond(to: "Again")
        #expect(session.usage.totalTokenCount == 2 * (Int(Int32.max) + 9))
    }

    /// An answer ended "for tool calls" that holds none, or a call that names no tool, is an error, not an empty
    /// reply.
    @Test func toolCallsWithoutANameOrWithoutCallsAreErrors() async throws {
        let streams = [
            [#"{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#],
            [#"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"arguments":"{\"city\":\"Oslo\"}"}}]}}]}"#,
             #"{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#],
        ]
        for events in streams {
            let server = try await ScriptedChatServer(script: ScriptedChatServer.eventStreamAnswer(events))
            defer { server.stop() }
            let model = ChatCompletionsLanguageModel(endpoint: server.url, model: "scripted", retryPolicy: .none)
            do {
                let response = try await LanguageModelSession(model: model, tools: [WeatherTool()]).respond(to: "Weather?")
                Issue.record("answered \"\(response.content)\"")
            } catch let error as ChatCompletionsError {
                guard case .invalidResponse = error else { Issue.record("\(error)"); continue }
            }
        }
    }

    /// Arguments a server sends are held to the tool's schema as a structured answer is: a value outside a
    /// guide's range never reaches the tool. A `null` for an optional parameter means it was left out.
    @Test func toolArgumentsOutsideTheirSchemaNeverReachTheTool() async throws {
        func call(_ arguments: String) -> [String] {
            let quoted = "\"" + arguments.replacingOccurrences(of: "\"", with: "\\\"") + "\""
            return [#"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"rollDice","arguments":\#(quoted)}}]}}]}"#,
                    #"{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#]
        }
        let tool = DiceTool()
        let outside = try await ScriptedChatServer(script: ScriptedChatServer.eventStreamAnswer(call(#"{"count":500}"#)))
        defer { outside.stop() }
        let model = ChatCompletionsLanguageModel(endpoint: outside.url, model: "scripted", retryPolicy: .none)
        await #expect(throws: GeneratedContent.ParsingError.self) {
            _ = try await LanguageModelSession(model: model, tools: [tool]).respond(to: "Roll.")
        }
        #expect(tool.log.counts.withLock { $0 }.isEmpty)

        // Within the range, with the optional parameter written as null: the tool runs, then the model is asked
        // again; this server makes the same call every time, which the session refuses the second time.
        let inside = try await ScriptedChatServer(script: ScriptedChatServer.eventStreamAnswer(call(#"{"count":3,"sides":null}"#)))
        defer { inside.stop() }
        let accepting = ChatCompletionsLanguageModel(endpoint: inside.url, model: "scripted", retryPolicy: .none)
        await #expect(throws: GeneratedContent.ParsingError.self) {
            _ = try await LanguageModelSession(model: accepting, tools: [tool]).respond(to: "Roll.")
        }
        #expect(tool.log.counts.withLock { $0 }.first == 3, "the call within the schema ran")
    }

    @Test func toolCallsStreamedByTheServerAreRunAndTheirOutputSentBack() async throws {
        let server = try await ScriptedChatServer()
        defer { server.stop() }
        let tool = WeatherTool()
        let model = ChatCompletionsLanguageModel(endpoint: server.url, model: "scripted", retryPolicy: .none)
        let session = LanguageModelSession(model: model, tools: [tool], instructions: "Use tools.")
        let response = try await session.respond(to: "Weather in Paris?")
        #expect(response.content == "It is sunny in Paris.")
        #expect(tool.calls.cities.withLock { $0 } == ["Paris"], "arguments assembled from their streamed pieces")
        #expect(session.usage.input.totalTokenCount == 120 && session.usage.output.totalTokenCount == 14)

        let requests = server.requests
        try #require(requests.count == 2)
        let first = requests[0]
        let tools = try #require(first["tools"] as? [[String: Any]])
        #expect((tools.first?["function"] as? [String: Any])?["name"] as? String == "getWeather")
        #expect(first["stream"] as? Bool == true)
        let messages = try #require(requests[1]["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["system", "user", "assistant", "tool"])
        let call = try #require((messages[2]["tool_calls"] as? [[String: Any]])?.first)
        #expect(call["id"] as? String == "call_7")
        let function = try #require(call["function"] as? [String: Any])
        #expect(function["name"] as? String == "getWeather" && function["arguments"] as? String == #"{"city":"Paris"}"#)
        #expect(messages[3]["tool_call_id"] as? String == "call_7")
        #expect((messages[3]["content"] as? String)?.contains("sunny") == true)
    }
}

/// Rolls dice: a tool whose arguments have a range.
struct DiceTool: Tool {
    let name = "rollDice"
    let description = "Rolls some dice."
    let log = RollLog()

    @Generable
    struct Arguments {
        @Guide(description: "How many dice", .range(1...5))
        var count: Int
        @Guide(description: "Sides per die")
        var sides: Int?
    }

    func call(arguments: Arguments) async throws -> String {
        log.counts.withLock { $0.append(arguments.count) }
        return "rolled \(arguments.count)"
    }
}

/// The counts `DiceTool` was called with, shared by its copies.
final class RollLog: Sendable {
    let counts = Mutex<[Int]>([])
}
