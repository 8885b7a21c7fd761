/// A custom content check for ``SystemLanguageModel/Guardrails`` (a Linux addition beside Apple's API).
///
/// Apple's guardrails are a model-based classifier the system updates on its own; Linux has none, so the
/// checks are explicit and yours to configure. A checker sees each text the session checks and returns why
/// it is blocked, or `nil` to let it through.
///
/// A text response is also checked while it is generated: the checker sees the end of the partial text (its
/// last 512 characters, from a word's start, up to a word's end; a run of more than 32 letters without a break,
/// as in scripts written without spaces, as it grows), and a stream stops before the word that completes what it
/// blocks. A finished response is checked whole, so a rule about the whole text (its length, say) decides there;
/// one cut by the end of the context window is checked by its end.
///
/// ```swift
/// struct NoSpoilers: GuardrailChecker {
///     func violation(in text: String, source: GuardrailSource) -> String? {
///         text.localizedCaseInsensitiveContains("rosebud") ? "spoilers" : nil
///     }
/// }
/// let model = SystemLanguageModel(guardrails: .init(checkers: [DenyListChecker.builtIn, NoSpoilers()]))
/// ```
public protocol GuardrailChecker: Sendable {
    /// Why `text` is blocked — for example the category it falls in — or `nil` if it is allowed.
    func violation(in text: String, source: GuardrailSource) -> String?
}
