/// Turns a transcript into OpenAI chat messages.
///
/// Instructions with text become `system` messages, prompts `user` messages, responses `assistant` messages,
/// tool calls an `assistant` message with `tool_calls` (the response just before them, if any, as its content),
/// and tool outputs `tool` messages naming the call they answer.
/// Structured content is written as compact JSON. Reasoning stays out: OpenAI-compatible servers do not take it
/// back. When the schema goes in the prompt, it joins the leading system message (some chat templates refuse a
/// system message anywhere else).
enum ChatMessageRenderer {
    /// The messages for `transcript`.
    ///
    /// - Parameter schema: The schema to describe in the system message, or `nil`.
    /// - Throws: ``LanguageModelError/unsupportedTranscriptContent(_:)`` for image attachments.
    static func messages(for transcript: Transcript, schema: GenerationSchema?) throws -> [ChatCompletionsMessage] {
        var messages: [ChatCompletionsMessage] = []
        var previous: Transcript.Entry?
        // Calls not yet answered by a tool message. A call that failed or was cancelled stays in a transcript kept
        // by `preserveTranscript` without its output, and OpenAI-compatible servers refuse an assistant message
        // with tool calls that no tool messages follow; such a call is answered with a note saying it did not finish.
        var unanswered: [String] = []
        func answerUnanswered() {
            for id in unanswered {
                messages.append(ChatCompletionsMessage(role: "tool", content: unansweredCallNote, toolCallID: id))
            }
            unanswered.removeAll()
        }
        for entry in transcript {
            defer { if case .reasoning = entry {} else { previous = entry } }
            switch entry {
            case .toolOutput, .reasoning: break
            default: answerUnanswered()
            }
            switch entry {
            case .instructions(let instructions):
                // Instructions that only carry tools say nothing: an empty system message is left out (a schema
                // note below still gets a system message of its own).
                let content = try text(of: instructions.segments, entry: entry)
                if content.allSatisfy(\.isWhitespace) { continue }
                messages.append(ChatCompletionsMessage(role: "system", content: content))
            case .prompt(let prompt):
                messages.append(ChatCompletionsMessage(role: "user", content: try text(of: prompt.segments, entry: entry)))
            case .response(let response):
                messages.append(ChatCompletionsMessage(role: "assistant", content: try text(of: response.segments, entry: entry)))
            case .toolCalls(let calls):
                let toolCalls = calls.map { ChatCompletionsToolCall(id: $0.id, name: $0.toolName, arguments: $0.arguments.compactJSONString) }
                // Words the model wrote beside its calls (a response entry just before them) are one message.
                if let last = messages.last, last.role == "assistant", last.toolCalls.isEmpty, case .response? = previous {
                    messages[messages.count - 1].toolCalls = toolCalls
                } else {
                    messages.append(ChatCompletionsMessage(role: "assistant", content: nil, toolCalls: toolCalls))
                }
                unanswered = calls.map(\.id)
            case .toolOutput(let output):
                unanswered.removeAll { $0 == output.id }
                messages.append(ChatCompletionsMessage(role: "tool", content: try text(of: output.segments, entry: entry), toolCallID: output.id))
            case .reasoning:
                continue
            }
        }
        answerUnanswered()
        if let schema {
            let note = "Respond with JSON that matches this schema: \(ChatCompletionsSchema.text(for: schema))"
            if messages.first?.role == "system" {
                messages[0].content = [messages[0].content ?? "", note].filter { !$0.isEmpty }.joined(separator: "\n\n")
            } else {
                messages.insert(ChatCompletionsMessage(role: "system", content: note), at: 0)
            }
        }
        return messages
    }

    /// The tool message that stands for a call's missing output: the on-device rendering's words.
    static var unansweredCallNote: String { ConversationRenderer.unansweredCallNote }

    /// The segments' text: text as is, structures as compact JSON, custom segments by their description.
    private static func text(of segments: [Transcript.Segment], entry: Transcript.Entry) throws -> String {
        if segments.contains(where: { if case .attachment = $0 { true } else { false } }) {
            throw LanguageModelError.unsupportedTranscriptContent(.init(
                unsupportedContent: [entry], debugDescription: "Chat completions requests carry text only; the transcript holds an image."))
        }
        return segments.modelText
    }
}
