import FMReports
import Testing

@Suite struct MarkupTests {
    @Test func escapesMarkupCharacters() {
        #expect(Markup.escape(#"<a href="x">Tom & Jerry's</a>"#) == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;")
        #expect(Markup.escape("plain — ünïcode") == "plain — ünïcode")
    }

    /// A markup character inside a larger user-perceived character (after a prepend mark, before a combining
    /// mark) is escaped too: no raw `<`, `>` or quote survives, whatever surrounds it.
    @Test(arguments: [
        ("\u{600}<a href=//evil.example \u{600}>x\u{600}</a \u{600}>",
         "\u{600}&lt;a href=//evil.example \u{600}&gt;x\u{600}&lt;/a \u{600}&gt;"),
        ("x\"\u{301} style=display:none", "x&quot;\u{301} style=display:none"),
        ("'\u{20DD}&\u{301}", "&#39;\u{20DD}&amp;\u{301}"),
    ])
    func escapesMarkupInsideClusters(text: String, expected: String) {
        let escaped = Markup.escape(text)
        #expect(escaped.unicodeScalars.elementsEqual(expected.unicodeScalars))
        #expect(!escaped.unicodeScalars.contains { "<>\"'".unicodeScalars.contains($0) })
    }

    @Test(arguments: [(3.0, "3"), (3.04, "3"), (3.06, "3.1"), (-2.5, "-2.5"), (Double.nan, "0"), (1e3, "1000")])
    func numbers(value: Double, expected: String) {
        #expect(Markup.number(value) == expected)
    }

    @Test func percentagesAndTicks() {
        #expect(Markup.percent(0.625) == "62.5%")
        #expect(Markup.tick(0.4, percent: true) == "40%")
        #expect(Markup.tick(20) == "20")
        #expect(Markup.tick(0.25) == "0.25")
    }

    @Test func labelsKeepTheirFullTextWhenShortened() {
        #expect(Markup.label("spam", full: "spam", attributes: "class=\"row-label\"") == "<text class=\"row-label\" data-label=\"spam\">spam</text>")
        let shortened = Markup.label("top_up…", full: "top_up_by_card", attributes: "class=\"row-label\"")
        #expect(shortened.contains("<title>top_up_by_card</title>"))
        #expect(shortened.contains("data-label=\"top_up_by_card\">top_up…</text>"))
    }
}
