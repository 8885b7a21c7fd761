/// Token counts of the last request of a session, for tests and benchmarks.
package struct GenerationStatistics: Sendable {
    /// Tokens in the rendered prompt (the whole conversation so far).
    package var promptTokens: Int
    /// Prompt tokens found in the KV cache and not evaluated again.
    package var reusedTokens: Int
    /// Tokens the model sampled.
    package var sampledTokens: Int
    /// Tokens appended without sampling because the grammar allowed only them.
    package var forcedTokens: Int
    /// Seconds from the start of the request until the prompt was evaluated.
    package var prefillSeconds: Double
    /// Seconds spent generating after the prompt was evaluated.
    package var decodeSeconds: Double
    /// Each greedy decision's lead over the runner-up, with the response's length in bytes before it — when
    /// ``LanguageModelSession/recordsDecisionMargins`` was set for the request.
    package var margins: [(bytes: Int, margin: Double)] = []
}
