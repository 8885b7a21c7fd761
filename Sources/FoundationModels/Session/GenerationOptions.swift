/// Options that control how the model generates its response to a prompt.
///
/// ```swift
/// let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 64)
/// let response = try await session.respond(to: "Name a fruit.", options: options)
/// ```
///
/// `nil` means the default: random nucleus sampling (threshold 0.9) at temperature 0.7 for the
/// general use case, and greedy sampling for content tagging, whose tags should be repeatable.
public struct GenerationOptions: Sendable, Equatable, Codable {
    /// The sampling strategy.
    public var sampling: SamplingMode?

    /// Temperature: below 1 makes output more stable, above 1 more varied. Documented as 0…1, but larger
    /// values (Apple's own examples use 2.0) are accepted; negative values behave like 0.
    public var temperature: Double?

    /// The most tokens the response may have. When reached, a text response ends early without an error;
    /// a guided-generation response, which would be malformed, throws
    /// ``LanguageModelSession/GenerationError/decodingFailure(_:)``. Must be positive.
    public var maximumResponseTokens: Int?

    /// Creates generation options.
    public init(sampling: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.sampling = sampling
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
    }
}

extension GenerationOptions {
    /// How the next token is chosen from the model's probability distribution.
    public struct SamplingMode: Sendable, Equatable, Codable {
        enum Mode: Sendable, Equatable, Codable {
            case greedy
            case top(k: Int, seed: UInt64?)
            case nucleus(threshold: Double, seed: UInt64?)
        }

        let mode: Mode

        /// Always picks the most likely token: the same input always gives the same output.
        public static var greedy: SamplingMode { SamplingMode(mode: .greedy) }

        /// Samples from the `k` most likely tokens; a seed makes the choice reproducible.
        public static func random(top k: Int, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(mode: .top(k: k, seed: seed))
        }

        /// Samples from the smallest set of likely tokens whose probabilities add up to `probabilityThreshold`
        /// (0…1); a seed makes the choice reproducible.
        public static func random(probabilityThreshold: Double, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(mode: .nucleus(threshold: probabilityThreshold, seed: seed))
        }
    }
}
