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
                try await answer(request, setup: setup, added: &added, progress: progress)
            }
            mutate([\LanguageModelSession.isResponding]) { $0.isResponding = false }
            return result
        } catch {
            let history = state.withLock { Array($0.transcript) } + added
            let profilePolicy = setup.profile?.transcriptErrorHandlingPolicy ?? nil
            mutate([\LanguageModelSession.isResponding, \LanguageModelSession.transcript]) { state in
                state.isResponding = false
                if (state.transcriptErrorHandlingPolicy ?? profilePolicy)?.kind == .preserve {
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

    /// The most rounds of tool calls one request may make before the model must answer.
    static let maximumToolRounds = 5

    /// The request loop: each round the executor either answers or calls tools; calls run concurrently, their
    /// outputs join the conversation, and the model goes again.
    ///
    /// A round that only repeats calls already made (same tool, same arguments) is not run again: the model is
    /// asked once more with tool calling disallowed, so it must answer from the outputs it has. More than
    /// ``maximumToolRounds`` rounds of new calls fail with a parsing error.
    private func answer(
        _ request: TurnRequest, setup: Setup, added: inout [Transcript.Entry], progress: (@Sendable (TurnProgress) -> Void)?
    ) async throws -> TurnResult {
        let profile = setup.profile
        var request = request
        if let profile {
            request.options = profile.applying(to: request.options)
            request.contextOptions = profile.applying(to: request.contextOptions)
        }
        if let limit = request.options.maximumResponseTokens, limit <= 0 {
            throw GeneratedContent.ParsingError(rawContent: "", debugDescription: "maximumResponseTokens must be positive; it is \(limit).")
        }
        try checkCapabilities(request, setup: setup)
        let promptEntry = Self.promptEntry(for: request)
        added.append(.prompt(promptEntry))
        for hook in profile?.onPrompt ?? [] { try await hook(promptEntry) }
        let definitions = setup.tools.map { Transcript.ToolDefinition(tool: $0) }
        let id = GenerationID()
        var usage = Usage.zero
        var mode = request.options.toolCallingMode
        var rounds = 0
        var madeCalls: Set<String> = []
        let statistics = EngineStatistics()
        while true {
            var options = request.options
            options.toolCallingMode = mode
            var transcript = state.withLock { $0.transcript } + added
            if let profile, !profile.historyTransforms.isEmpty {
                transcript.history = ArraySlice(profile.transformedHistory(Array(transcript.history)))
            }
            let executorRequest = LanguageModelExecutorGenerationRequest(
                id: UUID(), transcript: transcript, enabledTools: definitions, schema: request.schema,
                generationOptions: options, contextOptions: request.contextOptions, metadata: request.metadata)
            var round = RoundState()
            let before = added
            let usageBefore = usage
            try await EngineStatistics.$current.withValue(statistics) {
                try await setup.backend.respond(to: executorRequest) { event in
                    round.apply(event)
                    guard let progress, round.toolCalls.isEmpty, let content = round.partialContent(schema: request.schema, id: id) else { return }
                    progress(TurnProgress(content: content, entries: (before + round.entries(schemaName: nil, content: nil))[...],
                                          usage: usageBefore.adding(round.usage)))
                }
            }
            usage = usage.adding(round.usage)
            added += round.reasoning

            let calls = round.completedToolCalls()
            if !calls.isEmpty {
                let keys = calls.map { "\($0.toolName)(\($0.arguments.compactJSONString))" }
                if keys.allSatisfy(madeCalls.contains) {
                    mode = .disallowed
                    continue
                }
                guard rounds < Self.maximumToolRounds else {
                    throw GeneratedContent.ParsingError(rawContent: keys.joined(separator: ", "), debugDescription:
                        "The model kept calling tools for more than \(Self.maximumToolRounds) rounds without answering.")
                }
                rounds += 1
                madeCalls.formUnion(keys)
                for hook in profile?.onToolCall ?? [] {
                    for call in calls { try await hook(call) }
                }
                let outputs = try await ToolRunner.run(calls, tools: setup.tools)
                for hook in profile?.onToolOutput ?? [] {
                    for (call, output) in zip(calls, outputs) { try await hook(call, output) }
                }
                added.append(.toolCalls(Transcript.ToolCalls(id: round.toolCallsEntryID ?? UUID().uuidString, calls)))
                added.append(contentsOf: outputs.map(Transcript.Entry.toolOutput))
                // `required` asks for calls before the answer: once made, the model may answer.
                if mode == .required { mode = .allowed }
                continue
            }

            let content = try round.finalContent(schema: request.schema, id: id)
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
            case .refusal: return GenerationError.refusal(.init(transcriptEntries: entries), context)
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

extension LanguageModelSession {
    /// What the executor has sent for one round: the response's segments, reasoning, tool calls, metadata
    /// and usage.
    struct RoundState {
        private(set) var segments: [Transcript.Segment] = []
        private var currentTextSegment: Int?
        private(set) var metadata: [String: any Sendable & Codable & Equatable] = [:]
        private(set) var reasoning: [Transcript.Entry] = []
        private var reasoningIndex: [String: Int] = [:]
        private(set) var toolCalls: [(id: String, name: String, arguments: String, metadata: [String: any Sendable & Codable & Equatable])] = []
        private(set) var toolCallsEntryID: String?
        private var reportedUsage: Usage?
        private var outputTokens = 0
        private var responseEntryID: String?

        /// The usage the executor reported, or the output tokens its fragments carried.
        var usage: Usage {
            reportedUsage ?? Usage(input: .init(totalTokenCount: 0, cachedTokenCount: 0),
                                   output: .init(totalTokenCount: outputTokens, reasoningTokenCount: 0))
        }

        mutating func apply(_ event: any LanguageModelExecutorGenerationChannel.Event) {
            switch event {
            case let response as LanguageModelExecutorGenerationChannel.Response:
                if let entryID = response.entryID { responseEntryID = entryID }
                apply(response.action)
            case let reasoningEvent as LanguageModelExecutorGenerationChannel.Reasoning:
                apply(reasoningEvent)
            case let calls as LanguageModelExecutorGenerationChannel.ToolCalls:
                apply(calls)
            default:
                break
            }
        }

        private mutating func apply(_ action: LanguageModelExecutorGenerationChannel.Response.Action) {
            switch action {
            case .appendText(let fragment):
                outputTokens += fragment.tokenCount
                appendText(fragment.content, segmentID: fragment.segmentID, to: &segments, current: &currentTextSegment)
            case .replaceTextSegment(let replacement):
                replaceText(replacement.content, segmentID: replacement.segmentID, in: &segments, current: &currentTextSegment)
            case .updateCustomSegment(let custom):
                if let index = segments.firstIndex(where: { $0.id == custom.id }) { segments[index] = .custom(custom) } else { segments.append(.custom(custom)) }
                currentTextSegment = nil
            case .addAttachmentSegment(let attachment):
                segments.append(.attachment(attachment))
                currentTextSegment = nil
            case .removeAttachmentSegment(let id):
                segments.removeAll { $0.id == id }
                currentTextSegment = nil
            case .updateMetadata(let update):
                metadata.merge(update.values) { $1 }
            case .updateUsage(let update):
                reportedUsage = Usage(update)
            }
        }

        private mutating func apply(_ event: LanguageModelExecutorGenerationChannel.Reasoning) {
            let key = event.entryID ?? reasoningIndex.keys.first ?? UUID().uuidString
            let index = reasoningIndex[key] ?? {
                reasoning.append(.reasoning(.init(id: key, segments: [])))
                reasoningIndex[key] = reasoning.count - 1
                return reasoning.count - 1
            }()
            guard case .reasoning(var entry) = reasoning[index] else { return }
            var current: Int? = entry.segments.lastIndex { if case .text = $0 { true } else { false } }
            switch event.action {
            case .appendText(let fragment):
                outputTokens += fragment.tokenCount
                appendText(fragment.content, segmentID: fragment.segmentID, to: &entry.segments, current: &current)
            case .replaceTextSegment(let replacement):
                replaceText(replacement.content, segmentID: replacement.segmentID, in: &entry.segments, current: &current)
            case .updateSignature(let signature):
                entry.signature = signature.signature
            case .updateMetadata(let update):
                entry.metadata.merge(update.values) { $1 }
            case .updateUsage(let update):
                reportedUsage = Usage(update)
            }
            reasoning[index] = .reasoning(entry)
        }

        private mutating func apply(_ event: LanguageModelExecutorGenerationChannel.ToolCalls) {
            if let entryID = event.entryID { toolCallsEntryID = entryID }
            switch event.action {
            case .toolCall(let call):
                let index = toolCalls.firstIndex { $0.id == call.id } ?? {
                    toolCalls.append((call.id, call.name, "", [:]))
                    return toolCalls.count - 1
                }()
                switch call.action {
                case .appendArguments(let fragment):
                    outputTokens += fragment.tokenCount
                    toolCalls[index].arguments += fragment.content
                case .updateMetadata(let update):
                    toolCalls[index].metadata.merge(update.values) { $1 }
                }
            case .removeToolCall(let id):
                toolCalls.removeAll { $0.id == id }
            case .updateMetadata:
                break
            case .updateUsage(let update):
                reportedUsage = Usage(update)
            }
        }

        private func appendText(_ text: String, segmentID: String?, to segments: inout [Transcript.Segment], current: inout Int?) {
            let target = segmentID.flatMap { id in segments.firstIndex { $0.id == id } } ?? (segmentID == nil ? current : nil)
            if let target, case .text(var segment) = segments[target] {
                segment.content += text
                segments[target] = .text(segment)
                current = target
            } else {
                segments.append(.text(.init(id: segmentID ?? UUID().uuidString, content: text)))
                current = segments.count - 1
            }
        }

        private func replaceText(_ text: String, segmentID: String?, in segments: inout [Transcript.Segment], current: inout Int?) {
            let target = segmentID.flatMap { id in segments.firstIndex { $0.id == id } } ?? (segmentID == nil ? current : nil)
            if let target, case .text(var segment) = segments[target] {
                segment.content = text
                segments[target] = .text(segment)
                current = target
            } else {
                segments.append(.text(.init(id: segmentID ?? UUID().uuidString, content: text)))
                current = segments.count - 1
            }
        }

        /// The text of the response's text segments.
        var text: String {
            segments.compactMap { if case .text(let segment) = $0 { segment.content } else { nil } }.joined()
        }

        /// The calls the executor sent, with their arguments parsed; a call whose arguments are not JSON keeps
        /// them as a string.
        func completedToolCalls() -> [Transcript.ToolCall] {
            toolCalls.map { call in
                let arguments = (try? GeneratedContent(json: call.arguments)) ?? GeneratedContent(kind: .string(call.arguments))
                return Transcript.ToolCall(id: call.id, metadata: call.metadata, toolName: call.name, arguments: arguments)
            }
        }

        /// The response so far: the text, or the parsed prefix of the JSON for a schema; `nil` before there is any.
        func partialContent(schema: GenerationSchema?, id: GenerationID) -> GeneratedContent? {
            let text = self.text
            guard schema != nil else { return GeneratedContent(kind: .string(text), id: id) }
            guard !text.isEmpty, var partial = try? GeneratedContent(json: text) else { return nil }
            partial.id = id
            return partial
        }

        /// The complete response: the text, or the value of a schema.
        ///
        /// - Throws: ``GeneratedContent/ParsingError`` when guided output is not a complete value.
        func finalContent(schema: GenerationSchema?, id: GenerationID) throws -> GeneratedContent {
            let text = self.text
            guard schema != nil else { return GeneratedContent(kind: .string(text), id: id) }
            let parsed: GeneratedContent
            do { parsed = try GeneratedContent(json: text) } catch {
                throw GeneratedContent.ParsingError(rawContent: text, underlyingError: error, debugDescription: "The model's output is not JSON: \(text)")
            }
            guard parsed.isComplete else {
                throw GeneratedContent.ParsingError(rawContent: text, debugDescription: "The model's output is not a complete value: \(text)")
            }
            var content = parsed
            content.id = id
            return content
        }

        /// The response entry (after the reasoning), its text segments replaced by the structured content of a
        /// schema when given.
        func entries(schemaName: String?, content: GeneratedContent?) -> [Transcript.Entry] {
            var segments = self.segments
            if let schemaName, let content {
                segments.removeAll { if case .text = $0 { true } else { false } }
                segments.insert(.structure(.init(schemaName: schemaName, content: content)), at: 0)
            } else if segments.isEmpty, content != nil {
                segments = [.text(.init(content: ""))]
            }
            let response = Transcript.Response(id: responseEntryID ?? UUID().uuidString, metadata: metadata, segments: segments)
            return reasoning + [.response(response)]
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
