extension SystemLanguageModel {
    /// The safety checks applied to prompts and responses.
    public struct Guardrails: Sendable {
        enum Kind: Sendable { case `default`, permissiveContentTransformations }
        let kind: Kind

        /// Blocks unsafe content in prompts and responses with
        /// ``LanguageModelSession/GenerationError/guardrailViolation(_:)``.
        public static let `default` = Guardrails(kind: .default)

        /// Allows text-to-text transformations of potentially unsafe input (summarising, tagging chat with
        /// profanity). Requests that generate a `String` never throw `guardrailViolation`; guided generation
        /// behaves exactly like ``default``.
        public static let permissiveContentTransformations = Guardrails(kind: .permissiveContentTransformations)
    }
}
