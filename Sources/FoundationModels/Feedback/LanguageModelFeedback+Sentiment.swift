extension LanguageModelFeedback {
    /// How a person felt about a response.
    public enum Sentiment: String, CaseIterable, Equatable, Hashable, Sendable, Codable {
        /// The response was good.
        case positive
        /// The response was bad.
        case negative
        /// Neither good nor bad.
        case neutral
    }
}
