@testable import FMEngine
import FMDecoding
import Testing

/// The repetition guard closes a container after two identical members, and only then.
struct RepetitionGuardTests {
    /// A vocabulary of JSON pieces; a token's id is its index.
    let vocabulary: [String] = [
        ",", "]", "},", "}", "{\"a\":1", "{\"a\":2", "\"x\"", "\"y\"", "0", "[", "{", "\"k\":", "\"v\"", ", ", "}]",
        "\"x\",", "1,",
    ]

    private var separatorTokens: [Int32] {
        vocabulary.indices.filter { vocabulary[$0].contains(",") }.map(Int32.init)
    }

    /// The tokens of `vocabulary` the guard still allows after `written`, starting from a mask of all of them.
    private func allowed(after written: [String]) -> Set<String> {
        var repetitionGuard = RepetitionGuard()
        for text in written { repetitionGuard.observe(Array(text.utf8)) }
        var mask = TokenMask(count: vocabulary.count)
        for index in vocabulary.indices { mask.insert(index) }
        repetitionGuard.apply(to: &mask, tokenBytes: vocabulary.map { Array($0.utf8) }, separatorTokens: separatorTokens)
        return Set(mask.allowedIDs.map { vocabulary[$0] })
    }

    private var everything: Set<String> { Set(vocabulary) }

    @Test func twoIdenticalObjectsInARowCloseTheArray() {
        let left = allowed(after: ["[", "{\"a\":1", "},", "{\"a\":1", "}"])
        #expect(!left.contains(","))
        #expect(!left.contains(", "))
        #expect(left.contains("]"))
    }

    @Test func aTokenThatClosesTheSecondCopyAndAddsASeparatorIsBanned() {
        let left = allowed(after: ["[", "{\"a\":1", "},", "{\"a\":1"])
        #expect(!left.contains("},"))
        #expect(left.contains("}"))
        #expect(left.contains("}]"))
    }

    @Test func differentElementsMayGoOn() {
        #expect(allowed(after: ["[", "{\"a\":1", "},", "{\"a\":2", "}"]) == everything)
        #expect(allowed(after: ["[", "\"x\"", ",", "\"y\""]) == everything)
    }

    @Test func oneCopyIsFine() {
        #expect(allowed(after: ["[", "{\"a\":1", "}"]) == everything)
    }

    @Test func identicalStringsCountLikeObjects() {
        let left = allowed(after: ["[", "\"x\",", "\"x\""])
        #expect(!left.contains(","))
        #expect(left.contains("]"))
    }

    @Test func repeatedNumbersAreOrdinaryData() {
        #expect(allowed(after: ["[", "0", ",", "0", ",", "0"]) == everything)
    }

    @Test func anObjectStopsAfterTwoIdenticalValues() {
        let left = allowed(after: ["{", "\"k\":", "\"v\"", ",", "\"k\":", "\"v\""])
        #expect(!left.contains(","))
        #expect(left.contains("}"))
    }

    @Test func nestedRepeatsAreSeenInsideTheInnerContainer() {
        // The outer array's elements differ so far; the inner array repeats "x".
        let left = allowed(after: ["[", "[", "\"x\"", ",", "\"x\""])
        #expect(!left.contains(","))
        #expect(left.contains("]"))
    }

    @Test func theSeparatorStaysWhenNothingElseIsAllowed() {
        var repetitionGuard = RepetitionGuard()
        for text in ["[", "{\"a\":1", "},", "{\"a\":1", "}"] { repetitionGuard.observe(Array(text.utf8)) }
        var mask = TokenMask(count: vocabulary.count)
        mask.insert(0)  // "," only, as under minItems
        repetitionGuard.apply(to: &mask, tokenBytes: vocabulary.map { Array($0.utf8) }, separatorTokens: separatorTokens)
        #expect(mask.allowedIDs == [0])
    }

    @Test func commasInsideStringsAreNotSeparators() {
        // "x," inside a string value: the member is still being written, nothing repeats yet.
        #expect(allowed(after: ["[", "\"x\"", ",", "\"x,"]) == everything)
    }

    @Test func unbalancedTextDoesNotCrash() {
        #expect(allowed(after: ["}", "]", ",", "}"]) == everything)
    }
}
