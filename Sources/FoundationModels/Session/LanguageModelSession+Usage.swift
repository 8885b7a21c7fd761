extension LanguageModelSession {
    /// How many tokens a response — or a whole session — used.
    ///
    /// ```swift
    /// let response = try await session.respond(to: "Name three rivers.")
    /// print(response.usage.input.totalTokenCount, response.usage.output.totalTokenCount)
    /// print(session.usage.totalTokenCount)   // every response so far
    /// ```
    ///
    /// With the on-device model the counts are the engine's: input tokens are the rendered conversation,
    /// cached ones were found in the KV cache, and output tokens are those the model wrote (sampled, or forced
    /// by a schema).
    public struct Usage: Sendable {
        /// Input token counts.
        public var input: Input
        /// Output token counts.
        public var output: Output
        /// Executor-specific details.
        public var metadata: [String: any Sendable & Codable & Equatable]

        /// The total number of tokens involved, combining input and output counts.
        public var totalTokenCount: Int { Self.sum(input.totalTokenCount, output.totalTokenCount) }

        /// Input token counts.
        public struct Input: Sendable {
            /// The total number of input tokens from the transcript.
            public var totalTokenCount: Int
            /// The number of input tokens served from a cache.
            public var cachedTokenCount: Int

            /// Creates an input token count.
            public init(totalTokenCount: Int, cachedTokenCount: Int) {
                self.totalTokenCount = totalTokenCount
                self.cachedTokenCount = cachedTokenCount
            }
        }

        /// Output token counts.
        public struct Output: Sendable {
            /// The total number of tokens generated, reasoning included.
            public var totalTokenCount: Int
            /// The tokens spent on reasoning.
            public var reasoningTokenCount: Int

            /// Creates an output token count.
            public init(totalTokenCount: Int, reasoningTokenCount: Int) {
                self.totalTokenCount = totalTokenCount
                self.reasoningTokenCount = reasoningTokenCount
            }
        }

        /// Creates usage counts.
        public init(input: Input, output: Output, metadata: [String: any Sendable & Codable & Equatable] = [:]) {
            self.input = input
            self.output = output
            self.metadata = metadata
        }

        /// No tokens.
        static let zero = Usage(input: .init(totalTokenCount: 0, cachedTokenCount: 0), output: .init(totalTokenCount: 0, reasoningTokenCount: 0))

        /// The sum of two usages; `other`'s metadata wins on equal keys.
        func adding(_ other: Usage) -> Usage {
            Usage(
                input: .init(totalTokenCount: Self.sum(input.totalTokenCount, other.input.totalTokenCount),
                             cachedTokenCount: Self.sum(input.cachedTokenCount, other.input.cachedTokenCount)),
                output: .init(totalTokenCount: Self.sum(output.totalTokenCount, other.output.totalTokenCount),
                              reasoningTokenCount: Self.sum(output.reasoningTokenCount, other.output.reasoningTokenCount)),
                metadata: metadata.merging(other.metadata) { $1 })
        }

        /// `a + b`, held at the ends of `Int` instead of trapping: counts can come from a remote server.
        static func sum(_ a: Int, _ b: Int) -> Int {
            let (total, overflow) = a.addingReportingOverflow(b)
            return overflow ? (b > 0 ? .max : .min) : total
        }
    }
}
