/// Options that control how the model generates its response to a prompt.
///
/// ```swift
/// let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 64)
/// let response = try await session.respond(to: "Name a fruit.", options: options)
/// ```
///
/// `nil` means the default: random nucleus sampling (threshold 0.9) at temperature 0.7 for the
/// general use case, and greedy sampling for content tagging, whose tags should be repeatable.
public struct GenerationOptions: Sendable, Equatable, Codable {
    /// The sampling strategy.
    @available(*, deprecated, renamed: "samplingMode")
    public var sampling: SamplingMode? {
        get { samplingMode }
        set { samplingMode = newValue }
    }

    /// The sampling strategy; `nil` lets the model choose.
    public var samplingMode: SamplingMode?

    /// Temperature: below 1 makes output more stable, above 1 more varied. Documented as 0…1, but larger
    /// values (Apple's own examples use 2.0) are accepted; negative values behave like 0, and 0 is greedy
    /// whatever ``samplingMode`` says. NaN or an infinity is an error.
    public var temperature: Double?

    /// The most tokens the response may have. When reached, a text response ends early without an error;
    /// a guided-generation response, or tool calls the model had begun (or was required to make), which would be
    /// malformed, throws a parsing error. Must be positive.
    public var maximumResponseTokens: Int?

    /// Whether the model may, must or must not call the session's tools; `nil` means ``ToolCallingMode/allowed``.
    public var toolCallingMode: ToolCallingMode?

    /// Creates generation options.
    @available(*, deprecated, renamed: "init(samplingMode:temperature:maximumResponseTokens:)")
    public init(sampling: SamplingMode?, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.init(samplingMode: sampling, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
    }

    /// Creates generation options.
    ///
    /// - Parameters:
    ///   - samplingMode: How tokens are chosen; `nil` for the model's default.
    ///   - temperature: The sampling temperature; `nil` for the model's default.
    ///   - maximumResponseTokens: The most tokens the response may have.
    public init(samplingMode: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.samplingMode = samplingMode
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
    }

    /// Creates generation options with a tool-calling mode.
    public init(
        samplingMode: SamplingMode? = nil,
        temperature: Double? = nil,
        maximumResponseTokens: Int? = nil,
        toolCallingMode: ToolCallingMode?
    ) {
        self.init(samplingMode: samplingMode, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
        self.toolCallingMode = toolCallingMode
    }

    private enum CodingKeys: String, CodingKey {
        // `sampling` is the key this library has always written.
        case samplingMode = "sampling", temperature, maximumResponseTokens, toolCallingMode
    }
}

extension GenerationOptions {
    /// How the next token is chosen from the model's probability distribution.
    public struct SamplingMode: Sendable, Equatable, Codable {
        /// The sampling strategy.
        public let kind: Kind

        /// A sampling strategy.
        public enum Kind: Sendable, Equatable, Codable {
            /// The most likely token.
            case greedy
            /// A random token among the `k` most likely.
            case top(k: Int, seed: UInt64?)
            /// A random token among the most likely ones whose probabilities add up to `threshold`.
            case nucleus(threshold: Double, seed: UInt64?)
        }

        /// The nucleus of the default sampling, which a request that leaves the mode unset samples from.
        package static let defaultProbabilityThreshold = 0.9

        /// Always picks the most likely token: the same input gives the same output. On Linux the thread count
        /// and the texts evaluated together move the last bits of the model's sums, so a near-tie can go the other
        /// way on a busy machine or in a batch; `FM_THREADS` fixes the thread count where runs must repeat bit for bit.
        public static var greedy: SamplingMode { SamplingMode(kind: .greedy) }

        /// Samples from the `k` most likely tokens (at least 1: a request with fewer throws); a seed makes the
        /// choice reproducible.
        public static func random(top k: Int, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(kind: .top(k: k, seed: seed))
        }

        /// Samples from the smallest set of likely tokens whose probabilities add up to `probabilityThreshold`
        /// (0…1: a request with another value throws); a seed makes the choice reproducible.
        public static func random(probabilityThreshold: Double, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(kind: .nucleus(threshold: probabilityThreshold, seed: seed))
        }

        private enum CodingKeys: String, CodingKey {
            // `mode` is the key this library has always written.
            case kind = "mode"
        }
    }

    /// Whether the model may call tools in a request.
    ///
    /// ```swift
    /// // Make the model look the weather up before it answers.
    /// let options = GenerationOptions(toolCallingMode: .required)
    /// ```
    public struct ToolCallingMode: Sendable, Equatable, Codable {
        /// The mode.
        public enum Kind: Sendable, Hashable, Codable {
            /// The model chooses between calling tools and answering.
            case allowed
            /// The model calls at least one tool before it answers.
            case required
            /// The model answers without calling tools.
            case disallowed
        }

        /// The mode.
        public var kind: Kind

        /// The model chooses between calling tools and answering.
        public static let allowed = ToolCallingMode(kind: .allowed)
        /// The model calls at least one tool before it answers.
        public static let required = ToolCallingMode(kind: .required)
        /// The model answers without calling tools.
        public static let disallowed = ToolCallingMode(kind: .disallowed)
    }
}
