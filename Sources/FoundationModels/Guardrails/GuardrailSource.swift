/// Where a text a guardrail checks comes from.
public enum GuardrailSource: Sendable, Hashable {
    /// A prompt (input).
    case prompt
    /// The output of a tool, fed back to the model (input).
    case toolOutput
    /// The model's response (output).
    case response
}
