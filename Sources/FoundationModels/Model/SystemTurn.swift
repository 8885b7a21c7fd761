import FMDecoding
import FMEngine
import FMLlama
import Foundation
import Synchronization

/// One request to the on-device model, translated for the engine: the rendered conversation, the grammar the
/// response follows, and how the engine's output becomes channel events.
struct SystemTurn: Sendable {
    /// What the model writes.
    enum Kind: Sendable {
        /// Free text.
        case text
        /// Content tagging's answer to a text request: tags under the use case's schema, returned as text.
        case taggingText
        /// A value of the request's schema.
        case guided
        /// Tool calls or the answer (`{"response": …}` for text, the value itself for a schema).
        case tools(isText: Bool)
    }

    let request: LanguageModelExecutorGenerationRequest
    let model: SystemLanguageModel
    let contextSize: Int
    let kind: Kind
    let job: GenerationJob

    /// Checks the request and prepares its job: the guardrails on the prompt and on tool outputs since, the
    /// rendering, and the grammar (compiled off the cooperative pool).
    init(request: LanguageModelExecutorGenerationRequest, model: SystemLanguageModel, engine: Engine) async throws {
        self.request = request
        self.model = model
        self.contextSize = engine.model.contextSize
        let isStringRequest = request.schema == nil
        let entries = Array(request.transcript)
        if let attachment = entries.first(where: Self.hasAttachment) {
            throw LanguageModelError.unsupportedCapability(.init(capability: .vision, debugDescription:
                "The on-device model reads text only; the transcript holds an image attachment (entry \(attachment.id))."))
        }
        let lastPrompt = entries.lastIndex { if case .prompt = $0 { true } else { false } }
        if let lastPrompt, case .prompt(let prompt) = entries[lastPrompt] {
            let text = prompt.segments.modelText
            if let reason = model.guardrails.violation(in: text, source: .prompt, isStringRequest: isStringRequest) {
                throw LanguageModelError.guardrailViolation(.init(debugDescription: "The prompt was blocked by the guardrails (\(reason))."))
            }
            for case .toolOutput(let output) in entries[(lastPrompt + 1)...] {
                let text = output.segments.modelText
                if let reason = model.guardrails.violation(in: text, source: .toolOutput, isStringRequest: isStringRequest) {
                    throw LanguageModelError.guardrailViolation(.init(debugDescription:
                        "The output of the tool \(output.toolName) was blocked by the guardrails (\(reason))."))
                }
            }
        }

        let tools = request.enabledToolDefinitions
        let mode = request.generationOptions.toolCallingMode?.kind ?? .allowed
        let decodingSchema: GenerationSchema?
        if !tools.isEmpty {
            kind = .tools(isText: isStringRequest)
            decodingSchema = ToolTurnSchema.schema(tools: mode == .disallowed ? [] : tools, answer: request.schema,
                                                   callsRequired: mode == .required,
                                                   maximumCalls: request.allowsParallelToolCalls ? ToolTurnSchema.maximumCallsPerRound : 1)
        } else if let schema = request.schema {
            kind = .guided
            decodingSchema = schema
        } else if let tagging = UseCasePrompting.textSchema(for: model.useCase) {
            kind = .taggingText
            decodingSchema = tagging
        } else {
            kind = .text
            decodingSchema = nil
        }
        var constraint: TokenConstraint?
        if let decodingSchema {
            do {
                let document = try UseCasePrompting.decodingDocument(for: decodingSchema, useCase: model.useCase)
                constraint = try await engine.constraint(for: document)
            } catch {
                throw LanguageModelError.unsupportedGenerationGuide(.init(schemaName: request.schema?.root.typeName, debugDescription: "\(error)"))
            }
        }
        let renderer = ConversationRenderer(model: model, tools: tools, callsAllowed: mode != .disallowed)
        var job = GenerationJob(
            messages: renderer.messages(for: request.transcript),
            sampling: Self.sampling(for: request.generationOptions, useCase: model.useCase),
            maximumTokens: request.generationOptions.maximumResponseTokens,
            constraint: constraint
        )
        job.promptSuffix = renderer.promptSuffix(for: request.transcript)
        job.promptPrefix = renderer.promptPrefix(for: request.transcript)
        job.recordsMargins = EngineStatistics.current?.recordsMargins ?? false
        job.votes = ChoiceVotes.current
        let stops = StopSequences(request.stopSequences)
        if case .text = kind {
            job.stopSequences = stops
            job.logprobAlternatives = request.logprobAlternatives
        } else if !stops.isEmpty {
            throw LanguageModelError.unsupportedGenerationGuide(.init(schemaName: request.schema?.root.typeName, debugDescription:
                "Stop sequences end text responses only; cutting a response that follows a schema would break its value."))
        } else if request.logprobAlternatives != nil {
            throw LanguageModelError.unsupportedGenerationGuide(.init(schemaName: request.schema?.root.typeName, debugDescription:
                "Log-probabilities are reported for text responses only; the grammar forces part of a structured response's tokens."))
        }
        // Whole-value choice scoring for direct answers; tool turns decode token by token.
        if case .tools = kind {} else { job.choicePoints = constraint.flatMap { engine.model.choicePoints(for: $0) } }
        self.job = job
    }

    private static func hasAttachment(_ entry: Transcript.Entry) -> Bool {
        let segments: [Transcript.Segment] = switch entry {
        case .instructions(let e): e.segments
        case .prompt(let e): e.segments
        case .toolOutput(let e): e.segments
        case .response(let e): e.segments
        case .reasoning(let e): e.segments
        case .toolCalls: []
        }
        return segments.contains { if case .attachment = $0 { true } else { false } }
    }

    /// Maps options onto the runtime's sampler: greedy stays greedy, `nil` picks the use case's default.
    /// A temperature of 0 (or below, which acts as 0) leaves no randomness in any mode, so it is greedy too, with
    /// greedy's whole-value choices, as it is on `fm serve` and on OpenAI-compatible servers.
    static func sampling(for options: GenerationOptions, useCase: SystemLanguageModel.UseCase) -> SamplingParameters {
        let temperature = max(0, options.temperature ?? 0.7)
        if temperature == 0 { return .greedy }
        switch options.samplingMode?.kind {
        case .greedy:
            return .greedy
        case .top(let k, let seed):
            return SamplingParameters(strategy: .topK(max(1, k)), temperature: temperature, seed: seed)
        case .nucleus(let threshold, let seed):
            return SamplingParameters(strategy: .nucleus(min(max(threshold, 0), 1)), temperature: temperature, seed: seed)
        case nil:
            if useCase == .contentTagging { return .greedy }
            return SamplingParameters(strategy: .nucleus(GenerationOptions.SamplingMode.defaultProbabilityThreshold), temperature: temperature)
        }
    }

    // MARK: Streaming

    /// Streams the response text to the channel as the engine's output grows.
    func reporter(_ channel: LanguageModelExecutorGenerationChannel) -> TextReporter {
        let guardrails = model.guardrails
        let isStringRequest = request.schema == nil
        // Free text is checked as it streams, since it can run to any length; a structured value is short, and a
        // blocked one is refused when it is complete.
        let isText = switch kind { case .text, .tools(isText: true): true; default: false }
        let checked = isText && !guardrails.checkers.isEmpty && !(isStringRequest && guardrails.permitsStringTransformations)
        var blocks: (@Sendable (String) -> String?)?
        if checked {
            blocks = { @Sendable text in guardrails.violation(in: text, source: .response, isStringRequest: isStringRequest) }
        }
        return TextReporter(channel: channel, text: { bytes in
            let complete = bytes[..<UTF8Accumulator.completePrefixLength(bytes)]
            switch kind {
            case .text, .guided:
                return String(decoding: complete, as: UTF8.self)
            case .taggingText:
                guard !complete.isEmpty, let partial = try? GeneratedContent(json: String(decoding: complete, as: UTF8.self)) else { return nil }
                return UseCasePrompting.renderText(partial, useCase: model.useCase)
            case .tools(let isText):
                guard !complete.isEmpty, let partial = try? GeneratedContent(json: String(decoding: complete, as: UTF8.self)) else { return nil }
                if isText { return ToolTurnSchema.partialText(in: partial) }
                // A value answer is the output itself, once it cannot be tool calls any more.
                if case .structure(_, let keys) = partial.kind, keys.isEmpty || keys.first == ToolTurnSchema.toolCallsKey { return nil }
                return String(decoding: complete, as: UTF8.self)
            }
        }, blocks: blocks)
    }

    // MARK: Completion

    /// Sends what the stream has not carried yet — the rest of the text, or the tool calls — then checks the
    /// response against the guardrails and reports usage and the asset identifiers.
    func finish(_ outcome: GenerationOutcome, reporter: TextReporter, channel: LanguageModelExecutorGenerationChannel) throws {
        let tokens = outcome.sampledTokens + outcome.forcedTokens
        let isStringRequest = request.schema == nil
        var answer: String
        switch kind {
        case .text:
            answer = outcome.text
        case .guided:
            try Self.requireComplete(outcome, request: request)
            answer = outcome.text
        case .taggingText:
            let parsed = try? GeneratedContent(json: outcome.text)
            if let parsed, parsed.isComplete {
                answer = UseCasePrompting.renderText(parsed, useCase: model.useCase)
            } else if outcome.stop == .maximumTokens {
                // A text answer cut short by maximumResponseTokens ends early, as text responses do: the tags so far.
                answer = parsed.map { UseCasePrompting.renderText($0, useCase: model.useCase) } ?? ""
            } else {
                throw GeneratedContent.ParsingError(rawContent: outcome.text, debugDescription: "The model's output is not a complete value: \(outcome.text)")
            }
        case .tools(let isText):
            // A text answer cut short by maximumResponseTokens ends early, as text responses do without tools; a
            // limit that ends the hidden wrapper before its answer began leaves an empty one, not an error. Tool
            // calls cut short are malformed, as is a turn that could only be calls: a required call never becomes
            // an empty answer.
            if isText, outcome.stop == .maximumTokens,
               let text = ToolTurnSchema.textCutShort(outcome.text, callsRequired: request.generationOptions.toolCallingMode?.kind == .required) {
                answer = text
                break
            }
            try Self.requireComplete(outcome, request: request)
            guard let parsed = try? GeneratedContent(json: outcome.text),
                  let choice = ToolTurnSchema.choice(in: parsed, isText: isText, toolsAllowed: request.generationOptions.toolCallingMode != .disallowed)
            else {
                throw GeneratedContent.ParsingError(rawContent: outcome.text, debugDescription:
                    "The model's output is neither tool calls nor an answer: \(outcome.text)")
            }
            switch choice {
            case .calls(let calls):
                // Arguments are the model's output as an answer is: a tool would act on what the checks block there.
                for call in calls {
                    if let reason = model.guardrails.violation(in: call.arguments.jsonString, source: .response, isStringRequest: false) {
                        throw LanguageModelError.guardrailViolation(.init(
                            debugDescription: "The call of the tool \(call.toolName) was blocked by the guardrails (\(reason))."))
                    }
                }
                for call in calls {
                    channel.yield(.toolCalls(action: .toolCall(
                        id: call.id, name: call.toolName,
                        action: .appendArguments(call.arguments.compactJSONString, tokenCount: tokens / max(1, calls.count)))))
                }
                report(outcome, channel: channel)
                return
            case .answer(let content):
                answer = isText ? content.jsonStringOrText : outcome.text
            }
        }
        if let reason = model.guardrails.violation(in: answer, source: .response, isStringRequest: isStringRequest) {
            let description = "The response was blocked by the guardrails (\(reason))."
            if isStringRequest { throw LanguageModelError.guardrailViolation(.init(debugDescription: description)) }
            // Guided generation has no room for a refusal message: the refusal explains itself on request.
            throw LanguageModelError.refusal(.init(debugDescription: description))
        }
        reporter.send(answer, tokens: tokens)
        report(outcome, channel: channel)
    }

    private func report(_ outcome: GenerationOutcome, channel: LanguageModelExecutorGenerationChannel) {
        // "length" only when the token limit ended the response: a stop string met on the last allowed token ends
        // it as the model's own end does.
        var metadata: [String: any Sendable & Codable & Equatable] = [
            "assetIDs": model.assetIDs, Transcript.Response.finishReasonKey: outcome.stop == .maximumTokens ? "length" : "stop",
        ]
        if job.logprobAlternatives != nil { metadata[Transcript.Response.tokenLogprobsKey] = outcome.logprobs }
        channel.yield(.response(action: .updateMetadata(metadata)))
        channel.yield(.response(action: .updateUsage(
            input: .init(totalTokenCount: outcome.promptTokens, cachedTokenCount: outcome.reusedTokens),
            output: .init(totalTokenCount: outcome.sampledTokens + outcome.forcedTokens, reasoningTokenCount: 0))))
        EngineStatistics.current?.record(GenerationStatistics(
            promptTokens: outcome.promptTokens, reusedTokens: outcome.reusedTokens,
            sampledTokens: outcome.sampledTokens, forcedTokens: outcome.forcedTokens,
            prefillSeconds: outcome.prefillSeconds, decodeSeconds: outcome.decodeSeconds, margins: outcome.margins))
    }

    /// Throws a parsing error when guided output stopped at `maximumResponseTokens`.
    private static func requireComplete(_ outcome: GenerationOutcome, request: LanguageModelExecutorGenerationRequest) throws {
        if outcome.stop == .maximumTokens {
            throw GeneratedContent.ParsingError(rawContent: outcome.text, underlyingError: ResponseLimit.maximumResponseTokens, debugDescription:
                "The response reached maximumResponseTokens (\(request.generationOptions.maximumResponseTokens ?? 0)) before the value was complete: \(outcome.text)")
        }
    }

    /// The public error for an engine failure, once what the stream held back is settled: a text answer cut by
    /// the end of the window sends its last words when the check passes them, and one the check blocked fails as
    /// the finished answer would.
    func error(for failure: GenerationFailure, reporter: TextReporter) -> any Error {
        if failure.isAtContextEnd, let reason = reporter.releaseHeldText() {
            return LanguageModelError.guardrailViolation(.init(debugDescription: "The response was blocked by the guardrails (\(reason))."))
        }
        return error(for: failure)
    }

    /// The public error for an engine failure.
    func error(for failure: GenerationFailure) -> any Error {
        switch failure {
        case .promptOverflow(let tokenCount):
            LanguageModelError.contextSizeExceeded(.init(contextSize: contextSize, tokenCount: tokenCount, debugDescription:
                "The conversation as the model reads it (instructions, tools, response format, earlier turns and this prompt) needs \(tokenCount) tokens, which leaves no room for a response in the \(contextSize)-token context window."))
        case .contextOverflow(let message):
            LanguageModelError.contextSizeExceeded(.init(contextSize: contextSize, tokenCount: contextSize, debugDescription: message))
        case .truncated(let message, let atContextEnd):
            // A text answer written under a grammar (tool calling, content tagging) that runs into the window's
            // end fails as a text answer without one does; a guided value cut off there is malformed.
            if atContextEnd, request.schema == nil {
                LanguageModelError.contextSizeExceeded(.init(contextSize: contextSize, tokenCount: contextSize, debugDescription: message))
            } else {
                GeneratedContent.ParsingError(
                    rawContent: "", underlyingError: atContextEnd ? ResponseLimit.contextWindow : nil, debugDescription: message)
            }
        case .runtime(let message):
            GeneratedContent.ParsingError(rawContent: "", debugDescription: message)
        case .cancelled:
            CancellationError()
        }
    }
}
