extension LanguageModelFeedback {
    /// A problem with a response.
    public struct Issue: Sendable, Codable {
        /// The kind of problem.
        public enum Category: String, CaseIterable, Equatable, Hashable, Sendable, Codable {
            /// The response was not helpful.
            case unhelpful
            /// The response was longer than needed.
            case tooVerbose
            /// The response ignored the instructions.
            case didNotFollowInstructions
            /// The response was wrong — you asked how to make a pizza, and the model suggested glue.
            case incorrect
            /// The response showed a stereotype or bias.
            case stereotypeOrBias
            /// The response was suggestive or sexual.
            case suggestiveOrSexual
            /// The response was vulgar or offensive.
            case vulgarOrOffensive
            /// The guardrails blocked a harmless request.
            case triggeredGuardrailUnexpectedly
        }

        // Internal, as in Apple's declaration, which exposes only the initializer.
        /// The kind of problem.
        let category: Category
        /// A description of the problem.
        let explanation: String?

        /// Creates an issue.
        public init(category: Category, explanation: String? = nil) {
            self.category = category
            self.explanation = explanation
        }
    }
}
