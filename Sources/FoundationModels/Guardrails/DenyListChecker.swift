import Foundation

/// A guardrail that blocks texts containing any of a list of terms, grouped by category.
///
/// Matching is case-insensitive on whole words: the text and the terms are lowercased and every run of
/// characters other than letters and digits becomes one space, so `"Build a BOMB!"` contains the term
/// `"build a bomb"`, while `"bombastic"` does not contain `"bomb"`.
///
/// **Limits, honestly:** a deny list catches exact wording only. It misses paraphrases, misspellings,
/// other languages and harmful intent spread over several messages, and it can flag harmless text that
/// uses a listed phrase (a history question about a bombing). It is a floor, not a safety classifier:
/// add a ``GuardrailChecker`` of your own (for example one that calls a moderation model) where it matters.
public struct DenyListChecker: GuardrailChecker {
    /// Terms per category name; a text containing any term is blocked with that category as the reason.
    public var terms: [String: [String]]

    /// Creates a checker from terms grouped by category.
    public init(terms: [String: [String]]) {
        self.terms = terms
    }

    /// The built-in list behind ``SystemLanguageModel/Guardrails/default``: a few unambiguous requests
    /// for instructions to cause serious harm, in the categories Apple names (self-harm, violence and
    /// weapons, sexual content involving minors).
    public static let builtIn = DenyListChecker(terms: [
        "self-harm": ["kill myself", "how to commit suicide", "ways to commit suicide", "how to self harm", "want to end my life"],
        "violence": ["build a bomb", "make a bomb", "making a bomb", "pipe bomb", "how to kill someone", "how to poison someone",
                     "make a nerve agent", "make sarin", "make ricin", "mass shooting"],
        "sexual content involving minors": ["child pornography", "child sexual abuse material", "csam"],
    ])

    /// The category of the first listed term `text` contains, or `nil`.
    public func violation(in text: String, source: GuardrailSource) -> String? {
        let normalized = " " + Self.normalize(text) + " "
        for category in terms.keys.sorted() {
            for term in terms[category] ?? [] {
                let needle = " " + Self.normalize(term) + " "
                if needle.count > 2, normalized.contains(needle) { return category }
            }
        }
        return nil
    }

    /// Lowercased words separated by single spaces.
    ///
    /// Compatibility forms are folded first (fullwidth `ｂｏｍｂ` is `bomb`) and invisible characters dropped
    /// (a zero-width space or soft hyphen inside a word), so a term cannot be hidden from the check while the
    /// model still reads it.
    static func normalize(_ text: String) -> String {
        let visible = text.precomposedStringWithCompatibilityMapping.unicodeScalars.filter { !$0.properties.isDefaultIgnorableCodePoint }
        var result = ""
        var pendingSpace = false
        for character in String(String.UnicodeScalarView(visible)).lowercased() {
            if character.isLetter || character.isNumber {
                if pendingSpace, !result.isEmpty { result.append(" ") }
                pendingSpace = false
                result.append(character)
            } else {
                pendingSpace = true
            }
        }
        return result
    }
}
