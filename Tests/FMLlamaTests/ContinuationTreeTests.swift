@testable import FMLlama
import Testing

@Suite("ContinuationTree: continuations that begin alike share batch entries")
struct ContinuationTreeTests {
    @Test func aCommonBeginningIsOneEntryInEverySequenceThatStartsWithIt() {
        let continuations: [[Int32]] = [[7, 8, 9], [7, 8, 4, 5], [3, 1]]
        let tree = ContinuationTree(continuations: continuations, order: [0, 1, 2], start: 10, sequences: [4, 5, 6], capacity: 64)
        #expect(tree.members == [0, 1, 2])
        #expect(tree.nodes == [
            .init(token: 7, position: 10, sequences: [4, 5]),
            .init(token: 8, position: 11, sequences: [4, 5]),
            .init(token: 4, position: 12, sequences: [5]),
            .init(token: 3, position: 10, sequences: [6]),
        ])
        #expect(tree.reads == [
            .init(continuation: 0, node: 0, next: 8), .init(continuation: 0, node: 1, next: 9),
            .init(continuation: 1, node: 0, next: 8), .init(continuation: 1, node: 1, next: 4), .init(continuation: 1, node: 2, next: 5),
            .init(continuation: 2, node: 3, next: 1),
        ])
    }

    @Test func aDecodeStopsAtTheLastSpareSequence() {
        let tree = ContinuationTree(continuations: [[1, 2], [1, 3], [1, 4]], order: [0, 1, 2], start: 0, sequences: [1, 2], capacity: 64)
        #expect(tree.members == [0, 1])
        #expect(tree.nodes == [.init(token: 1, position: 0, sequences: [1, 2])])
    }

    @Test func aDecodeStopsWhereTheNextContinuationsNewEntriesWouldNotFit() {
        // The second shares one entry and needs two more: three in all fit a capacity of 3; the third needs two more.
        let continuations: [[Int32]] = [[1, 2], [1, 5, 6, 7], [9, 9, 9]]
        let tree = ContinuationTree(continuations: continuations, order: [0, 1, 2], start: 0, sequences: [1, 2, 3], capacity: 3)
        #expect(tree.members == [0, 1])
        #expect(tree.nodes.count == 3)
        let rest = ContinuationTree(continuations: continuations, order: [2], start: 0, sequences: [1, 2, 3], capacity: 3)
        #expect(rest.members == [2])
    }

    @Test func everyReadFollowsItsContinuationAndEveryNodeFollowsItsParent() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let continuations: [[Int32]] = (0..<Int.random(in: 1...12, using: &generator)).map { _ in
                (0..<Int.random(in: 2...6, using: &generator)).map { _ in Int32.random(in: 0..<4, using: &generator) }
            }
            let order = continuations.indices.sorted { continuations[$0].lexicographicallyPrecedes(continuations[$1]) }
            var taken = 0
            while taken < order.count {
                let tree = ContinuationTree(continuations: continuations, order: order[taken...], start: 3,
                                            sequences: Array(1...5), capacity: 8)
                #expect(!tree.members.isEmpty)
                for (slot, member) in tree.members.enumerated() {
                    let path = tree.reads.filter { $0.continuation == member }
                    let continuation = continuations[member]
                    #expect(path.map(\.next) == Array(continuation.dropFirst()))
                    #expect(path.map { tree.nodes[$0.node].token } == Array(continuation.dropLast()))
                    #expect(path.map { tree.nodes[$0.node].position } == (0..<continuation.count - 1).map { Int32(3 + $0) })
                    // Each sequence's entries rise in batch order, as llama.cpp requires.
                    #expect(path.map(\.node) == path.map(\.node).sorted())
                    #expect(path.allSatisfy { tree.nodes[$0.node].sequences.contains(Int32(slot + 1)) })
                }
                #expect(tree.members.count == 1 || tree.nodes.count <= 8)
                taken += tree.members.count
            }
        }
    }
}
