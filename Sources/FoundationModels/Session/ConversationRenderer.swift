import FMEngine
import FMLlama

/// Turns a transcript into the chat messages the model's template renders.
///
/// Rendering is deterministic — the same transcript always gives the same text, each prompt rendered from
/// its own response format and context options — so each turn's prompt starts with the previous turn's
/// tokens and the KV cache is reused.
struct ConversationRenderer {
    let model: SystemLanguageModel
    /// The session's tools; when there are any, answers are rendered in the tool-turn format.
    var tools: [Transcript.ToolDefinition] = []
    /// Whether this turn may call ``tools`` (their definitions stay in the prompt either way, as earlier calls do).
    ///
    /// A turn that may not is told so in place of the calling instructions at the end of the system text, so its
    /// prompt shares the instructions and tool definitions (and a prewarm's cache of them) with the turns around
    /// it, but not what follows. Two ways that keep more of the cache were measured and answered worse: the same
    /// words after the last message (`medium` invented the weather again, `tiny` answered "..." to most
    /// requests), and after the calling instructions, which still say to call a tool first (`medium` invented it).
    var callsAllowed = true

    /// The chat messages for a transcript.
    ///
    /// The last prompt's response schema is described unless its context options say otherwise — in the
    /// system text for content tagging (so the whole prefix before the text is shared, and cached, across a
    /// batch of texts), after the prompt otherwise.
    func messages(for transcript: Transcript) -> [ChatMessage] {
        var messages: [ChatMessage] = []
        let includeSchema = lastPrompt(of: transcript)?.contextOptions.includeSchemaInPrompt ?? true
        let schema = responseSchema(of: transcript)
        let system = systemText(for: transcript, schema: includeSchema ? schema : nil)
        if !system.isEmpty { messages.append(ChatMessage(role: "system", content: system)) }
        // A fresh tagging conversation opens with the use case's examples (earlier turns already show the way).
        if model.useCase == .contentTagging, tools.isEmpty, QualityLevers.current.usesTaggingExamples, let schema,
           !transcript.contains(where: { if case .response = $0 { true } else { false } }) {
            messages += TaggingExamples.messages(for: schema)
        }
        // Without tools in this turn, earlier calls are not shown in the call format, which the model would copy as
        // its answer: each output names its call instead.
        var calls: [String: Transcript.ToolCall] = [:]
        if tools.isEmpty {
            for case .toolCalls(let round) in transcript {
                for call in round { calls[call.id] = call }
            }
        }
        // In the call format every call is answered before the conversation goes on: a call kept without its output
        // (a tool that failed under `preserveTranscript`) gets a note in its place.
        var unanswered: [Transcript.ToolCall] = []
        func answerUnanswered() {
            for call in unanswered {
                let note = Transcript.ToolOutput(id: call.id, toolName: call.toolName,
                                                 segments: [.text(.init(content: Self.unansweredCallNote))])
                messages.append(ChatMessage(role: "user", content: ToolCallFormat.render(note)))
            }
            unanswered.removeAll()
        }
        for entry in transcript {
            switch entry {
            case .toolOutput(let output): unanswered.removeAll { $0.id == output.id }
            case .instructions, .reasoning: break
            default: answerUnanswered()
            }
            switch entry {
            case .instructions, .reasoning:
                continue
            case .prompt(let prompt):
                messages.append(ChatMessage(role: "user", content: userText(for: prompt)))
            case .response(let response):
                messages.append(ChatMessage(role: "assistant", content: assistantText(for: response)))
            case .toolCalls(let round):
                if !tools.isEmpty {
                    messages.append(ChatMessage(role: "assistant", content: ToolCallFormat.render(round)))
                    unanswered = Array(round)
                }
            case .toolOutput(let output):
                let text = tools.isEmpty ? ToolCallFormat.render(output, call: calls[output.id]) : ToolCallFormat.render(output)
                messages.append(ChatMessage(role: "user", content: text))
            }
        }
        answerUnanswered()
        return messages
    }

    /// What stands for the output of a call that did not complete.
    static let unansweredCallNote = "The call did not complete, and there is no output."

    /// The schema the last prompt asks for; for content tagging, a text request's implicit tag schema.
    func responseSchema(of transcript: Transcript) -> GenerationSchema? {
        guard let last = lastPrompt(of: transcript) else { return nil }
        return last.responseFormat?.schema ?? UseCasePrompting.textSchema(for: model.useCase)
    }

    /// The transcript's last prompt entry.
    func lastPrompt(of transcript: Transcript) -> Transcript.Prompt? {
        for entry in transcript.reversed() {
            if case .prompt(let prompt) = entry { return prompt }
        }
        return nil
    }

    /// Where the response schema is described: for content tagging, where the levers say (the system text by
    /// default); after the prompt otherwise.
    private var schemaPlacement: QualityLevers.SchemaPlacement {
        model.useCase == .contentTagging && tools.isEmpty ? QualityLevers.current.taggingSchemaPlacement : .after
    }

    /// A response as the model wrote it: plain text, JSON, or — in a tool session — `{"response": …}`.
    func assistantText(for response: Transcript.Response) -> String {
        if !tools.isEmpty, response.segments.count == 1, case .text(let segment) = response.segments[0] {
            return ToolCallFormat.renderAnswer(segment.content)
        }
        return response.segments.map(\.modelText).joined()
    }

    /// The system message: the use case's preamble, the instructions, the tool definitions, and — for content
    /// tagging — the response schema.
    func systemText(for transcript: Transcript, schema: GenerationSchema? = nil) -> String {
        var parts: [String] = []
        if let preamble = UseCasePrompting.preamble(for: model.useCase, schema: schema ?? responseSchema(of: transcript)) {
            parts.append(preamble)
        }
        for case .instructions(let instructions) in transcript {
            let text = instructions.segments.modelText
            if !text.isEmpty { parts.append(text) }
            if !instructions.toolDefinitions.isEmpty { parts.append(ToolCallFormat.render(instructions.toolDefinitions)) }
        }
        if !tools.isEmpty { parts.append(ToolCallFormat.usage(for: tools, callsAllowed: callsAllowed)) }
        if schemaPlacement == .system, let schema {
            parts.append(UseCasePrompting.schemaInstruction(for: schema, useCase: model.useCase))
        }
        return parts.joined(separator: "\n\n")
    }

    /// The user message for a prompt, with the response schema described unless its context options say not to.
    func userText(for prompt: Transcript.Prompt) -> String {
        schemaPrefix(for: prompt) + prompt.segments.modelText + schemaSuffix(for: prompt)
    }

    /// What the last prompt's user message carries before the prompt's own text: the response schema's
    /// description when it is placed before the text, or nothing (``GenerationJob/promptPrefix``).
    func promptPrefix(for transcript: Transcript) -> String {
        lastPrompt(of: transcript).map(schemaPrefix(for:)) ?? ""
    }

    private func schemaPrefix(for prompt: Transcript.Prompt) -> String {
        schemaDescription(for: prompt, placedAt: .before).map { $0 + "\n\nText: " } ?? ""
    }

    /// What the last prompt's user message carries after the prompt's own text: the response schema's description,
    /// or nothing. A calibration text is read with the same suffix (``GenerationJob/promptSuffix``).
    func promptSuffix(for transcript: Transcript) -> String {
        lastPrompt(of: transcript).map(schemaSuffix(for:)) ?? ""
    }

    private func schemaSuffix(for prompt: Transcript.Prompt) -> String {
        schemaDescription(for: prompt, placedAt: .after).map { "\n\n" + $0 } ?? ""
    }

    /// The description of a prompt's response schema if it goes at `placement` in the user message, else `nil`
    /// (no schema, its context options leave it out, or it is described elsewhere).
    private func schemaDescription(for prompt: Transcript.Prompt, placedAt placement: QualityLevers.SchemaPlacement) -> String? {
        guard prompt.contextOptions.includeSchemaInPrompt ?? true, let format = prompt.responseFormat, schemaPlacement == placement else {
            return nil
        }
        return UseCasePrompting.schemaInstruction(for: format.schema, useCase: model.useCase)
    }
}
