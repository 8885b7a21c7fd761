@testable import FMEngine
import FMDecoding
import Testing

/// The loop guard bans only the token that would start another copy of a cycle inside a string.
struct LoopGuardTests {
    /// Feeds tokens whose text is given; token ids are the texts' positions in `vocabulary`.
    private func guarded(_ texts: [String], vocabulary: [String]) -> LoopGuard {
        var loopGuard = LoopGuard()
        for text in texts {
            loopGuard.observe(Int32(vocabulary.firstIndex(of: text)!), bytes: Array(text.utf8))
        }
        return loopGuard
    }

    let vocabulary = ["{\"a\":\"", "sun", "set", "_", "\"", "x", "\"}", "[", ",", "0"]

    @Test func aCycleWrittenTwiceBansItsFirstToken() {
        let loopGuard = guarded(["{\"a\":\"", "sun", "set", "_", "sun", "set", "_"], vocabulary: vocabulary)
        #expect(loopGuard.bannedTokens == [1])  // "sun"
    }

    @Test func oneCopyIsFine() {
        #expect(guarded(["{\"a\":\"", "sun", "set", "_", "sun", "set"], vocabulary: vocabulary).bannedTokens.isEmpty)
    }

    @Test func aSingleTokenMayRepeatThreeTimes() {
        #expect(guarded(["{\"a\":\"", "x", "x", "x"], vocabulary: vocabulary).bannedTokens.isEmpty)
        #expect(guarded(["{\"a\":\"", "x", "x", "x", "x"], vocabulary: vocabulary).bannedTokens == [5])
    }

    /// Long cycles, such as a 17-digit number copied over and over, are caught up to the guard's bound.
    @Test(arguments: [17, 100, LoopGuard.longestPeriod])
    func aLongCycleWrittenTwiceBansItsFirstToken(period: Int) {
        let words = (0..<LoopGuard.longestPeriod + 1).map { "w\($0)" }
        let vocabulary = ["{\"a\":\""] + words
        let cycle = Array(words.prefix(period))
        #expect(guarded(["{\"a\":\""] + cycle + cycle.dropLast(), vocabulary: vocabulary).bannedTokens.isEmpty)
        #expect(guarded(["{\"a\":\""] + cycle + cycle, vocabulary: vocabulary).bannedTokens == [1])
    }

    @Test func aCycleLongerThanTheBoundIsLeftAlone() {
        let words = (0..<LoopGuard.longestPeriod + 1).map { "w\($0)" }
        let vocabulary = ["{\"a\":\""] + words
        #expect(guarded(["{\"a\":\""] + words + words, vocabulary: vocabulary).bannedTokens.isEmpty)
    }

    @Test func closingTheStringResetsIt() {
        let loopGuard = guarded(["{\"a\":\"", "sun", "set", "sun", "set", "\"}"], vocabulary: vocabulary)
        #expect(loopGuard.bannedTokens.isEmpty)
    }

    @Test func repeatedStructureOutsideStringsIsAllowed() {
        #expect(guarded(["[", "0", ",", "0", ",", "0", ",", "0", ","], vocabulary: vocabulary).bannedTokens.isEmpty)
    }

    @Test func theMaskKeepsAToken() {
        let loopGuard = guarded(["{\"a\":\"", "sun", "set", "sun", "set"], vocabulary: vocabulary)
        var onlyBanned = TokenMask(count: vocabulary.count)
        onlyBanned.insert(1)
        loopGuard.apply(to: &onlyBanned)
        #expect(onlyBanned.contains(1), "the banned token stays when nothing else is allowed")
        var both = onlyBanned
        both.insert(4)
        loopGuard.apply(to: &both)
        #expect(!both.contains(1) && both.contains(4))
    }
}
