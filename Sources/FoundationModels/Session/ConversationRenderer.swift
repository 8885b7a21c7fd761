import FMLlama

/// Turns a transcript into the chat messages the model's template renders.
///
/// Rendering is deterministic — the same transcript always gives the same text — so each turn's prompt
/// starts with the previous turn's tokens and the KV cache is reused.
struct ConversationRenderer {
    let model: SystemLanguageModel
    /// The session's tools; when there are any, answers are rendered in the tool-turn format.
    var tools: [any Tool] = []

    func messages(for transcript: Transcript, renderedPrompts: [String: String]) -> [ChatMessage] {
        var messages: [ChatMessage] = []
        let system = systemText(for: transcript)
        if !system.isEmpty { messages.append(ChatMessage(role: "system", content: system)) }
        for entry in transcript {
            switch entry {
            case .instructions:
                continue
            case .prompt(let prompt):
                messages.append(ChatMessage(role: "user", content: renderedPrompts[prompt.id] ?? userText(for: prompt, includeSchema: true)))
            case .response(let response):
                messages.append(ChatMessage(role: "assistant", content: assistantText(for: response)))
            case .toolCalls(let calls):
                messages.append(ChatMessage(role: "assistant", content: ToolCallFormat.render(calls)))
            case .toolOutput(let output):
                messages.append(ChatMessage(role: "user", content: ToolCallFormat.render(output)))
            }
        }
        return messages
    }

    /// A response as the model wrote it: plain text, JSON, or — in a tool session — `{"response": …}`.
    func assistantText(for response: Transcript.Response) -> String {
        if !tools.isEmpty, response.segments.count == 1, case .text(let segment) = response.segments[0] {
            return ToolCallFormat.renderAnswer(segment.content)
        }
        return response.segments.map(\.description).joined()
    }

    /// The system message: the use case's preamble, the instructions, and the tool definitions.
    func systemText(for transcript: Transcript) -> String {
        var parts: [String] = []
        if let preamble = UseCasePrompting.preamble(for: model.useCase) { parts.append(preamble) }
        for case .instructions(let instructions) in transcript {
            let text = instructions.description
            if !text.isEmpty { parts.append(text) }
            if !instructions.toolDefinitions.isEmpty { parts.append(ToolCallFormat.render(instructions.toolDefinitions)) }
        }
        if !tools.isEmpty { parts.append(ToolCallFormat.usage(for: tools)) }
        return parts.joined(separator: "\n\n")
    }

    /// The user message for a prompt, with the response schema described when requested.
    func userText(for prompt: Transcript.Prompt, includeSchema: Bool) -> String {
        let text = prompt.segments.map(\.description).joined(separator: "\n")
        guard includeSchema, let format = prompt.responseFormat else { return text }
        return text + "\n\n" + UseCasePrompting.schemaInstruction(for: format.schema, useCase: model.useCase)
    }
}
