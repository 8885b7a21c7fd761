import Foundation
import FoundationModels

/// A line of text for every kind of transcript entry, reasoning included.
func render(_ transcript: Transcript) -> [String] {
    transcript.map { entry in
        switch entry {
        case .instructions(let instructions):
            "Instructions: \(instructions.segments.map(render).joined()) (\(instructions.toolDefinitions.map(\.name)))"
        case .prompt(let prompt):
            "Prompt: \(prompt.segments.map(render).joined()) \(prompt.contextOptions.includeSchemaInPrompt ?? true) \(prompt.metadata.keys.sorted())"
        case .reasoning(let reasoning):
            "Reasoning: \(reasoning.segments.map(render).joined()) signed: \(reasoning.signature != nil)"
        case .toolCalls(let calls):
            "Tool calls: \(calls.map { "\($0.toolName)(\($0.arguments.jsonString)) \($0.metadata.count)" })"
        case .toolOutput(let output):
            "Tool output: \(output.toolName) \(output.segments.map(render).joined())"
        case .response(let response):
            "Response: \(response.segments.map(render).joined()) \(response.metadata.keys.sorted())"
        }
    }
}

/// A segment of any kind as text.
func render(_ segment: Transcript.Segment) -> String {
    switch segment {
    case .text(let text): text.content
    case .structure(let structure): "\(structure.schemaName): \(structure.content.jsonString)"
    case .attachment(let attachment): "[\(attachment.label ?? "attachment")]"
    case .custom(let custom): custom.description
    }
}

/// Editing a transcript: drop old tool traffic, keep the instructions, start a new session from it.
func trimmed(_ session: LanguageModelSession, model: some LanguageModel) -> LanguageModelSession {
    var transcript = session.transcript
    transcript.history.removeAll { entry in
        switch entry {
        case .toolCalls, .toolOutput, .reasoning: true
        case .instructions, .prompt, .response: false
        }
    }
    transcript.append(.response(.init(metadata: ["note": "added by hand"], segments: [.text(.init(content: "Noted."))])))
    transcript[transcript.startIndex] = transcript[transcript.startIndex]
    var copy = Transcript()
    copy.append(contentsOf: transcript)
    return LanguageModelSession(model: model, transcript: copy)
}

/// A prompt that carries a custom segment.
struct Citation: Transcript.CustomSegment {
    var id = UUID().uuidString
    var content: [String]
    var description: String { "Sources: " + content.joined(separator: ", ") }
}

func askWithCitations(_ session: LanguageModelSession) async throws -> String {
    let prompt = Prompt {
        "Summarize what these sources say."
        Citation(content: ["Atlas of Rivers", "River Towns"])
    }
    return try await session.respond(to: prompt).content
}

/// Tool definitions expose their parameters.
func parameterSummary(of tool: some Tool) -> String {
    let definition = Transcript.ToolDefinition(tool: tool)
    return "\(definition.name): \(definition.parameters.debugDescription)"
}
