/// How the next token is chosen from the model's logits.
public struct SamplingParameters: Sendable, Hashable {
    /// The selection rule.
    public enum Strategy: Sendable, Hashable {
        /// Always the most likely token.
        case greedy
        /// A random token among the `k` most likely.
        case topK(Int)
        /// A random token among the most likely ones whose probabilities add up to the threshold.
        case nucleus(Double)
    }

    /// The selection rule.
    public var strategy: Strategy
    /// Divides the logits before sampling: below 1 sharpens, above 1 flattens; 0 means greedy.
    public var temperature: Double
    /// Seeds the random generator; `nil` draws a fresh seed.
    public var seed: UInt64?

    /// Creates sampling parameters.
    public init(strategy: Strategy, temperature: Double = 1, seed: UInt64? = nil) {
        self.strategy = strategy
        self.temperature = temperature
        self.seed = seed
    }

    /// Deterministic most-likely-token decoding.
    public static let greedy = SamplingParameters(strategy: .greedy, temperature: 0)
}
