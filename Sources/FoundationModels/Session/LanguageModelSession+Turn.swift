import FMDecoding
import FMLlama
import Foundation
import Synchronization

/// One request: the prompt, how to answer it, and the work of answering.
extension LanguageModelSession {
    struct TurnRequest: Sendable {
        var prompt: String
        var options: GenerationOptions
        var schema: GenerationSchema?
        var includeSchemaInPrompt: Bool
        /// The generated type's name, recorded as the structured segment's source.
        var sourceName: String
    }

    struct TurnResult: Sendable {
        var content: GeneratedContent
        var entries: ArraySlice<Transcript.Entry>
    }

    /// Marks the session as responding, or throws `concurrentRequests` if it already is.
    func beginTurn() throws(GenerationError) {
        let alreadyResponding = mutate([\LanguageModelSession.isResponding]) { state -> Bool in
            if state.isResponding { return true }
            state.isResponding = true
            return false
        }
        if alreadyResponding {
            throw .concurrentRequests(.init(debugDescription: "The session is already responding to a request; wait until isResponding is false."))
        }
    }

    /// Answers a request begun with ``beginTurn()``; always ends the turn. On success the prompt and response
    /// join the transcript; on failure the transcript is unchanged.
    func runTurn(_ request: TurnRequest, progress: (@Sendable (GeneratedContent) -> Void)? = nil) async throws -> TurnResult {
        do {
            let result = try await answer(request, progress: progress)
            mutate([\LanguageModelSession.isResponding]) { $0.isResponding = false }
            return result
        } catch {
            // The transcript never received this request's entries; keep them for feedback attachments.
            mutate([\LanguageModelSession.isResponding]) { state in
                state.isResponding = false
                state.rolledBackEntries.append(.prompt(Transcript.Prompt(segments: [.text(.init(content: request.prompt))], options: request.options)))
            }
            throw error
        }
    }

    /// A request checked and rendered, ready to generate.
    struct PreparedTurn {
        var loaded: LoadedModel
        var promptEntry: Transcript.Prompt
        var userText: String
        var renderer: ConversationRenderer
        var id: GenerationID
    }

    /// Validates the request, loads the model, checks the prompt against the guardrails and renders it.
    func prepare(_ request: TurnRequest) throws -> PreparedTurn {
        if let limit = request.options.maximumResponseTokens, limit <= 0 {
            throw GenerationError.decodingFailure(.init(debugDescription: "maximumResponseTokens must be positive; it is \(limit)."))
        }
        guard model.isAvailable else {
            throw GenerationError.assetsUnavailable(.init(debugDescription: model.missingModelMessage))
        }
        let loaded: LoadedModel
        do { loaded = try model.loadedModel() } catch {
            throw GenerationError.assetsUnavailable(.init(debugDescription: "The model at \(model.modelURL.path) could not be loaded: \(error)"))
        }
        let promptEntry = Transcript.Prompt(
            segments: [.text(.init(content: request.prompt))],
            options: request.options,
            responseFormat: request.schema.map { schema in
                var format = Transcript.ResponseFormat(schema: schema)
                format.name = request.sourceName  // the generated type's name, not the schema's
                return format
            }
        )
        if let reason = model.guardrails.violation(in: request.prompt, source: .prompt, isStringRequest: request.schema == nil) {
            throw GenerationError.guardrailViolation(.init(debugDescription: "The prompt was blocked by the guardrails (\(reason))."))
        }
        let renderer = ConversationRenderer(model: model, tools: tools)
        let userText = renderer.userText(for: promptEntry, includeSchema: request.includeSchemaInPrompt)
        return PreparedTurn(loaded: loaded, promptEntry: promptEntry, userText: userText, renderer: renderer, id: GenerationID())
    }

    private func answer(_ request: TurnRequest, progress: (@Sendable (GeneratedContent) -> Void)?) async throws -> TurnResult {
        let prepared = try prepare(request)
        var added: [Transcript.Entry] = [.prompt(prepared.promptEntry)]
        let messages = { (entries: [Transcript.Entry]) in
            self.messages(adding: entries, renderer: prepared.renderer, promptID: prepared.promptEntry.id,
                          userText: prepared.userText, includeSchema: request.includeSchemaInPrompt)
        }
        let content: GeneratedContent
        let outcome: GenerationOutcome
        if tools.isEmpty {
            let (job, textSchema) = try plainJob(request, messages: messages(added), on: prepared.loaded)
            let isStructured = request.schema != nil
            let onBytes = progress.map { Self.snapshotReporter(id: prepared.id, isStructured: isStructured, report: $0) }
            outcome = try await generate(job, on: prepared.loaded, progress: onBytes)
            content = try plainContent(outcome, request: request, textSchema: textSchema, id: prepared.id)
        } else {
            (content, outcome) = try await toolLoop(request, added: &added, id: prepared.id, on: prepared.loaded, progress: progress, messages: messages)
        }
        return try commit(content, outcome: outcome, request: request, prepared: prepared, added: added)
    }

    /// Checks the response against the guardrails and records the turn in the transcript.
    func commit(
        _ content: GeneratedContent, outcome: GenerationOutcome, request: TurnRequest, prepared: PreparedTurn, added: [Transcript.Entry]
    ) throws -> TurnResult {
        let isStringRequest = request.schema == nil
        if let reason = model.guardrails.violation(in: content.jsonStringOrText, source: .response, isStringRequest: isStringRequest) {
            let debugDescription = "The response was blocked by the guardrails (\(reason))."
            if isStringRequest { throw GenerationError.guardrailViolation(.init(debugDescription: debugDescription)) }
            // Guided generation has no room for a refusal message: the refusal explains itself on request.
            let history = state.withLock { Array($0.transcript) } + added
            throw GenerationError.refusal(.init(transcriptEntries: history), .init(debugDescription: debugDescription))
        }
        let segment: Transcript.Segment = request.schema != nil
            ? .structure(.init(source: request.sourceName, content: content))
            : .text(.init(content: content.jsonStringOrText))
        var added = added
        added.append(.response(Transcript.Response(assetIDs: model.assetIDs, segments: [segment])))
        let entries = mutate([\LanguageModelSession.transcript]) { state -> ArraySlice<Transcript.Entry> in
            let start = state.transcript.endIndex
            state.transcript.append(contentsOf: added)
            state.renderedPrompts[prepared.promptEntry.id] = prepared.userText
            state.statistics = GenerationStatistics(
                promptTokens: outcome.promptTokens, reusedTokens: outcome.reusedTokens,
                sampledTokens: outcome.sampledTokens, forcedTokens: outcome.forcedTokens,
                prefillSeconds: outcome.prefillSeconds, decodeSeconds: outcome.decodeSeconds)
            return state.transcript.entries[start...]
        }
        return TurnResult(content: content, entries: entries)
    }

    /// The chat messages for the session's transcript followed by this request's entries so far.
    func messages(
        adding entries: [Transcript.Entry], renderer: ConversationRenderer, promptID: String, userText: String, includeSchema: Bool
    ) -> [ChatMessage] {
        state.withLock { state in
            var transcript = state.transcript
            transcript.append(contentsOf: entries)
            var rendered = state.renderedPrompts
            rendered[promptID] = userText
            return renderer.messages(for: transcript, renderedPrompts: rendered, includeSchema: includeSchema)
        }
    }

    /// The generation job that answers the request directly (a session without tools), and the use case's
    /// own schema when it answers plain-text requests under one (content tagging does).
    func plainJob(_ request: TurnRequest, messages: [ChatMessage], on loaded: LoadedModel) throws -> (GenerationJob, GenerationSchema?) {
        let textSchema = request.schema == nil ? UseCasePrompting.textSchema(for: model.useCase) : nil
        let decodingSchema = request.schema ?? textSchema
        let constraint = try decodingSchema.map { try Self.constraint(for: $0, useCase: model.useCase, on: loaded) }
        let job = GenerationJob(
            messages: messages,
            sampling: Self.sampling(for: request.options, useCase: model.useCase),
            maximumTokens: request.options.maximumResponseTokens,
            constraint: constraint,
            choicePoints: constraint.flatMap { loaded.choicePoints(for: $0) }
        )
        return (job, textSchema)
    }

    /// The response content of a direct answer.
    func plainContent(_ outcome: GenerationOutcome, request: TurnRequest, textSchema: GenerationSchema?, id: GenerationID) throws -> GeneratedContent {
        if textSchema != nil {
            guard let parsed = try? GeneratedContent(json: outcome.text), parsed.isComplete else {
                throw GenerationError.decodingFailure(.init(debugDescription: "The model's output is not a complete value: \(outcome.text)"))
            }
            return GeneratedContent(kind: .string(UseCasePrompting.renderText(parsed, useCase: model.useCase)), id: id)
        } else if request.schema != nil {
            return try Self.completeValue(outcome, request: request, id: id)
        }
        return GeneratedContent(kind: .string(outcome.text), id: id)
    }

    /// Runs the generator, mapping its failures to the public errors.
    private func generate(_ job: GenerationJob, on loaded: LoadedModel, progress: (@Sendable ([UInt8]) -> Void)?) async throws -> GenerationOutcome {
        do {
            return try await Generator.run(job, on: loaded, progress: progress)
        } catch {
            throw Self.generationError(for: error)
        }
    }

    /// The parsed, complete value of constrained output, or `decodingFailure`.
    static func completeValue(_ outcome: GenerationOutcome, request: TurnRequest, id: GenerationID) throws -> GeneratedContent {
        if outcome.stop == .maximumTokens {
            throw GenerationError.decodingFailure(.init(debugDescription:
                "The response reached maximumResponseTokens (\(request.options.maximumResponseTokens ?? 0)) before the value was complete: \(outcome.text)"))
        }
        guard var parsed = try? GeneratedContent(json: outcome.text), parsed.isComplete else {
            throw GenerationError.decodingFailure(.init(debugDescription: "The model's output is not a complete value: \(outcome.text)"))
        }
        parsed.id = id
        return parsed
    }

    /// The most rounds of tool calls one request may make before the model must answer.
    static let maximumToolRounds = 5

    /// The tool-calling loop: each round the model either answers or calls tools (under ``ToolTurnSchema``);
    /// calls run concurrently, their outputs join the conversation, and the model goes again.
    ///
    /// A round that only repeats calls already made (same tool, same arguments) is not run again: the model is
    /// asked once more with tools taken away, so it must answer from the outputs it has. More than
    /// ``maximumToolRounds`` rounds of new calls throw `decodingFailure`.
    private func toolLoop(
        _ request: TurnRequest,
        added: inout [Transcript.Entry],
        id: GenerationID,
        on loaded: LoadedModel,
        progress: (@Sendable (GeneratedContent) -> Void)?,
        messages: ([Transcript.Entry]) -> [ChatMessage]
    ) async throws -> (GeneratedContent, GenerationOutcome) {
        let isText = request.schema == nil
        var toolsAllowed = true
        var rounds = 0
        var madeCalls: Set<String> = []
        while true {
            let schema = ToolTurnSchema.schema(tools: toolsAllowed ? tools : [], answer: request.schema)
            let job = GenerationJob(
                messages: messages(added),
                sampling: Self.sampling(for: request.options, useCase: model.useCase),
                maximumTokens: request.options.maximumResponseTokens,
                constraint: try Self.constraint(for: schema, useCase: model.useCase, on: loaded)
            )
            let onBytes = progress.map { Self.toolTurnReporter(id: id, isText: isText, report: $0) }
            let outcome = try await generate(job, on: loaded, progress: onBytes)
            // A text answer cut short by maximumResponseTokens ends early, as text responses do without tools.
            if isText, outcome.stop == .maximumTokens, let partial = try? GeneratedContent(json: outcome.text),
                let text = ToolTurnSchema.partialText(in: partial) {
                return (GeneratedContent(kind: .string(text), id: id), outcome)
            }
            let parsed = try Self.completeValue(outcome, request: request, id: id)
            guard let choice = ToolTurnSchema.choice(in: parsed, isText: isText, toolsAllowed: toolsAllowed) else {
                throw GenerationError.decodingFailure(.init(debugDescription: "The model's output is neither tool calls nor an answer: \(outcome.text)"))
            }
            switch choice {
            case .answer(var content):
                content.id = id
                return (content, outcome)
            case .calls(let calls):
                let keys = calls.map { "\($0.toolName)(\($0.arguments.jsonString))" }
                if keys.allSatisfy(madeCalls.contains) {
                    toolsAllowed = false
                    continue
                }
                guard rounds < Self.maximumToolRounds else {
                    throw GenerationError.decodingFailure(.init(debugDescription:
                        "The model kept calling tools for more than \(Self.maximumToolRounds) rounds without answering."))
                }
                rounds += 1
                madeCalls.formUnion(keys)
                let outputs = try await ToolRunner.run(calls, tools: tools)
                for output in outputs {
                    if let reason = model.guardrails.violation(in: output.description, source: .toolOutput, isStringRequest: isText) {
                        throw GenerationError.guardrailViolation(.init(debugDescription:
                            "The output of the tool \(output.toolName) was blocked by the guardrails (\(reason))."))
                    }
                }
                added.append(.toolCalls(Transcript.ToolCalls(calls)))
                added.append(contentsOf: outputs.map(Transcript.Entry.toolOutput))
            }
        }
    }

    /// Snapshots of a tool-session turn: nothing while the output may be tool calls, then the answer so far.
    static func toolTurnReporter(
        id: GenerationID,
        isText: Bool,
        report: @escaping @Sendable (GeneratedContent) -> Void
    ) -> @Sendable ([UInt8]) -> Void {
        { bytes in
            let complete = bytes[..<UTF8Accumulator.completePrefixLength(bytes)]
            guard !complete.isEmpty, var partial = try? GeneratedContent(json: String(decoding: complete, as: UTF8.self)) else { return }
            if isText {
                guard let text = ToolTurnSchema.partialText(in: partial) else { return }
                report(GeneratedContent(kind: .string(text), id: id))
                return
            }
            if case .structure(_, let keys) = partial.kind, keys.isEmpty || keys.first == ToolTurnSchema.toolCallsKey { return }
            partial.id = id
            report(partial)
        }
    }

    /// Turns the growing response bytes into snapshots: whole characters only, and for structured output
    /// the parsed JSON prefix, all with the response's one `GenerationID`.
    static func snapshotReporter(
        id: GenerationID,
        isStructured: Bool,
        report: @escaping @Sendable (GeneratedContent) -> Void
    ) -> @Sendable ([UInt8]) -> Void {
        { bytes in
            let complete = bytes[..<UTF8Accumulator.completePrefixLength(bytes)]
            let text = String(decoding: complete, as: UTF8.self)
            if isStructured {
                guard !text.isEmpty, var partial = try? GeneratedContent(json: text) else { return }
                partial.id = id
                report(partial)
            } else {
                report(GeneratedContent(kind: .string(text), id: id))
            }
        }
    }

    /// The compiled grammar for a schema, or `unsupportedGuide` naming what cannot be enforced.
    static func constraint(for schema: GenerationSchema, useCase: SystemLanguageModel.UseCase, on model: LoadedModel) throws(GenerationError) -> TokenConstraint {
        do {
            return try model.constraint(for: UseCasePrompting.decodingDocument(for: schema, useCase: useCase))
        } catch {
            throw .unsupportedGuide(.init(debugDescription: "\(error)"))
        }
    }

    /// Maps options onto the runtime's sampler: greedy stays greedy, `nil` picks the use case's default.
    static func sampling(for options: GenerationOptions, useCase: SystemLanguageModel.UseCase) -> SamplingParameters {
        let temperature = max(0, options.temperature ?? 0.7)
        switch options.sampling?.mode {
        case .greedy:
            return .greedy
        case .top(let k, let seed):
            return SamplingParameters(strategy: .topK(max(1, k)), temperature: temperature, seed: seed)
        case .nucleus(let threshold, let seed):
            return SamplingParameters(strategy: .nucleus(min(max(threshold, 0), 1)), temperature: temperature, seed: seed)
        case nil:
            if useCase == .contentTagging { return .greedy }
            return SamplingParameters(strategy: .nucleus(0.9), temperature: temperature)
        }
    }

    static func generationError(for failure: GenerationFailure) -> any Error {
        switch failure {
        case .contextOverflow(let message): GenerationError.exceededContextWindowSize(.init(debugDescription: message))
        case .truncated(let message): GenerationError.decodingFailure(.init(debugDescription: message))
        case .runtime(let message): GenerationError.decodingFailure(.init(debugDescription: message))
        case .cancelled: CancellationError()
        }
    }
}

extension GeneratedContent {
    /// A string's own text; any other value's JSON.
    var jsonStringOrText: String {
        if case .string(let text) = kind { return text }
        return jsonString
    }
}
