import Foundation

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
        /// The response entry's id when the executor names none: one per round, so every snapshot of the entry
        /// and the entry committed at the end share it (a list keyed by entry ids keeps its row).
        private let fallbackEntryID = UUID().uuidString

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
                outputTokens = Usage.sum(outputTokens, fragment.tokenCount)
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
                outputTokens = Usage.sum(outputTokens, fragment.tokenCount)
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
                    outputTokens = Usage.sum(outputTokens, fragment.tokenCount)
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
        ///
        /// - Throws: ``GeneratedContent/ParsingError`` when a call's arguments stop before their JSON value ends
        ///   (a response cut off by its token limit), so a tool never runs on half its arguments.
        func completedToolCalls() throws -> [Transcript.ToolCall] {
            try toolCalls.map { call in
                let arguments: GeneratedContent
                if let parsed = try? GeneratedContent(json: call.arguments) {
                    guard parsed.isComplete else {
                        throw GeneratedContent.ParsingError(rawContent: call.arguments, debugDescription:
                            "The arguments of the call to \(call.name) stop before their JSON value ends: \(call.arguments)")
                    }
                    arguments = parsed
                } else {
                    arguments = GeneratedContent(kind: .string(call.arguments))
                }
                return Transcript.ToolCall(id: call.id, metadata: call.metadata, toolName: call.name, arguments: arguments)
            }
        }

        /// The response so far: the text, or the parsed prefix of the JSON for a schema; `nil` before there is any.
        func partialContent(schema: GenerationSchema?, id: GenerationID) -> GeneratedContent? {
            let text = self.text
            // Text still being written is not complete, as a partial JSON value is not.
            guard schema != nil else { return GeneratedContent(kind: .string(text), id: id, isComplete: false) }
            guard !text.isEmpty, let partial = try? GeneratedContent(json: text) else { return nil }
            return partial.identified(by: id)
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
            return parsed.identified(by: id)
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
            let response = Transcript.Response(id: responseEntryID ?? fallbackEntryID, metadata: metadata, segments: segments)
            return reasoning + [.response(response)]
        }
    }
}
