@testable import FMLlama
import Testing

@Suite("LlamaContext KV-cache reuse and decoding")
struct LlamaContextTests {
    private func greedy(_ context: LlamaContext, prompt: [Int32], count: Int) throws -> [Int32] {
        try context.prepare(prompt)
        var output: [Int32] = []
        for _ in 0..<count {
            let token = context.withLogits { TokenSampler.argmax($0, allowed: nil)! }
            output.append(token)
            try context.evaluate([token])
        }
        return output
    }

    @Test func greedyDecodingIsDeterministicAcrossContexts() throws {
        let model = try TestModel.load()
        let prompt = try model.tokenize(model.renderChat([ChatMessage(role: "user", content: "Name three colors.")], addAssistantPrefix: true))
        let first = try greedy(model.makeContext(contextLength: 512), prompt: prompt, count: 12)
        let second = try greedy(model.makeContext(contextLength: 512), prompt: prompt, count: 12)
        #expect(first == second)
    }

    @Test func preparingReusesTheLongestCachedPrefix() throws {
        let model = try TestModel.load()
        let context = try model.makeContext(contextLength: 512)
        let base = try model.tokenize("The quick brown fox jumps over the lazy dog.")
        #expect(try context.prepare(base) == 0)
        let extended = base + (try model.tokenize(" Again and again."))
        #expect(try context.prepare(extended) == base.count)
        #expect(try context.prepare(extended) == extended.count - 1, "an identical prompt re-evaluates only its last token")
        #expect(context.cachedTokens[0] == extended)
    }

    @Test func reusedPrefixGivesTheSameLogitsAsAFreshPrefill() throws {
        let model = try TestModel.load()
        let a = try model.tokenize("Once upon a time there was a small")
        let b = try model.tokenize(" robot who loved")
        let warm = try model.makeContext(contextLength: 256)
        try warm.prepare(a)
        try warm.prepare(a + b)
        let cold = try model.makeContext(contextLength: 256)
        try cold.prepare(a + b)
        let warmBest = warm.withLogits { TokenSampler.argmax($0, allowed: nil) }
        let coldBest = cold.withLogits { TokenSampler.argmax($0, allowed: nil) }
        #expect(warmBest == coldBest)
    }

    @Test func promptsLongerThanOneBatchArePrefilledInChunks() throws {
        let model = try TestModel.load()
        let context = try model.makeContext(contextLength: 1024, batchSize: 32)
        let tokens = try model.tokenize(String(repeating: "A long line of text to prefill. ", count: 20))
        #expect(tokens.count > 100)
        try context.prepare(tokens)
        #expect(context.cachedTokens[0].count == tokens.count)
    }

    @Test func overflowingTheContextThrowsContextFull() throws {
        let model = try TestModel.load()
        let context = try model.makeContext(contextLength: 64)
        let tokens = try model.tokenize(String(repeating: "word ", count: 2000))
        #expect {
            try context.prepare(tokens)
        } throws: { error in
            (error as? LlamaError)?.code == .contextFull
        }
    }

    /// Scoring candidates in a cache with no room left for them is a full context (which the engine answers by
    /// making room), not a failed decode.
    @Test func scoringWithoutRoomThrowsContextFull() throws {
        let model = try TestModel.load()
        let context = try model.makeContext(contextLength: 256, sequences: 4)
        let prompt = Array(try model.tokenize(String(repeating: "word ", count: 400)).prefix(context.contextLength - 4))
        try context.prepare(prompt)
        let continuations = try ["\"alpha beta gamma\"", "\"delta epsilon zeta\"", "\"eta theta iota\""]
            .map { try model.tokenize($0, addSpecial: false, parseSpecial: false) }
        #expect(continuations.allSatisfy { $0.count > 3 })
        #expect {
            _ = try context.tokenLogProbabilities(of: continuations, after: 0)
        } throws: { error in
            (error as? LlamaError)?.code == .contextFull
        }
    }

    @Test func severalSequencesDecodeInOneBatch() throws {
        let model = try TestModel.load()
        let context = try model.makeContext(contextLength: 512, sequences: 2)
        let a = try model.tokenize("Paris is the capital of")
        let b = try model.tokenize("One, two, three,")
        try context.evaluate([(0, a), (1, b)])
        let batchedA = context.withLogits(sequence: 0) { TokenSampler.argmax($0, allowed: nil) }
        let batchedB = context.withLogits(sequence: 1) { TokenSampler.argmax($0, allowed: nil) }
        let single = try model.makeContext(contextLength: 512)
        try single.prepare(a)
        #expect(batchedA == single.withLogits { TokenSampler.argmax($0, allowed: nil) })
        try single.prepare(b)
        #expect(batchedB == single.withLogits { TokenSampler.argmax($0, allowed: nil) })
    }

    @Test func continuationsThatBeginAlikeScoreAsTheyDoAlone() throws {
        let model = try TestModel.load()
        let prompt = try model.tokenize(model.renderChat([ChatMessage(role: "user", content: "Pick a card.")], addAssistantPrefix: true))
        let labels = ["card_arrival", "card_linking", "card_about_to_expire", "cash_withdrawal", "card"]
        let continuations = try labels.map { try model.tokenize("\"" + $0 + "\"", addSpecial: false, parseSpecial: false) }
        let tree = ContinuationTree(continuations: continuations, order: Array(continuations.indices)[...], start: 0,
                                    sequences: Array(1...5), capacity: 512)
        #expect(tree.nodes.count < continuations.map { $0.count - 1 }.reduce(0, +), "the labels share entries")
        let context = try model.makeContext(contextLength: 512, sequences: 6)
        try context.prepare(prompt)
        let together = try context.tokenLogProbabilities(of: continuations, after: 0)
        let emptied = context.cachedTokens[1...].allSatisfy { $0.isEmpty }
        #expect(emptied, "the spare sequences are emptied")
        for (continuation, shared) in zip(continuations, together) {
            try context.prepare(prompt)
            let alone = try context.tokenLogProbabilities(of: [continuation], after: 0)[0]
            #expect(shared.count == continuation.count)
            #expect(zip(shared, alone).allSatisfy { abs($0 - $1) < 1e-3 }, "\(shared) against \(alone)")
        }
    }
}
