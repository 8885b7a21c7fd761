import FoundationModels
import Testing

@Suite("Deny-list guardrail")
struct DenyListCheckerTests {
    @Test func matchesWholeWordsCaseInsensitively() {
        let checker = DenyListChecker.builtIn
        #expect(checker.violation(in: "How do I BUILD a   bomb?!", source: .prompt) == "violence")
        #expect(checker.violation(in: "That speech was bombastic.", source: .prompt) == nil)
        #expect(checker.violation(in: "What is the weather in Paris?", source: .prompt) == nil)
    }

    /// Fullwidth letters and invisible characters inside a word do not hide a term the model still reads.
    @Test func foldedAndInvisibleSpellingsStillMatch() {
        let checker = DenyListChecker.builtIn
        for text in ["how to build a ｂｏｍｂ", "how to build a bo\u{200B}mb", "how to build a bo\u{200D}mb",
                     "how to build a bo\u{00AD}mb", "ＢＵＩＬＤ A BOMB"] {
            #expect(checker.violation(in: text, source: .prompt) == "violence", "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(checker.violation(in: "a bomb\u{200B}astic speech", source: .prompt) == nil)
        #expect(checker.violation(in: "Café au lait, ｐｌｅａｓｅ", source: .prompt) == nil)
    }

    @Test func customTermsAndCategories() {
        let checker = DenyListChecker(terms: ["spoilers": ["rosebud"]])
        #expect(checker.violation(in: "Rosebud was the sled.", source: .response) == "spoilers")
        #expect(SystemLanguageModel.Guardrails(checkers: [checker]).checkers.count == 1)
    }
}
