import Foundation

extension SystemLanguageModel {
    /// How many tokens something takes; the value ``SystemLanguageModel/tokenUsage(for:tools:)`` and its
    /// siblings return (the spelling used by third-party code and books, beside Apple's `tokenCount(for:)`).
    public struct TokenUsage: Sendable, Equatable {
        /// The number of tokens.
        public let tokenCount: Int

        /// Creates a usage value.
        public init(tokenCount: Int) {
            self.tokenCount = tokenCount
        }

        /// The share of a context window these tokens take, formatted as a percentage (for example `"12%"`).
        public func formattedPercent(ofContextSize contextSize: Int) -> String {
            let fraction = contextSize > 0 ? Double(tokenCount) / Double(contextSize) : 0
            return fraction.formatted(.percent.precision(.fractionLength(0)))
        }
    }
}
