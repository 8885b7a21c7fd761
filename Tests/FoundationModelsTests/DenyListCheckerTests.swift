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

    @Test func customTermsAndCategories() {
        let checker = DenyListChecker(terms: ["spoilers": ["rosebud"]])
        #expect(checker.violation(in: "Rosebud was the sled.", source: .response) == "spoilers")
        #expect(SystemLanguageModel.Guardrails(checkers: [checker]).checkers.count == 1)
    }
}
