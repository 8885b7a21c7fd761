import Foundation

/// Runs the tool calls of one model turn.
enum ToolRunner {
    /// Runs `calls` concurrently and returns their outputs in call order.
    ///
    /// - Throws: ``LanguageModelSession/ToolCallError`` for the first call that fails (its arguments don't
    ///   convert to the tool's `Arguments`, or `call(arguments:)` throws); a call naming no tool throws
    ///   ``GeneratedContent/ParsingError``; a cancelled request throws `CancellationError`.
    static func run(_ calls: [Transcript.ToolCall], tools: [any Tool]) async throws -> [Transcript.ToolOutput] {
        var resolved: [(Int, any Tool, Transcript.ToolCall)] = []
        for (index, call) in calls.enumerated() {
            guard let tool = tools.first(where: { $0.name == call.toolName }) else {
                throw GeneratedContent.ParsingError(rawContent: call.description, debugDescription:
                    "The model called \"\(call.toolName)\", which is not one of the session's tools.")
            }
            resolved.append((index, tool, call))
        }
        if resolved.count == 1, let (_, tool, call) = resolved.first {
            return [try await output(of: tool, for: call)]
        }
        return try await withThrowingTaskGroup(of: (Int, Transcript.ToolOutput).self) { group in
            for (index, tool, call) in resolved {
                group.addTask { (index, try await output(of: tool, for: call)) }
            }
            var outputs: [(Int, Transcript.ToolOutput)] = []
            for try await output in group { outputs.append(output) }
            return outputs.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Calls one tool and records what it returned, wrapping any failure in `ToolCallError` — except when the
    /// request was cancelled, which ends it with `CancellationError` like any cancelled request.
    static func output(of tool: any Tool, for call: Transcript.ToolCall) async throws -> Transcript.ToolOutput {
        do {
            let segments = try await invoke(tool, arguments: call.arguments)
            return Transcript.ToolOutput(id: call.id, toolName: call.toolName, segments: segments)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw LanguageModelSession.ToolCallError(tool: tool, underlyingError: error)
        }
    }

    private static func invoke<T: Tool>(_ tool: T, arguments: GeneratedContent) async throws -> [Transcript.Segment] {
        let output = try await tool.call(arguments: try T.Arguments(arguments))
        if !(output is String), let convertible = output as? any ConvertibleToGeneratedContent {
            return [.structure(.init(schemaName: String(describing: T.Output.self), content: convertible.generatedContent))]
        }
        // The output's own segments, so an image a tool returns reaches a model that reads images (and a model
        // that does not says so) rather than becoming its file name in the text.
        let segments = output.promptRepresentation.transcriptSegments
        return segments.isEmpty ? [.text(.init(content: ""))] : segments
    }
}
