extension SystemLanguageModel {
    /// The safety checks applied to prompts and responses.
    ///
    /// On Linux the checks are the ``checkers`` — by default the documented ``DenyListChecker/builtIn``
    /// list — run on every prompt, every tool output fed back to the model, and every response. A blocked
    /// input or text response throws ``LanguageModelSession/GenerationError/guardrailViolation(_:)``; a
    /// blocked guided-generation response throws ``LanguageModelSession/GenerationError/refusal(_:_:)``,
    /// whose explanation the model writes on request.
    public struct Guardrails: Sendable {
        /// Whether requests that generate a `String` skip the checks.
        let permitsStringTransformations: Bool
        /// The checks to run (a Linux addition).
        public let checkers: [any GuardrailChecker]

        /// Blocks unsafe content in prompts and responses with
        /// ``LanguageModelSession/GenerationError/guardrailViolation(_:)``.
        public static let `default` = Guardrails(checkers: [DenyListChecker.builtIn])

        /// Allows text-to-text transformations of potentially unsafe input (summarising, tagging chat with
        /// profanity). Requests that generate a `String` never throw `guardrailViolation`; guided generation
        /// behaves exactly like ``default``.
        public static let permissiveContentTransformations = Guardrails(
            checkers: [DenyListChecker.builtIn], permissiveContentTransformations: true)

        /// Guardrails with your own checks (a Linux addition); pass `[]` to turn checking off.
        ///
        /// - Parameters:
        ///   - checkers: The checks, run in order; the first violation wins.
        ///   - permissiveContentTransformations: Whether `String` requests skip the checks, as with
        ///     ``permissiveContentTransformations``.
        public init(checkers: [any GuardrailChecker], permissiveContentTransformations: Bool = false) {
            self.checkers = checkers
            self.permitsStringTransformations = permissiveContentTransformations
        }

        /// Why `text` is blocked, or `nil`; nothing is blocked for a permissive `String` request.
        package func violation(in text: String, source: GuardrailSource, isStringRequest: Bool) -> String? {
            if isStringRequest, permitsStringTransformations { return nil }
            for checker in checkers {
                if let reason = checker.violation(in: text, source: source) { return reason }
            }
            return nil
        }
    }
}
