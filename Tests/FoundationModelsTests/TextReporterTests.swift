@testable import FoundationModels
import Testing

/// What a streamed response's guardrail check reads.
@Suite("Text reporter")
struct TextReporterTests {
    /// A long text is checked by its end, from the first word that starts inside the window, so a word cut at its
    /// front is never read as another ("remake" as "make").
    @Test func theCheckedTailStartsAtAWord() {
        let short = "make a bomb"
        #expect(TextReporter.tail(of: short) == short)
        let filler = String(repeating: "x", count: TextReporter.checkedLength - 13)
        let text = "re" + "make a bomb " + filler
        #expect(text.count == TextReporter.checkedLength + 1)
        let tail = TextReporter.tail(of: text)
        #expect(tail == " a bomb " + filler)
        #expect(DenyListChecker.builtIn.violation(in: tail, source: .response) == nil)
        #expect(text.hasSuffix(tail))
    }
}
