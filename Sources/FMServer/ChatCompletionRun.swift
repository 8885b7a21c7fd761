import FMEngine
import HTTPTypes
import FoundationModels

/// What a chat completion produces, in order: text, tool calls, and the token counts at the end.
enum ChatCompletionEvent: Sendable {
    /// More response text.
    case text(String)
    /// A complete tool call, with its arguments as JSON text.
    case toolCall(id: String, name: String, arguments: String)
    /// Token counts.
    case usage(prompt: Int, cached: Int, completion: Int)
    /// Why the answer ended, as the executor reported it: `stop` or `length`.
    case finish(reason: String)
    /// The answer's tokens with their log-probabilities, when the request asked for them.
    case logprobs([TokenLogprob])
}

extension ChatCompletionEvent {
    /// The event for the `copy`-th repeat of a greedy answer: the same, but for a tool call's id, which each
    /// answer's calls have of their own (a client may keep calls of several answers apart by id).
    func copy(_ copy: Int) -> Self {
        guard copy > 0, case .toolCall(let id, let name, let arguments) = self else { return self }
        return .toolCall(id: "\(id)_\(copy)", name: name, arguments: arguments)
    }
}

/// Runs a chat completion's answers on the executor and translates their channel events into ``ChatCompletionEvent``s.
enum ChatCompletionRun {
    /// The events of `request`'s answers, each with the index of its answer, produced as the executor works (the
    /// answers together, so the engine decodes them in one batch; greedy answers are decoded once and repeated). Cancelling the consumer cancels the generation;
    /// a generation still running at `deadline` is cancelled and ends the stream with a 504 ``APIError``, and an answer
    /// that fails ends it with that answer's error. `calibrationProgress` is told how far a calibration of choices
    /// the request computes has got. `whenDone` runs once the generation has stopped (finished, failed or
    /// cancelled), however far the consumer has read: a streamed answer is buffered, so a client that reads slowly
    /// does not hold on to what the generation needed.
    static func events(for request: ChatCompletionRequest, backend: ModelBackend, deadline: RequestDeadline,
                       calibrationProgress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil,
                       whenDone: (@Sendable () -> Void)? = nil)
        -> AsyncThrowingStream<(choice: Int, event: ChatCompletionEvent), any Error> {
        let (stream, continuation) = AsyncThrowingStream<(choice: Int, event: ChatCompletionEvent), any Error>.makeStream()
        let task = Task {
            defer { whenDone?() }
            do {
                try await CalibrationSample.$progress.withValue(calibrationProgress.map(CalibrationSample.Progress.init)) {
                    try await withDeadline(deadline) {
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            // A greedy request decodes once, and every answer is that one.
                            let copies = request.decodedChoiceCount == 1 ? request.choiceCount : 1
                            for choice in 0..<request.decodedChoiceCount {
                                group.addTask {
                                    try await produce(request.generation(choice: choice), backend: backend) { event in
                                        for copy in 0..<copies { continuation.yield((choice + copy, event.copy(copy))) }
                                    }
                                }
                            }
                            try await group.waitForAll()
                        }
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: apiError(for: error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Runs `body`, cancelling it and throwing the deadline's 504 when it is still running at `deadline`.
    private static func withDeadline(_ deadline: RequestDeadline, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await body(); return true }
            group.addTask { try await Task.sleep(until: deadline.instant, clock: .continuous); return false }
            let finished = try await group.next() ?? false
            group.cancelAll()
            if !finished { throw deadline.error }
        }
    }

    private static func produce(
        _ request: LanguageModelExecutorGenerationRequest, backend: ModelBackend,
        yield: @Sendable (ChatCompletionEvent) -> Void
    ) async throws {
        var calls: [(id: String, name: String, arguments: String)] = []
        var written = ""
        var writtenTokens = 0
        try checkEarlierInput(request, guardrails: backend.systemModel?.guardrails)
        do {
            try await respond(request, backend: backend, calls: &calls, written: &written, writtenTokens: &writtenTokens, yield: yield)
        } catch LanguageModelError.contextSizeExceeded(let info) where !written.isEmpty && request.schema == nil {
            // A text answer that ran into the end of the window is cut there, as OpenAI and llama-server answer
            // (finish_reason length), rather than lost behind an error about a prompt that did fit. The response
            // check a finished answer gets runs here, since the engine stopped before it.
            if let reason = backend.systemModel?.guardrails.violation(in: written, source: .response, isStringRequest: true) {
                throw LanguageModelError.guardrailViolation(.init(debugDescription: "The response was blocked by the guardrails (\(reason))."))
            }
            // The engine stopped before it reported usage: the window is full, and the answer holds what was written.
            yield(.usage(prompt: max(0, info.contextSize - writtenTokens), cached: 0, completion: writtenTokens))
            yield(.finish(reason: "length"))
            return
        }
        for call in calls { yield(.toolCall(id: Self.chatID(ofCall: call.id), name: call.name, arguments: call.arguments)) }
    }

    /// A tool call's id as OpenAI writes one, `call_` and letters and digits, from the transcript's id (a UUID):
    /// clients may keep calls apart or check them by that prefix. (A repeated greedy answer's calls add `_1`,
    /// `_2`, …, ``ChatCompletionEvent/copy(_:)``.)
    static func chatID(ofCall id: String) -> String {
        "call_" + id.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// The guardrails on what a session would have checked turn by turn: a request carries its whole history, so
    /// earlier user turns and their tool outputs are input like the last prompt (which the executor checks, with
    /// the tool outputs after it), and earlier assistant messages are responses, which a session checked as they
    /// were written; here the client writes them, and one could put an answer the model must not give there for
    /// it to go on with. System messages are instructions, which a session does not check either.
    private static func checkEarlierInput(_ request: LanguageModelExecutorGenerationRequest, guardrails: SystemLanguageModel.Guardrails?) throws {
        guard let guardrails, !guardrails.checkers.isEmpty else { return }
        let isStringRequest = request.schema == nil
        let entries = Array(request.transcript)
        let lastPrompt = entries.lastIndex { if case .prompt = $0 { true } else { false } } ?? entries.endIndex
        for entry in entries[..<lastPrompt] {
            let (text, source, what): (String, GuardrailSource, String)
            switch entry {
            case .prompt(let prompt): (text, source, what) = (prompt.segments.modelText, .prompt, "An earlier user message")
            case .toolOutput(let output): (text, source, what) = (output.segments.modelText, .toolOutput, "The output of the tool \(output.toolName)")
            case .response(let response): (text, source, what) = (response.segments.modelText, .response, "An earlier assistant message")
            default: continue
            }
            if let reason = guardrails.violation(in: text, source: source, isStringRequest: isStringRequest) {
                throw LanguageModelError.guardrailViolation(.init(debugDescription: "\(what) was blocked by the guardrails (\(reason))."))
            }
        }
    }

    private static func respond(
        _ request: LanguageModelExecutorGenerationRequest, backend: ModelBackend,
        calls: inout [(id: String, name: String, arguments: String)], written: inout String, writtenTokens: inout Int,
        yield: @Sendable (ChatCompletionEvent) -> Void
    ) async throws {
        // A generation the engine started over (sent back for lack of cache space) sends its text again as a
        // replacement when it writes something else than before; a chat completion cannot take text back.
        var restartedDifferently = false
        try await backend.respond(to: request) { event in
            if let response = event as? LanguageModelExecutorGenerationChannel.Response {
                switch response.action {
                case .appendText(let fragment):
                    guard !restartedDifferently else { break }
                    written += fragment.content
                    writtenTokens += fragment.tokenCount
                    yield(.text(fragment.content))
                case .replaceTextSegment(let segment):
                    guard !restartedDifferently else { break }
                    guard segment.content.unicodeScalars.starts(with: written.unicodeScalars) else {
                        restartedDifferently = true
                        break
                    }
                    let added = String(String.UnicodeScalarView(segment.content.unicodeScalars.dropFirst(written.unicodeScalars.count)))
                    written = segment.content
                    writtenTokens = segment.tokenCount
                    if !added.isEmpty { yield(.text(added)) }
                case .updateUsage(let usage):
                    yield(Self.usage(usage))
                case .updateMetadata(let metadata):
                    if let reason = metadata.values[Transcript.Response.finishReasonKey] as? String { yield(.finish(reason: reason)) }
                    if let logprobs = metadata.values[Transcript.Response.tokenLogprobsKey] as? [TokenLogprob] { yield(.logprobs(logprobs)) }
                // The on-device executor sends no segments of these kinds; they have no chat form.
                case .updateCustomSegment, .addAttachmentSegment, .removeAttachmentSegment:
                    break
                }
            } else if let toolCalls = event as? LanguageModelExecutorGenerationChannel.ToolCalls {
                switch toolCalls.action {
                case .toolCall(let call):
                    guard case .appendArguments(let fragment) = call.action else { break }
                    if let index = calls.firstIndex(where: { $0.id == call.id }) {
                        calls[index].arguments += fragment.content
                    } else {
                        calls.append((call.id, call.name, fragment.content))
                    }
                case .updateUsage(let usage):
                    yield(Self.usage(usage))
                case .removeToolCall(let id):
                    calls.removeAll { $0.id == id }
                case .updateMetadata:
                    break
                }
            }
        }
        if restartedDifferently {
            throw APIError(.serviceUnavailable, type: "server_error", code: "generation_restarted",
                           "The server ran out of cache space, started the response over, and it came out different from the part already sent. Send the request again.")
        }
    }

    private static func usage(_ usage: LanguageModelExecutorGenerationChannel.Usage) -> ChatCompletionEvent {
        .usage(prompt: usage.input.totalTokenCount, cached: usage.input.cachedTokenCount, completion: usage.output.totalTokenCount)
    }

    /// The API error for what the executor threw.
    static func apiError(for error: any Error) -> APIError {
        if let error = error as? APIError { return error }
        // The server cancels a request when its connection's input ends or breaks: a client that hung up (and
        // reads nothing), closed its sending side early, or sent bytes that are not HTTP after the request. A
        // retry of the same exchange would end the same way, so this is no 503 with a `Retry-After`.
        if error is CancellationError {
            return APIError(.badRequest, code: "cancelled",
                            "The request was cancelled: the connection's input closed, or held bytes that are not HTTP, before the answer was ready. Keep the connection open, and send nothing after the request, until the answer arrives.")
        }
        if let error = error as? LanguageModelError {
            switch error {
            case .contextSizeExceeded:
                return APIError(.badRequest, code: "context_length_exceeded", param: "messages", error.debugDescription)
            case .guardrailViolation, .refusal:
                return APIError(.badRequest, code: "content_filter", error.debugDescription)
            case .unsupportedGenerationGuide:
                return APIError(.badRequest, code: "unsupported_schema", param: "response_format", error.debugDescription)
            case .unsupportedCapability, .unsupportedTranscriptContent, .unsupportedLanguageOrLocale:
                return APIError(.badRequest, code: "unsupported_content", error.debugDescription)
            case .rateLimited:
                return APIError(.tooManyRequests, type: "rate_limit_error", code: "rate_limited", error.debugDescription)
            case .timeout:
                return APIError(.gatewayTimeout, type: "timeout_error", code: "timeout", error.debugDescription)
            }
        }
        if let error = error as? GeneratedContent.ParsingError {
            // Guided output (or a tool call) that reached the token limit before the value closed is the request's
            // limit, not a fault.
            switch error.underlyingError as? ResponseLimit {
            case .maximumResponseTokens:
                return APIError(.badRequest, code: "max_tokens_reached", param: "max_tokens",
                                "The response reached max_tokens before the JSON value (or tool call) was complete; raise max_tokens.")
            case .contextWindow:
                return APIError(.badRequest, code: "context_length_exceeded", param: "messages",
                                "The response reached the end of the context window before the JSON value was complete; shorten the messages or lower max_tokens.")
            case nil:
                break
            }
            return APIError(.internalServerError, type: "server_error", code: "generation_failed", error.debugDescription)
        }
        if let error = error as? SystemLanguageModel.Error {
            return APIError(.serviceUnavailable, type: "server_error", code: "model_unavailable", "\(error)")
        }
        return APIError(.internalServerError, type: "server_error", code: "internal_error", "\(error)")
    }
}
