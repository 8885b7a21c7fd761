import FMEngine
import FMLlama
import Testing

/// Stop strings end a growing text where the first one completes, and text that could begin one is held back.
struct StopSequencesTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func aStopStringIsFoundWhereItBeginsEvenWhenItSpansTwoAppends() {
        let stops = StopSequences(["\n\n", "END"])
        #expect(stops.firstMatch(in: bytes("one\n"), searchingFrom: 0) == nil)
        #expect(stops.firstMatch(in: bytes("one\n\ntwo"), searchingFrom: 4) == 3)
        #expect(stops.firstMatch(in: bytes("aEN"), searchingFrom: 0) == nil)
        #expect(stops.firstMatch(in: bytes("aENDb"), searchingFrom: 3) == 1)
    }

    @Test func matchesThatEndedBeforeTheNewBytesWereFoundEarlierAndAreNotReported() {
        let stops = StopSequences(["ab"])
        // Only a match ending at or after index 4 counts: the one at 0 belonged to an earlier search.
        #expect(stops.firstMatch(in: bytes("abxxab"), searchingFrom: 4) == 4)
        #expect(stops.firstMatch(in: bytes("abxxcd"), searchingFrom: 4) == nil)
    }

    @Test func theEarliestStartWinsAmongStringsCompletedByTheSameBytes() {
        let stops = StopSequences(["c", "bc"])
        #expect(stops.firstMatch(in: bytes("abc"), searchingFrom: 2) == 1)
    }

    @Test func emptyStringsStopNothing() {
        let stops = StopSequences(["", ""])
        #expect(stops.isEmpty)
        #expect(stops.firstMatch(in: bytes("anything"), searchingFrom: 0) == nil)
        #expect(stops.heldBack(in: bytes("anything")) == 0)
    }

    @Test func onlyABeginningOfAStopStringIsHeldBack() {
        let stops = StopSequences(["</answer>", "\n\n"])
        #expect(stops.heldBack(in: bytes("text </ans")) == 5)
        #expect(stops.heldBack(in: bytes("text\n")) == 1)
        #expect(stops.heldBack(in: bytes("text <")) == 1)
        #expect(stops.heldBack(in: bytes("text")) == 0)
        #expect(stops.heldBack(in: bytes("")) == 0)
    }

    @Test func multibyteCharactersAreMatchedByTheirBytes() {
        let stops = StopSequences(["é!"])
        let text = bytes("café!")
        #expect(stops.firstMatch(in: text, searchingFrom: 4) == 3)
        // The first byte of "é" alone could begin the stop string.
        #expect(stops.heldBack(in: Array(text.prefix(4))) == 1)
    }

    /// Over random texts cut into random appends: the text is cut where the first stop string completes (the earliest
    /// start among those completed by the same append), and nothing shown along the way goes past that cut.
    @Test func growingTextsAreCutWhereTheFirstStopStringCompletesAndNeverShowMore() {
        var rng = SeededGenerator(seed: 0x5709)
        let alphabet: [UInt8] = Array("abc\n".utf8)
        for _ in 0..<2_000 {
            let stopStrings = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                String(decoding: (0..<Int.random(in: 1...4, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }, as: UTF8.self)
            }
            let stops = StopSequences(stopStrings)
            let text = (0..<Int.random(in: 0...24, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }

            var boundaries: [Int] = []
            var end = 0
            while end < text.count {
                end = min(text.count, end + Int.random(in: 1...3, using: &rng))
                boundaries.append(end)
            }

            var grown: [UInt8] = []
            var shown: [UInt8] = []
            var cut: [UInt8]?
            for boundary in boundaries {
                let searched = grown.count
                grown += text[searched..<boundary]
                if let start = stops.firstMatch(in: grown, searchingFrom: searched) {
                    cut = Array(grown[..<start])
                    break
                }
                let visible = grown.count - stops.heldBack(in: grown)
                #expect(visible >= shown.count)
                shown = Array(grown[..<visible])
            }
            let final = cut ?? grown

            // The reference: the first prefix at the same append boundaries that holds a stop string, cut where
            // the earliest of those it holds begins.
            let expected = boundaries.lazy.compactMap { Self.earliestStop(in: Array(text[..<$0]), stops: stops.sequences) }.first ?? text
            #expect(final == expected, "\(stopStrings) in \(String(decoding: text, as: UTF8.self))")
            #expect(Array(final.prefix(shown.count)) == shown, "shown text goes past the cut")
            for sequence in stops.sequences {
                #expect(!Self.contains(final, sequence))
            }
        }
    }

    /// `text` up to where its earliest stop string begins, or `nil` if it holds none.
    private static func earliestStop(in text: [UInt8], stops: [[UInt8]]) -> [UInt8]? {
        let starts = stops.compactMap { sequence in
            sequence.count <= text.count ? (0...(text.count - sequence.count)).first { Array(text[$0..<($0 + sequence.count)]) == sequence } : nil
        }
        return starts.min().map { Array(text[..<$0]) }
    }

    private static func contains(_ text: [UInt8], _ sequence: [UInt8]) -> Bool {
        guard sequence.count <= text.count else { return false }
        return (0...(text.count - sequence.count)).contains { Array(text[$0..<($0 + sequence.count)]) == sequence }
    }
}
