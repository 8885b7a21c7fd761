import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a session's requests to an OpenAI-compatible `/v1/chat/completions` endpoint and streams the answers
/// back: the executor of ``ChatCompletionsLanguageModel``.
///
/// Each request renders the transcript as chat messages, offers the enabled tools, and asks for a server-sent
/// event stream with usage. Text reaches the channel as it arrives; tool calls are sent once the stream ends.
/// A structured answer is checked against the request's schema before the executor returns.
public struct ChatCompletionsExecutor: LanguageModelExecutor {
    /// The model type this executor serves.
    public typealias Model = ChatCompletionsLanguageModel

    /// The server this executor talks to.
    public let configuration: ChatCompletionsConfiguration

    /// Creates an executor; nothing is sent until the first request.
    public init(configuration: ChatCompletionsConfiguration) {
        self.configuration = configuration
    }

    /// Sends `request` and streams the server's answer into `channel`.
    ///
    /// Requests the server turns away with 429 or 503 are sent again after the policy's backoff (or the server's
    /// `Retry-After`). Cancelling the calling task cancels the HTTP request.
    ///
    /// - Throws: ``ChatCompletionsError`` when the server cannot be reached, answers an HTTP error, or sends
    ///   something other than a complete chat completion; ``LanguageModelError/rateLimited(_:)`` when 429s
    ///   outlast the retries; ``LanguageModelError/timeout(_:)``; ``LanguageModelError/contextSizeExceeded(_:)``
    ///   when the server says the prompt does not fit, or a text answer ran into the end of its context;
    ///   ``LanguageModelError/guardrailViolation(_:)`` (text) or ``LanguageModelError/refusal(_:)`` (a schema)
    ///   when the server's content filter stopped the answer; ``GeneratedContent/ParsingError`` when a structured
    ///   answer or a call's arguments do not follow their schema or were cut short (then with the limit as its
    ///   underlying error); ``LanguageModelError/unsupportedGenerationGuide(_:)``, before anything is sent, when
    ///   the schema or a tool's parameters use a guide that cannot be checked; `CancellationError`.
    public nonisolated(nonsending) func respond(
        to request: LanguageModelExecutorGenerationRequest,
        model: ChatCompletionsLanguageModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        // Compiled before sending: a schema that cannot be checked fails without a round trip, as local generation
        // refuses it. The same holds for the parameters of tools the model may call, which the calls' arguments are
        // checked against (with tool calling disallowed, local generation leaves the tools out, and so does this).
        let validator = try request.schema.map(StructuredOutputValidator.init)
        var toolValidators: [String: StructuredOutputValidator] = [:]
        if request.generationOptions.toolCallingMode != .disallowed {
            for definition in request.enabledToolDefinitions where toolValidators[definition.name] == nil {
                toolValidators[definition.name] = try StructuredOutputValidator(schema: definition.parameters)
            }
        }
        let body = try ChatCompletionsRequest(
            model: configuration.model, request: request, sendsResponseFormat: model.enforcesSchemas).body
        let urlRequest = try makeURLRequest(body: body)
        let isStringRequest = request.schema == nil
        let eventLimit = Self.eventLimit(maximumTokens: request.generationOptions.maximumResponseTokens)
        var retries = 0
        while true {
            let outcome = try await send(urlRequest, isStringRequest: isStringRequest, eventLimit: eventLimit, channel: channel)
            switch outcome {
            case .completed(let state):
                try await finish(state, request: request, validator: validator, toolValidators: toolValidators, channel: channel)
                return
            case .turnedAway(let status, let retryAfter, let message):
                guard retries < configuration.retryPolicy.maximumRetries else {
                    if status == 429 {
                        throw LanguageModelError.rateLimited(.init(
                            resetDate: retryAfter.map { Date().addingTimeInterval($0) },
                            debugDescription: "The server answered HTTP 429 after \(retries) retries: \(message)"))
                    }
                    throw ChatCompletionsError.httpError(status: status, message: message)
                }
                retries += 1
                let delay = configuration.retryPolicy.delay(beforeRetry: retries, retryAfter: retryAfter)
                try await Task.sleep(for: .seconds(delay))
            }
        }
    }

    /// How one attempt ended.
    private enum Outcome {
        /// The stream ended normally.
        case completed(ChatCompletionsStreamState)
        /// The server answered 429 or 503: try again later.
        case turnedAway(status: Int, retryAfter: TimeInterval?, message: String)
    }

    private func makeURLRequest(body: Data) throws -> URLRequest {
        var request = URLRequest(url: configuration.chatCompletionsURL)
        request.httpMethod = "POST"
        request.httpBody = body
        request.timeoutInterval = configuration.requestTimeout
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        if let name = configuration.apiKeyEnvironmentVariable {
            guard let key = ProcessInfo.processInfo.environment[name], !key.isEmpty else {
                throw ChatCompletionsError.missingAPIKey(environmentVariable: name)
            }
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        }
        return request
    }

    /// Sends one attempt and reads its answer, passing text and reasoning on as they arrive.
    ///
    /// The answer is complete once the server sent `[DONE]` or a `finish_reason`; a stream that ends before
    /// either was cut short, however its connection ended.
    private func send(
        _ request: URLRequest, isStringRequest: Bool, eventLimit: Int, channel: LanguageModelExecutorGenerationChannel
    ) async throws -> Outcome {
        let stream = startHTTPRequest(request, requestTimeout: configuration.requestTimeout, resourceTimeout: configuration.resourceTimeout)
        var head: HTTPURLResponse?
        var errorBody = Data()
        var wholeBody = Data()
        var parser = ServerSentEventParser()
        var state = ChatCompletionsStreamState(isStringRequest: isStringRequest)
        var sawEvents = false
        var eventCount = 0
        var bodyBytes = 0
        let byteLimit = Self.byteLimit(eventLimit: eventLimit)
        var sawDone = false
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            // Left at `[DONE]`: a proxy may keep the connection open after it, and the answer is complete.
            reading: for try await event in stream {
                switch event {
                case .head(let response):
                    head = response
                case .body(let data):
                    guard let head, (200..<300).contains(head.statusCode) else {
                        // An error page is only read for its message: keep the first megabyte.
                        if errorBody.count < 1 << 20 { errorBody.append(data.prefix((1 << 20) - errorBody.count)) }
                        continue
                    }
                    // Events count only once they end: a line that never does (or a whole body without events)
                    // would grow in memory until the resource timeout.
                    bodyBytes += data.count
                    if bodyBytes > byteLimit {
                        throw ChatCompletionsError.invalidResponse("The server sent more than \(byteLimit) bytes without finishing the answer.")
                    }
                    let events = parser.feed(data)
                    // Replaced bytes would pass for the model's text; the whole-JSON path refuses them too.
                    if parser.sawInvalidUTF8 { throw ChatCompletionsError.invalidResponse("The event stream is not valid UTF-8.") }
                    eventCount += events.count
                    // A server that streams on past `max_tokens` would be read, and its text kept, until the
                    // resource timeout: minutes, and memory without bound.
                    if eventCount > eventLimit {
                        throw ChatCompletionsError.invalidResponse("The server sent more than \(eventLimit) events without finishing the answer.")
                    }
                    for serverEvent in events {
                        sawEvents = true
                        if try await handle(serverEvent, state: &state, decoder: decoder, channel: channel) {
                            sawDone = true
                            break reading
                        }
                    }
                    // Kept in case the server ignored `stream` and sent one JSON completion.
                    if !sawEvents, wholeBody.count < 16 << 20 { wholeBody.append(data) }
                }
            }
        } catch {
            throw Self.mapped(error, endpoint: configuration.endpoint, timeout: configuration.requestTimeout)
        }
        // A cancelled reader sees the stream end early; that is not a complete answer.
        try Task.checkCancellation()
        guard let head else {
            throw ChatCompletionsError.invalidResponse("The connection closed before a response arrived.")
        }
        guard (200..<300).contains(head.statusCode) else {
            return try Self.failure(status: head.statusCode, head: head, body: errorBody, isStringRequest: isStringRequest)
        }
        if !sawDone {
            let events = parser.finish()
            if parser.sawInvalidUTF8 { throw ChatCompletionsError.invalidResponse("The event stream is not valid UTF-8.") }
            for serverEvent in events {
                sawEvents = true
                if try await handle(serverEvent, state: &state, decoder: decoder, channel: channel) {
                    sawDone = true
                    break
                }
            }
        }
        if !sawEvents {
            guard let chunk = try? decoder.decode(ChatCompletionsChunk.self, from: wholeBody) else {
                throw ChatCompletionsError.invalidResponse(
                    "Neither an event stream nor a completion: \(String(decoding: wholeBody.prefix(500), as: UTF8.self))")
            }
            let outputs = try state.apply(chunk)
            // A whole completion always says how it ended; one without a finish_reason was cut short.
            guard state.finishReason != nil else {
                throw ChatCompletionsError.invalidResponse("The completion has no finish_reason: the server did not finish the answer.")
            }
            await pass(outputs, channel: channel)
        } else if !sawDone, state.finishReason == nil {
            // The body ended (a closed connection can end it validly) before the server said the answer was done.
            throw ChatCompletionsError.invalidResponse("The stream ended before the server finished the answer.")
        } else if !state.sawChoice {
            // `[DONE]` with nothing before it: the server's failure, not an empty answer of the model.
            throw ChatCompletionsError.invalidResponse("The stream ended without any part of an answer.")
        }
        return .completed(state)
    }

    /// Takes in one event; returns whether it is `[DONE]`, the end of the answer.
    private func handle(
        _ event: ServerSentEvent, state: inout ChatCompletionsStreamState, decoder: JSONDecoder,
        channel: LanguageModelExecutorGenerationChannel
    ) async throws -> Bool {
        let data = event.data.trimmingCharacters(in: .whitespaces)
        if data == "[DONE]" { return true }
        if data.isEmpty { return false }
        let chunk: ChatCompletionsChunk
        do {
            chunk = try decoder.decode(ChatCompletionsChunk.self, from: Data(data.utf8))
        } catch {
            throw ChatCompletionsError.invalidResponse("An event is not a completion chunk (\(error)): \(data.prefix(500))")
        }
        let outputs = try state.apply(chunk)
        await pass(outputs, channel: channel)
        return false
    }

    private func pass(_ outputs: [ChatCompletionsStreamState.Output], channel: LanguageModelExecutorGenerationChannel) async {
        for output in outputs {
            switch output {
            // One chunk is about one token on the servers we know; the usage report corrects the total.
            case .text(let text): await channel.send(.response(action: .appendText(text, tokenCount: 1)))
            case .reasoning(let text): await channel.send(.reasoning(action: .appendText(text, tokenCount: 1)))
            }
        }
    }

    /// Sends the tool calls or checks the structured answer, then reports usage and the server's identifiers.
    ///
    /// An answer the server blocked, or cut where it cannot be used, throws first (see
    /// ``ChatCompletionsStreamState/checkEnding(maximumTokens:)``).
    private func finish(
        _ state: ChatCompletionsStreamState, request: LanguageModelExecutorGenerationRequest,
        validator: StructuredOutputValidator?, toolValidators: [String: StructuredOutputValidator],
        channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let maximumTokens = request.generationOptions.maximumResponseTokens
        try state.checkEnding(maximumTokens: maximumTokens)
        // A server's counts are taken as far as they can be counts: never negative, never near Int's end, where
        // the session's running totals would reach it.
        func count(_ value: Int?, else fallback: Int = 0) -> Int { min(max(value ?? fallback, 0), Int(Int32.max)) }
        let usage = state.usage.map { usage in
            LanguageModelExecutorGenerationChannel.Usage(
                input: .init(totalTokenCount: count(usage.promptTokens),
                             cachedTokenCount: count(usage.promptTokensDetails?.cachedTokens)),
                output: .init(totalTokenCount: count(usage.completionTokens, else: state.textChunks),
                              reasoningTokenCount: count(usage.completionTokensDetails?.reasoningTokens)))
        }
        let calls = state.namedToolCalls
        // A call that names no tool cannot be run, and an answer ended for tool calls that holds none is no answer
        // either: dropped, they would pass for a shorter or an empty reply.
        if state.toolCalls.contains(where: { $0.name.isEmpty && !$0.arguments.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) {
            throw ChatCompletionsError.invalidResponse("The server sent a tool call that names no tool.")
        }
        if calls.isEmpty, state.finishReason == "tool_calls", state.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ChatCompletionsError.invalidResponse("The server ended the answer for tool calls (finish_reason tool_calls) but sent none.")
        }
        if !calls.isEmpty {
            // Checked as a structured answer is: local generation's grammar keeps arguments to the tool's schema
            // (ranges, choices, patterns), and a server's arguments must not reach a tool that could not get them
            // here. A tool the request did not offer is left to the session, which reports it by name.
            for call in calls {
                guard let validator = toolValidators[call.name] else { continue }
                let arguments = call.arguments.trimmingCharacters(in: .whitespacesAndNewlines)
                do { _ = try validator.validate(arguments.isEmpty ? "{}" : arguments) } catch {
                    throw GeneratedContent.ParsingError(rawContent: arguments, underlyingError: error, debugDescription:
                        "The arguments of the call to \(call.name) do not follow its parameters' schema: \(arguments)")
                }
            }
            for call in calls {
                // Empty arguments mean none: checkEnding has thrown if the token limit cut them off.
                let arguments = call.arguments.trimmingCharacters(in: .whitespacesAndNewlines)
                await channel.send(.toolCalls(action: .toolCall(
                    id: call.id, name: call.name, action: .appendArguments(arguments.isEmpty ? "{}" : arguments, tokenCount: 0))))
            }
            if let usage { await channel.send(.toolCalls(action: .updateUsage(input: usage.input, output: usage.output))) }
            return
        }
        if let validator {
            // A number at the top level parses whole at any length: cut by the limit, `12` of `12345` would pass.
            if let limit = state.responseLimit(maximumTokens: maximumTokens),
               let last = state.text.trimmingCharacters(in: .whitespacesAndNewlines).last, last.isASCII, last.isNumber {
                throw GeneratedContent.ParsingError(rawContent: state.text, underlyingError: limit, debugDescription:
                    "The answer reached the token limit while writing its number: \(state.text)")
            }
            do {
                _ = try validator.validate(state.text)
            } catch {
                var error = error
                if let limit = state.responseLimit(maximumTokens: maximumTokens) {
                    // The same underlying error as local generation's, so callers can tell a limit from a fault.
                    error.underlyingError = limit
                    error.debugDescription += " (The answer reached the token limit.)"
                }
                throw error
            }
        }
        var metadata: [String: any Sendable & Codable & Equatable] = [:]
        if let model = state.model { metadata["model"] = model }
        if let id = state.completionID { metadata["completionID"] = id }
        if let reason = state.finishReason { metadata[Transcript.Response.finishReasonKey] = reason }
        if !metadata.isEmpty { await channel.send(.response(action: .updateMetadata(metadata))) }
        if let usage { await channel.send(.response(action: .updateUsage(input: usage.input, output: usage.output))) }
    }

    /// The outcome or error of an HTTP error status.
    private static func failure(status: Int, head: HTTPURLResponse, body: Data, isStringRequest: Bool) throws -> Outcome {
        // Read as a chunk, which finds both `{"error":{…}}` and vLLM's bare `{"object":"error",…}`.
        let serverError = (try? JSONDecoder.snakeCase.decode(ChatCompletionsChunk.self, from: body))?.error
        var message = serverError?.message ?? String(decoding: body.prefix(2_000), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if message.isEmpty { message = HTTPURLResponse.localizedString(forStatusCode: status) }
        if ChatCompletionsRetryPolicy.isRetryable(status: status) {
            let retryAfter = (head.value(forHTTPHeaderField: "Retry-After")).flatMap { ChatCompletionsRetryPolicy.retryAfterSeconds($0) }
            return .turnedAway(status: status, retryAfter: retryAfter, message: message)
        }
        if var serverError {
            serverError.message = message
            throw serverError.classified(status: status, isStringRequest: isStringRequest, partialText: "")
        }
        throw ChatCompletionsError.httpError(status: status, message: message)
    }

    /// The most events a stream may send before its answer is finished: a few per token of `max_tokens` (servers
    /// send a role, a usage and a finish event beside the text), or a generous bound without one.
    static func eventLimit(maximumTokens: Int?) -> Int {
        guard let maximumTokens, maximumTokens > 0 else { return 1 << 20 }
        return min(maximumTokens, 1 << 20) * 4 + 64
    }

    /// The most bytes an answer's body may take: 2 KiB for each event the stream may send, at least 4 MiB (a
    /// server's verbose last chunk can echo the prompt and settings) and at most 64 MiB.
    static func byteLimit(eventLimit: Int) -> Int {
        min(max(min(eventLimit, 1 << 20) * 2_048, 4 << 20), 64 << 20)
    }

    /// The error a caller sees for a transport failure.
    static func mapped(_ error: any Error, endpoint: URL, timeout: TimeInterval) -> any Error {
        guard let urlError = error as? URLError else { return error }
        switch urlError.code {
        case .cancelled:
            return CancellationError()
        case .timedOut:
            return LanguageModelError.timeout(.init(debugDescription:
                "The server at \(endpoint.absoluteString) sent nothing for \(timeout) seconds, or the response took longer than allowed."))
        default:
            return ChatCompletionsError.unreachable(endpoint: endpoint, reason: urlError.localizedDescription)
        }
    }
}

extension JSONDecoder {
    /// A decoder for OpenAI's snake_case JSON.
    static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
