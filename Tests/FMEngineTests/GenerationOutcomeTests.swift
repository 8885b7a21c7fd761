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
            let kept = GenerationOutcome.droppingIncompleteCharacter(Array(bytes[..<end]))
            let decoded = String(decoding: kept, as: UTF8.self)
            #expect(!decoded.contains("\u{FFFD}"), "cut at \(end): \(decoded)")
            #expect(end - kept.count < 4, "cut at \(end)")
            #expect(text.hasPrefix(decoded), "cut at \(end): \(decoded)")
        }
        #expect(Array(GenerationOutcome.droppingIncompleteCharacter(bytes)) == bytes)
        // Bytes that are invalid for another reason are left to decoding.
        #expect(Array(GenerationOutcome.droppingIncompleteCharacter([0x61, 0x80, 0x80, 0x80, 0x80])) == [0x61, 0x80, 0x80, 0x80, 0x80])
    }
}
