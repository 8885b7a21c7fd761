import HTTPTypes
import FoundationModels

/// OpenAI chat messages as a transcript: `system`/`developer` messages become the instructions, `user`
/// messages prompts, `assistant` messages responses or tool calls, and `tool` messages tool outputs.
enum ChatMessages {
    /// The transcript for `messages`.
    ///
    /// A `system` or `developer` message later in the conversation (OpenAI accepts them anywhere) joins the
    /// instructions after the earlier ones, since the model reads every instruction in its system text. A
    /// conversation of system messages alone becomes one prompt of their text.
    ///
    /// - Parameter tools: The request's tools, attached to the instructions.
    /// - Throws: ``APIError`` (400) for an unknown role, content that is missing or not text, a tool message answering no
    ///   earlier call, calls whose answers do not follow them directly, a call without `arguments` or with arguments
    ///   that are not JSON, or a conversation that ends with an assistant message.
    static func transcript(from messages: JSONField, tools: [Transcript.ToolDefinition]) throws(APIError) -> Transcript {
        let list = try messages.array()
        guard !list.isEmpty else { throw APIError.invalid("messages", "'messages' must hold at least one message.") }
        var instructions: [String] = []
        var entries: [Transcript.Entry] = []
        var madeCalls: Set<String> = []
        // As OpenAI: the tool messages answering an assistant's calls follow it directly, one for each call. Some
        // servers give every call the same id (or none), so answers pair with calls of that id in order.
        var unanswered: [(id: String, name: String)] = []
        var lastRole = ""
        for message in list {
            let role = try message.object().required("role").string()
            try refuseUnreadAnswers(in: message, role: role)
            lastRole = role
            if role != "tool", !unanswered.isEmpty { throw unansweredCalls(unanswered.map(\.id), before: message.path) }
            switch role {
            case "system", "developer":
                instructions.append(try text(of: message, role: role))
            case "user":
                entries.append(.prompt(Transcript.Prompt(segments: [segment(try text(of: message, role: role))])))
            case "assistant":
                if let calls = message["tool_calls"], !(try calls.array().isEmpty) {
                    // OpenAI lets an assistant say something before its calls; the words stay in the conversation.
                    if let content = message["content"], !content.isNull {
                        let words = try text(of: message, role: role)
                        if !words.isEmpty { entries.append(.response(Transcript.Response(assetIDs: [], segments: [segment(words)]))) }
                    }
                    var toolCalls: [Transcript.ToolCall] = []
                    for call in try calls.array() {
                        let id = try call.object().required("id").string()
                        // `index` is the position a streamed call's deltas carry; a client that joins them sends it back.
                        try call.checkMembers(allowed: ["id", "type", "function", "index"], in: "a tool call")
                        if let type = try call["type"]?.string(), type != "function" {
                            throw APIError.invalid("\(call.path).type", "Only 'function' tool calls are supported, not '\(type)'.")
                        }
                        let function = try call.required("function").object()
                        // OpenAI's Python client sends back its own parse of the arguments, which are read instead.
                        try function.checkMembers(allowed: ["name", "arguments", "parsed_arguments"], in: "a tool call's 'function'")
                        let name = try function.required("name").string()
                        let argumentsText = try function.required("arguments").string()
                        guard let arguments = try? GeneratedContent(json: argumentsText), arguments.isComplete else {
                            throw APIError.invalid("\(function.path).arguments", "The arguments of '\(name)' are not valid JSON.")
                        }
                        madeCalls.insert(id)
                        unanswered.append((id, name))
                        toolCalls.append(Transcript.ToolCall(id: id, toolName: name, arguments: arguments))
                    }
                    entries.append(.toolCalls(Transcript.ToolCalls(toolCalls)))
                } else if message["content"] == nil, let refusal = message["refusal"] {
                    // OpenAI's own answer when the model refused, sent back as part of the conversation.
                    entries.append(.response(Transcript.Response(assetIDs: [], segments: [segment(try refusal.string())])))
                } else {
                    entries.append(.response(Transcript.Response(assetIDs: [], segments: [segment(try text(of: message, role: role))])))
                }
            case "tool":
                let id = try message.required("tool_call_id").string()
                guard madeCalls.contains(id) else {
                    throw APIError.invalid("\(message.path).tool_call_id", "No earlier assistant message made the call '\(id)'.")
                }
                guard let index = unanswered.firstIndex(where: { $0.id == id }) else {
                    throw APIError.invalid(
                        "\(message.path).tool_call_id",
                        "The call '\(id)' was answered already, or was made before the last assistant message with 'tool_calls'; a tool message answers a call of the assistant message just before it.")
                }
                let name = unanswered.remove(at: index).name
                entries.append(.toolOutput(Transcript.ToolOutput(id: id, toolName: name, segments: [segment(try text(of: message, role: role))])))
            default:
                throw APIError.invalid("\(message.path).role", "Unknown role '\(role)': use system, developer, user, assistant or tool.")
            }
            // After the content is read, so a misspelt `content` is named as the missing member it is.
            try checkMembers(of: message, role: role)
        }
        if !unanswered.isEmpty { throw unansweredCalls(unanswered.map(\.id), before: nil) }
        // A conversation may end with a system message, or hold nothing else (OpenAI answers both). One that ends
        // with the assistant is refused: OpenAI starts a new message there and llama-server continues the last one,
        // so either reading would surprise some client.
        if lastRole == "assistant" {
            throw APIError.invalid("messages", "The last message comes from the assistant; end with the user's, a tool's or a system message that the model answers.")
        }
        // System messages alone are what the model answers: as a user turn, since some chat templates (Gemma's)
        // hold system text back for the next user turn and would drop it when none comes.
        if entries.isEmpty {
            let text = instructions.joined(separator: "\n\n")
            guard text.contains(where: { !$0.isWhitespace }) else {
                throw APIError.invalid("messages", "The messages hold no text for the model to answer.")
            }
            entries = [.prompt(Transcript.Prompt(segments: [segment(text)]))]
            instructions = []
        }
        if !instructions.isEmpty || !tools.isEmpty {
            let text = instructions.joined(separator: "\n\n")
            entries.insert(.instructions(Transcript.Instructions(segments: text.isEmpty ? [] : [segment(text)], toolDefinitions: tools)), at: 0)
        }
        return Transcript(entries: entries)
    }

    /// Refuses what an assistant's message may carry in OpenAI's API and this server cannot read, with what to
    /// send instead: the legacy `function_call`, and an earlier audio answer. Checked before the content, which
    /// such a message may leave out.
    private static func refuseUnreadAnswers(in message: JSONField, role: String) throws(APIError) {
        guard role == "assistant" else { return }
        if message["function_call"] != nil {
            throw APIError.invalid("\(message.path).function_call", "The legacy 'function_call' is not supported; send the call in 'tool_calls'.")
        }
        if message["audio"] != nil {
            throw APIError.invalid("\(message.path).audio", "Audio answers are not supported; send the assistant's words in 'content'.", code: "unsupported_content")
        }
    }

    /// Refuses a member a message of `role` does not have in OpenAI's API (a misspelling, `tool_calls` on a user's
    /// message), since it would be dropped without a word. Unknown roles are left to the caller's own message.
    private static func checkMembers(of message: JSONField, role: String) throws(APIError) {
        // A name tells participants apart; the model is not shown it, but one that is not a string is a mistake.
        _ = try message["name"]?.string()
        let allowed: Set<String>
        switch role {
        case "system", "developer", "user": allowed = ["role", "content", "name"]
        // `parsed` is OpenAI's Python client's own parse of the content (from `parse()`), sent back with the message.
        case "assistant": allowed = ["role", "content", "name", "refusal", "tool_calls", "parsed"]
        // OpenAI's own examples send a tool message's `name` (the function's).
        case "tool": allowed = ["role", "content", "tool_call_id", "name"]
        default: return
        }
        try message.checkMembers(allowed: allowed, in: "a message of role '\(role)'")
    }

    /// OpenAI's refusal of calls left without an answer, naming the message that came instead.
    private static func unansweredCalls(_ ids: [String], before path: String?) -> APIError {
        let list = ids.map { "'\($0)'" }.joined(separator: ", ")
        let place = path.map { " (\($0) comes first)" } ?? " (the conversation ends)"
        return APIError.invalid(
            path ?? "messages",
            "An assistant message with 'tool_calls' must be followed by tool messages answering each 'tool_call_id'; none answers \(list)\(place).")
    }

    private static func segment(_ text: String) -> Transcript.Segment {
        .text(Transcript.TextSegment(content: text))
    }

    /// A message's text: a string, or an array of `text` parts joined (and, in an assistant's message, `refusal`
    /// parts, which a client sends back as the model gave them).
    private static func text(of message: JSONField, role: String) throws(APIError) -> String {
        // A message without words (`contents` misspelt, or none given) would be read as an empty one.
        let content = try message.required("content")
        if case .string(let text) = content.value.kind { return text }
        guard case .array(let elements) = content.value.kind else { throw content.mismatch("a string or an array of parts") }
        // As OpenAI: an empty list of parts is a mistake (an empty message is the empty string).
        guard !elements.isEmpty else { throw APIError.invalid(content.path, "'content' holds no parts; send at least one, or a string.") }
        var parts: [String] = []
        for part in try content.array() {
            let type = try part.object().required("type").string()
            if type == "refusal", role == "assistant" {
                try part.checkMembers(allowed: ["type", "refusal"], in: "a refusal part")
                parts.append(try part.required("refusal").string())
                continue
            }
            guard type == "text" else {
                throw APIError.invalid("\(part.path).type", "Only text parts are supported, not '\(type)'.", code: "unsupported_content")
            }
            // As in a message: a misspelt member (`txt`) would be dropped without a word.
            try part.checkMembers(allowed: ["type", "text"], in: "a text part")
            parts.append(try part.required("text").string())
        }
        return parts.joined(separator: "\n")
    }
}
