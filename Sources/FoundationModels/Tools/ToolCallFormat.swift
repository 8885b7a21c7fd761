/// How tool definitions, calls and outputs appear in the model's prompt.
enum ToolCallFormat {
    static func render(_ definitions: [Transcript.ToolDefinition]) -> String {
        var lines = ["You can call these tools:"]
        for definition in definitions {
            lines.append("- \(definition.name): \(definition.description) Arguments: \(definition.parameters.promptDescription)")
        }
        return lines.joined(separator: "\n")
    }

    static func render(_ calls: Transcript.ToolCalls) -> String {
        calls.map { #"{"tool":"\#($0.toolName)","arguments":\#($0.arguments.jsonString)}"# }.joined(separator: "\n")
    }

    static func render(_ output: Transcript.ToolOutput) -> String {
        "Output of \(output.toolName): " + output.segments.map(\.description).joined(separator: "\n")
    }
}
