import Foundation
import Synchronization

/// One request: the prompt, how to answer it, and the work of answering — through the model's executor.
extension LanguageModelSession {
    struct TurnRequest: Sendable {
        var prompt: Prompt
        var options: GenerationOptions
        var contextOptions: ContextOptions
        var metadata: [String: any Sendable & Codable & Equatable] = [:]
        var schema: GenerationSchema?
        /// The generated type's name, recorded as the structured segment's schema name.
        var schemaName: String
        /// Whether the call came through a macOS 27 method (context options, metadata).
        var usesCurrentErrors: Bool
        /// Reads the final content as the requested type, so content that does not convert fails the request
        /// before its entries reach the transcript; `nil` accepts any content.
        var accepts: (@Sendable (GeneratedContent) throws -> Void)?

        /// The name a request's structured content is recorded under: the generated type's, or for content of a
        /// dynamic schema (`GeneratedContent`) the schema's own name.
        static func schemaName<Content>(of type: Content.Type, schema: GenerationSchema?) -> String {
            if type == GeneratedContent.self, let name = schema?.root.typeName { return name }
            return String(describing: type)
        }
    }

    struct TurnResult: Sendable {
        var content: GeneratedContent
        var entries: ArraySlice<Transcript.Entry>
        var usage: Usage
    }

    /// A snapshot of a response being generated.
    struct TurnProgress: Sendable {
        var content: GeneratedContent
        var entries: ArraySlice<Transcript.Entry>
        var usage: Usage
    }

    /// The end of a stream's generation, which requests after the stream was dropped wait for. Ended under the
    /// session's lock, as a dropped stream is recorded, so a drop seen after the end records nothing.
    final class StreamEnd: Sendable {
        private struct State {
            var isOver = false
            var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
        }
        private let state = Mutex(State())

        var isOver: Bool { state.withLock { $0.isOver } }

        func markOver() {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.isOver = true
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            waiters.forEach { $0.resume() }
        }

        /// Returns once the generation has ended, or once the waiting task is cancelled (a generation stuck in
        /// a tool that ignores cancellation must not hold its session's later requests for good).
        func wait() async {
            let id = UUID()
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.isOver || Task.isCancelled { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
            }
        }
    }

    /// The sessions whose turn the current task is part of (tools and hooks run in it).
    enum TurnContext {
        @TaskLocal static var sessions: Set<ObjectIdentifier> = []
    }

    /// The dropped stream a new request should wait for: none when the request comes from inside one of this
    /// session's turns (a tool asking its own session), which can only be refused, never admitted by waiting.
    var endingStreamToAwait: StreamEnd? {
        if TurnContext.sessions.contains(ObjectIdentifier(self)) { return nil }
        return state.withLock { $0.endingStream }
    }

    /// Waits for the generation of a stream dropped before it ended (a `for try await` loop left early) to
    /// wind down. Its cancellation is seen at the engine's next step, so without this a request made right
    /// after such a loop would find the session still responding and throw `concurrentRequests`.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    func awaitEndingStream() async throws {
        guard let ending = endingStreamToAwait else { return }
        await ending.wait()
        try Task.checkCancellation()
    }

    /// Marks the session as responding, or throws `concurrentRequests` if it already is.
    func beginTurn(usesCurrentErrors: Bool) throws {
        let alreadyResponding = mutate([\LanguageModelSession.isResponding]) { state -> Bool in
            if state.isResponding { return true }
            state.isResponding = true
            state.historyChangedWhileResponding = false
            return false
        }
        if alreadyResponding {
            throw publicError(LanguageModelSession.Error.concurrentRequests, usesCurrentErrors: usesCurrentErrors, entries: [])
        }
    }

    /// Answers a request begun with ``beginTurn(usesCurrentErrors:)``; always ends the turn. On success the
    /// request's entries join the transcript; on failure the transcript is reverted (or keeps what was
    /// generated, under ``TranscriptErrorHandlingPolicy/preserveTranscript``).
    func runTurn(_ request: TurnRequest, progress: (@Sendable (TurnProgress) -> Void)? = nil) async throws -> TurnResult {
        let usesCurrentErrors = request.usesCurrentErrors || self.usesCurrentErrors
        var added: [Transcript.Entry] = []
        let setup = await currentSetup()
        do {
            let result = try await SessionPropertyValues.$current.withValue(sessionProperties) {
                try await TurnContext.$sessions.withValue(TurnContext.sessions.union([ObjectIdentifier(self)])) {
                    try await answer(request, setup: setup, added: &added, progress: progress)
                }
            }
            mutate([\LanguageModelSession.isResponding]) { $0.isResponding = false }
            return result
        } catch {
            let history = state.withLock { Array($0.transcript) } + added
            let profilePolicy = setup.profile?.transcriptErrorHandlingPolicy ?? nil
            mutate([\LanguageModelSession.isResponding, \LanguageModelSession.transcript]) { state in
                state.isResponding = false
                // History replaced while the request ran no longer has this request's start in it: the request's
                // entries would follow a conversation they never answered, so they are rolled back under any policy.
                if (state.transcriptErrorHandlingPolicy ?? profilePolicy)?.kind == .preserve, !state.historyChangedWhileResponding {
                    state.transcript.append(contentsOf: added)
                } else {
                    // The transcript never received this request's entries; keep them for feedback attachments.
                    state.rolledBackEntries.append(contentsOf: added.isEmpty ? [.prompt(Self.promptEntry(for: request))] : added)
                }
            }
            throw publicError(error, usesCurrentErrors: usesCurrentErrors, entries: history)
        }
    }

    /// The prompt entry a request adds to the transcript.
    static func promptEntry(for request: TurnRequest) -> Transcript.Prompt {
        Transcript.Prompt(
            metadata: request.metadata,
            segments: request.prompt.transcriptSegments,
            options: request.options,
            responseFormat: request.schema.map { schema in
                var format = Transcript.ResponseFormat(schema: schema)
                format.name = request.schemaName  // the generated type's name, not the schema's
                return format
            },
            contextOptions: request.contextOptions
        )
    }

    /// Throws for options that name no generation: a `maximumResponseTokens` that is not positive, a `temperature`
    /// that is not a number (NaN or infinite), a top-k sampling mode of fewer than one token, or a probability
    /// threshold outside 0…1. Such a value would otherwise be quietly read as greedy decoding or as no threshold.
    /// (A negative temperature is documented to act as 0.)
    static func requireValidOptions(_ options: GenerationOptions) throws {
        func invalid(_ message: String) -> GeneratedContent.ParsingError {
            GeneratedContent.ParsingError(rawContent: "", debugDescription: message)
        }
        if let limit = options.maximumResponseTokens, limit <= 0 {
            throw invalid("maximumResponseTokens must be positive; it is \(limit).")
        }
        if let temperature = options.temperature, !temperature.isFinite {
            throw invalid("temperature must be a finite number; it is \(temperature).")
        }
        switch options.samplingMode?.kind {
        case .top(let k, _)? where k < 1:
            throw invalid("random(top:) must consider at least one token; it was given \(k).")
        case .nucleus(let threshold, _)? where !(0...1).contains(threshold):
            throw invalid("random(probabilityThreshold:) takes a number between 0 and 1; it was given \(threshold).")
        default:
            break
        }
    }

    /// The most rounds of tool calls one request may make before the model must answer.
    static let maximumToolRounds = 5

    /// The request loop: each round the executor either answers or calls tools; calls run concurrently, their
    /// outputs join the conversation, and the model goes again.
    ///
    /// A round that only repeats calls already made (same tool, same arguments) is not run again: the model is
    /// asked once more with tool calling disallowed, so it must answer from the outputs it has. More than
    /// ``maximumToolRounds`` rounds of new calls, or calls made while tool calling is disallowed, fail with a
    /// parsing error.
    private func answer(
        _ request: TurnRequest, setup: Setup, added: inout [Transcript.Entry], progress: (@Sendable (TurnProgress) -> Void)?
    ) async throws -> TurnResult {
        var setup = setup
        var profile = setup.profile
        var request = request
        // The request's own options, before a profile's modifiers: a profile chosen again after a tool round
        // applies its modifiers to these, not on top of the last profile's.
        let requested = (options: request.options, contextOptions: request.contextOptions)
        if let profile {
            request.options = profile.applying(to: request.options)
            request.contextOptions = profile.applying(to: request.contextOptions)
        }
        try Self.requireValidOptions(request.options)
        try checkCapabilities(request, setup: setup)
        let promptEntry = Self.promptEntry(for: request)
        added.append(.prompt(promptEntry))
        for hook in profile?.onPrompt ?? [] { try await hook(promptEntry) }
        var definitions = try Self.toolDefinitions(setup.tools)
        let id = GenerationID()
        var usage = Usage.zero
        var mode = request.options.toolCallingMode
        var rounds = 0
        var madeCalls: Set<String> = []
        let statistics = EngineStatistics(recordsMargins: Self.recordsDecisionMargins)
        while true {
            var options = request.options
            options.toolCallingMode = mode
            // History transforms shape the conversation before this request; its own prompt and tool rounds
            // always reach the model (and its guardrails).
            var transcript = state.withLock { $0.transcript }
            if let profile, !profile.historyTransforms.isEmpty {
                transcript.history = ArraySlice(profile.transformedHistory(Array(transcript.history)))
            }
            transcript += added
            let executorRequest = LanguageModelExecutorGenerationRequest(
                id: UUID(), transcript: transcript, enabledTools: definitions, schema: request.schema,
                generationOptions: options, contextOptions: request.contextOptions, metadata: request.metadata)
            var round = RoundState()
            // Snapshots' entries are numbered as the committed ones will be: from the end of the session's transcript.
            let before = state.withLock { $0.transcript.entries } + added
            let committedStart = before.count - added.count
            let usageBefore = usage
            var shownText: String?
            try await EngineStatistics.$current.withValue(statistics) {
                try await setup.backend.respond(to: executorRequest) { event in
                    round.apply(event)
                    // Only new text makes a snapshot: usage, metadata and reasoning events alone would repeat the last.
                    guard let progress, round.toolCalls.isEmpty, round.text != shownText,
                          let content = round.partialContent(schema: request.schema, id: id) else { return }
                    shownText = round.text
                    progress(TurnProgress(content: content, entries: (before + round.entries(schemaName: nil, content: nil))[committedStart...],
                                          usage: usageBefore.adding(round.usage)))
                }
            }
            usage = usage.adding(round.usage)

            let calls = try round.completedToolCalls()
            if !calls.isEmpty {
                let keys = calls.map { "\($0.toolName)(\($0.arguments.compactJSONString))" }
                // An executor that calls tools when told not to (a remote server may ignore `tool_choice`)
                // would otherwise be asked again forever.
                guard mode != .disallowed else {
                    throw GeneratedContent.ParsingError(rawContent: keys.joined(separator: ", "), debugDescription:
                        "The model called tools although tool calling was disallowed.")
                }
                // A repeated round is asked again, so nothing of it (its reasoning either) joins the conversation.
                if keys.allSatisfy(madeCalls.contains) {
                    mode = .disallowed
                    continue
                }
                // The final round's reasoning comes with its response entry below.
                added += round.reasoning
                guard rounds < Self.maximumToolRounds else {
                    throw GeneratedContent.ParsingError(rawContent: keys.joined(separator: ", "), debugDescription:
                        "The model kept calling tools for more than \(Self.maximumToolRounds) rounds without answering.")
                }
                rounds += 1
                madeCalls.formUnion(keys)
                for hook in profile?.onToolCall ?? [] {
                    for call in calls { try await hook(call) }
                }
                // Words a model wrote beside its calls ("Let me check the weather.") stay in the conversation.
                if !round.text.isEmpty, case .response(let words)? = round.entries(schemaName: nil, content: nil).last {
                    added.append(.response(words))
                }
                // Recorded before the tools run, so a call that fails is kept by `preserveTranscript` and in
                // the rolled-back entries.
                added.append(.toolCalls(Transcript.ToolCalls(id: round.toolCallsEntryID ?? UUID().uuidString, calls)))
                let outputs = try await ToolRunner.run(calls, tools: setup.tools)
                for hook in profile?.onToolOutput ?? [] {
                    for (call, output) in zip(calls, outputs) { try await hook(call, output) }
                }
                added.append(contentsOf: outputs.map(Transcript.Entry.toolOutput))
                // `required` asks for calls before the answer: once made, the model may answer.
                if mode == .required { mode = .allowed }
                // Dynamic instructions are worked out before every model request: a tool that changed a session
                // property has the next round see the instructions and tools it selects.
                setup = await currentSetup()
                profile = setup.profile
                definitions = try Self.toolDefinitions(setup.tools)
                // So are the profile's option modifiers and its model's capabilities.
                request.options = profile.map { $0.applying(to: requested.options) } ?? requested.options
                request.contextOptions = profile.map { $0.applying(to: requested.contextOptions) } ?? requested.contextOptions
                // Its tool-calling mode as well; calls were just made, so `required` is met.
                mode = request.options.toolCallingMode == .required ? .allowed : request.options.toolCallingMode
                try Self.requireValidOptions(request.options)
                try checkCapabilities(request, setup: setup)
                continue
            }

            // Local generation's grammar allows only calls under `required`; a remote server may not enforce
            // `tool_choice`, and its answer would pass for one made after the calls the caller asked for.
            if mode == .required, !definitions.isEmpty {
                throw GeneratedContent.ParsingError(rawContent: round.text, debugDescription:
                    "The model answered without calling a tool although tool calling was required.")
            }
            let content = try round.finalContent(schema: request.schema, id: id)
            do { try request.accepts?(content) } catch {
                throw GeneratedContent.ParsingError(rawContent: content.jsonString, underlyingError: error, debugDescription: "\(error)")
            }
            added += round.entries(schemaName: request.schema == nil ? nil : request.schemaName, content: content)
            if let profile, case .response(let response)? = added.last {
                for hook in profile.onResponse { try await hook(response) }
            }
            let committed = added
            let recorded = statistics.value
            let entries = mutate([\LanguageModelSession.transcript, \LanguageModelSession.usage]) { state -> ArraySlice<Transcript.Entry>? in
                // History set while the request ran: its entries no longer fit the transcript.
                if state.historyChangedWhileResponding { return nil }
                let start = state.transcript.endIndex
                state.transcript.append(contentsOf: committed)
                state.usage = state.usage.adding(usage)
                if let recorded { state.statistics = recorded }
                return state.transcript.entries[start...]
            }
            guard let entries else { throw LanguageModelSession.Error.transcriptMutationWhileResponding }
            return TurnResult(content: content, entries: entries, usage: usage)
        }
    }

    /// Throws ``LanguageModelError/unsupportedCapability(_:)`` when the request needs what the model lacks.
    private func checkCapabilities(_ request: TurnRequest, setup: Setup) throws {
        let capabilities = setup.backend.capabilities()
        func require(_ capability: LanguageModelCapabilities.Capability, _ reason: String) throws {
            guard capabilities.contains(capability) else {
                throw LanguageModelError.unsupportedCapability(.init(capability: capability, debugDescription: reason))
            }
        }
        if request.schema != nil { try require(.guidedGeneration, "The request asks for guided generation.") }
        if !setup.tools.isEmpty { try require(.toolCalling, "The session has tools.") }
        if request.contextOptions.reasoningLevel != nil { try require(.reasoning, "The request sets a reasoning level.") }
        let segments = request.prompt.segments + state.withLock { $0.transcript }.flatMap(Self.segments(of:))
        if segments.contains(where: { if case .attachment = $0 { true } else { false } }) {
            try require(.vision, "The conversation holds an image attachment.")
        }
    }

    /// The definitions of `tools`, one per name.
    ///
    /// A model calls a tool by its name, so two different tools under one name would have one of them never run,
    /// with the other's arguments: that throws a ``ToolCallError`` naming the second. The same definition listed
    /// twice (dynamic instructions joining lists, a tool beside its `AnyTool`) is one tool, offered once.
    static func toolDefinitions(_ tools: [any Tool]) throws -> [Transcript.ToolDefinition] {
        var definitions: [Transcript.ToolDefinition] = []
        for tool in tools {
            let definition = Transcript.ToolDefinition(tool: tool)
            guard let earlier = definitions.first(where: { $0.name == definition.name }) else {
                definitions.append(definition)
                continue
            }
            // A definition's equality is its name and description; the arguments are compared by their schema,
            // written only when two tools share a name.
            guard earlier == definition, earlier.parameters.jsonSchemaString == definition.parameters.jsonSchemaString else {
                throw ToolCallError(tool: tool, underlyingError: ToolNameClash(name: tool.name))
            }
        }
        return definitions
    }

    private static func segments(of entry: Transcript.Entry) -> [Transcript.Segment] {
        switch entry {
        case .instructions(let e): e.segments
        case .prompt(let e): e.segments
        case .toolOutput(let e): e.segments
        case .response(let e): e.segments
        case .reasoning(let e): e.segments
        case .toolCalls: []
        }
    }

    /// The error a caller sees: as thrown for macOS 27 code, or mapped to ``GenerationError`` for a session used
    /// through the macOS 26 API.
    func publicError(_ error: any Swift.Error, usesCurrentErrors: Bool, entries: [Transcript.Entry]) -> any Swift.Error {
        guard !usesCurrentErrors else { return error }
        switch error {
        case let error as LanguageModelError:
            let context = GenerationError.Context(debugDescription: error.debugDescription)
            switch error {
            case .contextSizeExceeded: return GenerationError.exceededContextWindowSize(context)
            case .guardrailViolation: return GenerationError.guardrailViolation(context)
            case .refusal: return GenerationError.refusal(.init(transcriptEntries: entries, backend: backend), context)
            case .unsupportedGenerationGuide: return GenerationError.unsupportedGuide(context)
            case .unsupportedLanguageOrLocale: return GenerationError.unsupportedLanguageOrLocale(context)
            case .rateLimited: return GenerationError.rateLimited(context)
            case .unsupportedCapability, .unsupportedTranscriptContent, .timeout: return error
            }
        case let error as SystemLanguageModel.Error:
            return GenerationError.assetsUnavailable(.init(debugDescription: error.debugDescription))
        case let error as GeneratedContent.ParsingError:
            return GenerationError.decodingFailure(.init(debugDescription: error.debugDescription))
        case LanguageModelSession.Error.concurrentRequests:
            return GenerationError.concurrentRequests(.init(debugDescription: LanguageModelSession.Error.concurrentRequests.debugDescription))
        default:
            return error
        }
    }
}

extension LanguageModelSession.Usage {
    /// The session's form of an executor's usage report.
    init(_ usage: LanguageModelExecutorGenerationChannel.Usage) {
        self.init(input: .init(totalTokenCount: usage.input.totalTokenCount, cachedTokenCount: usage.input.cachedTokenCount),
                  output: .init(totalTokenCount: usage.output.totalTokenCount, reasoningTokenCount: usage.output.reasoningTokenCount))
    }
}

extension GeneratedContent {
    /// A string's own text; any other value's compact JSON.
    var jsonStringOrText: String {
        if case .string(let text) = kind { return text }
        return compactJSONString
    }
}
