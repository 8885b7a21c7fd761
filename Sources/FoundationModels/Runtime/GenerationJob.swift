import FMDecoding
import FMLlama

/// Everything one model turn needs, independent of the public API types.
struct GenerationJob: Sendable {
    /// The conversation rendered as chat messages, ending with the user's turn.
    var messages: [ChatMessage]
    /// How tokens are chosen.
    var sampling: SamplingParameters
    /// The most tokens the response may have.
    var maximumTokens: Int?
    /// The grammar the response must follow, or `nil` for free text.
    var constraint: TokenConstraint?
    /// Where greedy decoding scores whole candidate values instead of first tokens.
    var choicePoints: ChoicePoints?
}

/// Why generation stopped.
enum GenerationStop: Sendable, Equatable {
    /// The model ended its turn (or the constrained value is complete).
    case finished
    /// `maximumResponseTokens` was reached.
    case maximumTokens
}

/// The result of one model turn.
struct GenerationOutcome: Sendable {
    /// The response bytes (UTF-8; for constrained output, the JSON text).
    var bytes: [UInt8]
    /// Why generation stopped.
    var stop: GenerationStop
    /// Tokens in the rendered prompt.
    var promptTokens: Int
    /// Prompt tokens found in the KV cache and not evaluated again.
    var reusedTokens: Int
    /// Tokens the model sampled.
    var sampledTokens: Int
    /// Tokens appended because the grammar allowed nothing else.
    var forcedTokens: Int
    /// Seconds until the prompt was evaluated.
    var prefillSeconds: Double = 0
    /// Seconds spent generating after that.
    var decodeSeconds: Double = 0

    var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// A failure inside the generation loop, mapped to `GenerationError` by the session.
enum GenerationFailure: Error, Sendable {
    case contextOverflow(String)
    case truncated(String)
    case runtime(String)
    case cancelled
}
