import FMEngine
import Testing

/// A response cut by the token limit inside a character.
struct GenerationOutcomeTests {
    /// Every cut of a text through its characters drops only the unfinished character, never a whole one, and
    /// decodes without a replacement character.
    @Test func aCutThroughACharacterDropsItsStart() {
        let text = "a é ☃ 😀 z"
        let bytes = Array(text.utf8)
        for end in 0...bytes.count {
            let decoded = GenerationOutcome.text(of: Array(bytes[..<end]))
            #expect(!decoded.contains("\u{FFFD}"), "cut at \(end): \(decoded)")
            #expect(end - decoded.utf8.count < 4, "cut at \(end)")
            #expect(text.hasPrefix(decoded), "cut at \(end): \(decoded)")
        }
        #expect(GenerationOutcome.text(of: bytes) == text)
        // Bytes that are invalid for another reason decode with replacement.
        #expect(GenerationOutcome.text(of: [0x61, 0x80, 0x62]) == "a\u{FFFD}b")
    }
}
