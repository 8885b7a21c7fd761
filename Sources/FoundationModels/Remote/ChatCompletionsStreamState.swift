import Foundation

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

    /// Whether the request asked for text rather than a value of a schema, which decides the error for an answer
    /// the server blocked.
    let isStringRequest: Bool
    /// The calls by their index in the stream, in the order they started.
    private(set) var toolCalls: [ToolCall] = []
    private var toolCallIndex: [Int: Int] = [:]
    /// The stream index of the call started last.
    private var lastToolCallIndex = 0
    /// The id the server sent for each call, by position in ``toolCalls``: a call whose id an earlier call had
    /// taken got one of its own, and its later pieces still carry the server's.
    private var serverIDs: [Int: String] = [:]
    /// All response text so far.
    private(set) var text = ""
    private(set) var usage: ChatCompletionsChunk.Usage?
    private(set) var finishReason: String?
    /// Whether any chunk carried the answer's choice.
    private(set) var sawChoice = false
    private(set) var completionID: String?
    private(set) var model: String?
    /// How many chunks carried text, the stand-in for a token count until the server reports usage.
    private(set) var textChunks = 0

    /// A state before the first chunk.
    ///
    /// - Parameter isStringRequest: Whether the request asked for text rather than a value of a schema.
    init(isStringRequest: Bool = true) {
        self.isStringRequest = isStringRequest
    }

    /// The calls that name a tool: a piece without a name never started a call.
    var namedToolCalls: [ToolCall] { toolCalls.filter { !$0.name.isEmpty } }

    /// Takes in one chunk; returns the text and reasoning it carried.
    ///
    /// - Throws: The error ``ChatCompletionsServerError/classified(status:isStringRequest:partialText:)`` gives
    ///   for an error reported inside the stream.
    mutating func apply(_ chunk: ChatCompletionsChunk) throws -> [Output] {
        if let error = chunk.error {
            throw error.classified(status: nil, isStringRequest: isStringRequest, partialText: text)
        }
        if completionID == nil { completionID = chunk.id }
        if model == nil { model = chunk.model }
        if let usage = chunk.usage { self.usage = usage }
        var outputs: [Output] = []
        // Only the first choice is asked for (no `n`); any other is ignored.
        guard let choice = chunk.choices?.first(where: { ($0.index ?? 0) == 0 }) else { return outputs }
        sawChoice = true
        if let reason = choice.finishReason, !reason.isEmpty { finishReason = reason }
        guard let delta = choice.delta ?? choice.message else { return outputs }
        if let reasoning = delta.reasoningContent, !reasoning.isEmpty { outputs.append(.reasoning(reasoning)) }
        if let content = delta.content, !content.isEmpty {
            text += content
            textChunks += 1
            outputs.append(.text(content))
        }
        for piece in delta.toolCalls ?? [] {
            let pieceID = piece.id ?? "", pieceName = piece.function?.name ?? ""
            // A piece with no index and no name (and no id, or the id the server gave the last call) goes on with
            // the call before it; only one that names something new starts another.
            let continuesLast = piece.index == nil && pieceName.isEmpty && !toolCalls.isEmpty
                && (pieceID.isEmpty || pieceID == serverIDs[toolCalls.count - 1] || pieceID == toolCalls[toolCalls.count - 1].id)
            let index = piece.index ?? (continuesLast ? lastToolCallIndex : toolCallIndex.count)
            if let position = toolCallIndex[index] {
                if !pieceID.isEmpty, !toolCalls.indices.contains(where: { $0 != position && toolCalls[$0].id == pieceID }) {
                    toolCalls[position].id = pieceID
                }
                if !pieceName.isEmpty { toolCalls[position].name = pieceName }
                toolCalls[position].arguments += piece.function?.arguments ?? ""
            } else {
                toolCallIndex[index] = toolCalls.count
                lastToolCallIndex = index
                // Some servers (old llama-server, LM Studio) send `"id":""`, and some one fixed id for every call;
                // the session tells calls apart by id, so a missing or repeated one is made up.
                let id = pieceID.isEmpty || toolCalls.contains(where: { $0.id == pieceID }) ? uniqueCallID() : pieceID
                if !pieceID.isEmpty { serverIDs[toolCalls.count] = pieceID }
                toolCalls.append(ToolCall(id: id, name: pieceName, arguments: piece.function?.arguments ?? ""))
            }
        }
        return outputs
    }

    /// A call id no call of this response has.
    private func uniqueCallID() -> String {
        var id = Self.randomCallID()
        while toolCalls.contains(where: { $0.id == id }) { id = Self.randomCallID() }
        return id
    }

    /// `call_` and 24 random letters and digits, as OpenAI's ids look.
    private static func randomCallID() -> String {
        let characters: [Character] = (0..<24).map { _ in Self.idCharacters.randomElement()! }
        return "call_" + String(characters)
    }

    private static let idCharacters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

    /// The limit that ended the answer when `finish_reason` is `length`, else `nil`.
    ///
    /// `length` is taken as a limit on the response's tokens: the request's `max_tokens`, or, without one, the
    /// server's own cap (`fm serve`'s `--max-tokens`, llama-server's `-n`, a hosted model's output limit). Servers
    /// also say `length` when a text answer fills the context window, which the reason alone cannot tell apart.
    func responseLimit(maximumTokens: Int?) -> ResponseLimit? {
        finishReason == "length" ? .maximumResponseTokens : nil
    }

    /// Throws when `finish_reason` says the answer was blocked, or cut where it cannot be used, as local generation
    /// does in the same case. A structured answer cut short is left to the schema check, which attaches the limit.
    ///
    /// - Parameter maximumTokens: The request's `max_tokens`, if it sent one.
    /// - Throws: For `content_filter`, ``LanguageModelError/guardrailViolation(_:)`` for text and
    ///   ``LanguageModelError/refusal(_:)`` for a schema. For `length`, ``GeneratedContent/ParsingError`` with the
    ///   ``ResponseLimit`` as its underlying error when a tool call's arguments are not a complete value, or a call
    ///   was begun without its name; a text answer cut by the limit ends early, as local text does.
    func checkEnding(maximumTokens: Int?) throws {
        if finishReason == "content_filter" {
            throw Self.contentFilterError(isStringRequest: isStringRequest, debugDescription:
                "The server's content filter blocked the response (finish_reason content_filter).")
        }
        guard let limit = responseLimit(maximumTokens: maximumTokens) else { return }
        let reached = maximumTokens.map { "max_tokens (\($0))" } ?? "the server's token limit"
        // A call cut before its name would otherwise leave the answer as text, empty or not, without the call.
        if toolCalls.contains(where: \.name.isEmpty) {
            throw GeneratedContent.ParsingError(rawContent: "", underlyingError: limit, debugDescription:
                "A tool call stops before its name (the response reached \(reached)).")
        }
        let calls = namedToolCalls
        if !calls.isEmpty {
            for call in calls {
                let arguments = call.arguments.trimmingCharacters(in: .whitespacesAndNewlines)
                // Empty arguments are `{}` only when the call ended on its own; text that is not JSON at all is
                // kept as a string by the session, as for any call.
                let isCut = arguments.isEmpty || (try? GeneratedContent(json: arguments)).map { !$0.isComplete } == true
                if isCut {
                    throw GeneratedContent.ParsingError(rawContent: arguments, underlyingError: limit, debugDescription:
                        "The arguments of the call to \(call.name) stop before their JSON value ends (the response reached \(reached)): \(arguments)")
                }
            }
        }
    }

    /// The error for an answer the server's filter blocked: for text, a guardrail violation; for a schema, a
    /// refusal, since guided generation has no room for a refusal message (as on the local model).
    static func contentFilterError(isStringRequest: Bool, debugDescription: String) -> LanguageModelError {
        if isStringRequest { return LanguageModelError.guardrailViolation(.init(debugDescription: debugDescription)) }
        return LanguageModelError.refusal(.init(debugDescription: debugDescription))
    }
}
