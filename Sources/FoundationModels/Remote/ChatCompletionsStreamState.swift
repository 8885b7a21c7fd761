/// What a streamed completion has delivered so far: text and reasoning to pass on at once, tool calls assembled
/// from their pieces, usage, and the server's identifiers.
///
/// Pure bookkeeping, separate from the network, so it can be tested with recorded chunks.
struct ChatCompletionsStreamState: Sendable {
    /// Output to pass on as it arrives.
    enum Output: Sendable, Equatable {
        case text(String)
        case reasoning(String)
    }

    /// A tool call being assembled.
    struct ToolCall: Sendable, Equatable {
        var id: String
        var name: String
        var arguments: String
    }

    /// The calls by their index in the stream, in the order they started.
    private(set) var toolCalls: [ToolCall] = []
    private var toolCallIndex: [Int: Int] = [:]
    /// All response text so far.
    private(set) var text = ""
    private(set) var usage: ChatCompletionsChunk.Usage?
    private(set) var finishReason: String?
    private(set) var completionID: String?
    private(set) var model: String?
    /// How many chunks carried text, the stand-in for a token count until the server reports usage.
    private(set) var textChunks = 0

    /// Takes in one chunk; returns the text and reasoning it carried.
    ///
    /// - Throws: ``ChatCompletionsError/httpError(status:message:)`` for an error reported inside the stream.
    mutating func apply(_ chunk: ChatCompletionsChunk) throws -> [Output] {
        if let error = chunk.error {
            throw ChatCompletionsError.httpError(status: error.code ?? 500, message: error.message)
        }
        if completionID == nil { completionID = chunk.id }
        if model == nil { model = chunk.model }
        if let usage = chunk.usage { self.usage = usage }
        var outputs: [Output] = []
        // Only the first choice is asked for (no `n`); any other is ignored.
        guard let choice = chunk.choices?.first(where: { ($0.index ?? 0) == 0 }) else { return outputs }
        if let reason = choice.finishReason { finishReason = reason }
        guard let delta = choice.delta ?? choice.message else { return outputs }
        if let reasoning = delta.reasoningContent, !reasoning.isEmpty { outputs.append(.reasoning(reasoning)) }
        if let content = delta.content, !content.isEmpty {
            text += content
            textChunks += 1
            outputs.append(.text(content))
        }
        for piece in delta.toolCalls ?? [] {
            let index = piece.index ?? toolCallIndex.count
            if let position = toolCallIndex[index] {
                if let id = piece.id, !id.isEmpty { toolCalls[position].id = id }
                if let name = piece.function?.name, !name.isEmpty { toolCalls[position].name = name }
                toolCalls[position].arguments += piece.function?.arguments ?? ""
            } else {
                toolCallIndex[index] = toolCalls.count
                toolCalls.append(ToolCall(id: piece.id ?? "call_\(index)", name: piece.function?.name ?? "",
                                          arguments: piece.function?.arguments ?? ""))
            }
        }
        return outputs
    }
}
