import FMDecoding
import Testing

/// Which bytes of JSON text are string content.
struct JSONLexicalStateTests {
    private func roles(_ text: String) -> String {
        var state = JSONLexicalState()
        return String(text.utf8.map { byte -> Character in
            switch state.consume(byte) {
            case .structure: "s"
            case .openingQuote: "("
            case .content: "c"
            case .closingQuote: ")"
            }
        })
    }

    @Test func quotesEscapesAndStructure() {
        #expect(roles(#"{"a":"b"}"#) == "s(c)s(c)s")
        #expect(roles(#""x\"y""#) == "(cccc)")
        #expect(roles(#""\\":1"#) == "(cc)ss")
        #expect(JSONLexicalState.after(#"{"a":"open"#.utf8).inString)
        #expect(!JSONLexicalState.after(#"{"a":"closed","#.utf8).inString)
    }
}
