/// How tool definitions, calls and outputs appear in the model's prompt.
///
/// Calls are rendered exactly as the model writes them under ``ToolTurnSchema`` — one JSON object per
/// round — and answers in a tool session as `{"response": …}`, so the history shows the model its own format.
enum ToolCallFormat {
    /// The tool list for the system message.
    static func render(_ definitions: [Transcript.ToolDefinition]) -> String {
        var lines = ["You can call these tools:"]
        for definition in definitions {
            lines.append("- \(definition.name): \(definition.description) Arguments: \(definition.parameters.promptDescription)")
        }
        return lines.joined(separator: "\n")
    }

    /// How to call a tool and how to answer, with an example call of the first tool; in a turn that may not call
    /// tools (``GenerationOptions/ToolCallingMode/disallowed``), how to answer without one.
    ///
    /// The answer's form is shown with dots in its place: a placeholder that reads like an answer (`<your answer>`)
    /// is what small models copy as theirs.
    static func usage(for tools: [Transcript.ToolDefinition], callsAllowed: Bool = true) -> String {
        guard let first = tools.first else { return "" }
        guard callsAllowed else {
            return """
                The tools are switched off for this reply. Answer from the conversation alone, and never invent \
                what a tool would return: if the request needs a tool's result, explain that you can't look it up \
                right now. Reply only with JSON: {"response":"..."}, your answer in place of the dots (or with the \
                JSON the user asks for).
                """
        }
        let example = #"{"tool_calls":[{"name":"\#(first.name)","arguments":\#(exampleValue(first.parameters.root, in: first.parameters))}]}"#
        return """
            Always call a tool first when it can help with the request: reply only with JSON such as \(example). \
            Once the tool's output is in the conversation, answer with it: reply {"response":"..."}, your answer in place \
            of the dots (or with the JSON the user asks for).
            """
    }

    /// One round of calls, as the model wrote it.
    static func render(_ calls: Transcript.ToolCalls) -> String {
        let items = calls.map { #"{"name":\#(quoted($0.toolName)),"arguments":\#($0.arguments.compactJSONString)}"# }
        return #"{"tool_calls":[\#(items.joined(separator: ","))]}"#
    }

    /// A tool's output as the message that feeds it back.
    static func render(_ output: Transcript.ToolOutput) -> String {
        "The tool \(output.toolName) returned: " + output.segments.modelText
            + "\nUse this to answer my question in a full sentence."
    }

    /// A tool's output in a turn that offers no tools, where the call itself is not shown: the output names the
    /// arguments it answers, so outputs of several calls of one tool stay apart.
    static func render(_ output: Transcript.ToolOutput, call: Transcript.ToolCall?) -> String {
        let arguments = call.map { " called with \($0.arguments.compactJSONString)" } ?? ""
        return "The tool \(output.toolName)\(arguments) returned: " + output.segments.modelText
            + "\nUse this to answer my question in a full sentence."
    }

    /// A text answer in a tool session.
    static func renderAnswer(_ text: String) -> String {
        #"{"response":\#(quoted(text))}"#
    }

    /// A placeholder value of a schema node, for the example call.
    static func exampleValue(_ node: GenerationSchema.Node, in schema: GenerationSchema, depth: Int = 0) -> String {
        guard depth < 4 else { return "null" }
        switch node {
        case .string(let guides): return quoted(guides.choices?.first ?? "...")
        case .integer: return "1"
        case .number: return "1.5"
        case .boolean: return "true"
        case .null, .any: return "null"
        case .constant(let text): return text
        case .array(let array):
            let elements = array.prefixItems.isEmpty ? [array.items] : array.prefixItems
            return "[\(elements.map { exampleValue($0, in: schema, depth: depth + 1) }.joined(separator: ","))]"
        case .object(let object):
            let members = object.properties.filter { !$0.isOptional }.map {
                "\(quoted($0.name)):\(exampleValue($0.node, in: schema, depth: depth + 1))"
            }
            return "{\(members.joined(separator: ","))}"
        case .enumeration(let enumeration): return quoted(enumeration.choices.first ?? "")
        case .anyOf(let union): return union.choices.first.map { exampleValue($0, in: schema, depth: depth + 1) } ?? "null"
        case .reference(let name):
            guard let target = schema.node(named: name) else { return "null" }
            return exampleValue(target, in: schema, depth: depth + 1)
        }
    }

    /// A string as a JSON string literal.
    static func quoted(_ text: String) -> String {
        GeneratedContent(kind: .string(text)).compactJSONString
    }
}
