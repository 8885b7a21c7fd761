@testable import FMLlama
import Foundation
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

    /// The log-probability of every token of `continuation` after `prompt`, read off a plain evaluation.
    private func logProbabilities(of continuation: [Int32], after prompt: [Int32], model: LlamaModel) throws -> [Double] {
        let context = try model.makeContext(contextLength: 256)
        try context.prepare(prompt)
        var scores: [Double] = []
        for (index, token) in continuation.enumerated() {
            scores.append(context.withLogits { logits in
                let maximum = Double(logits.max()!)
                let normalizer = maximum + log(logits.reduce(0) { $0 + exp(Double($1) - maximum) })
                return Double(logits[Int(token)]) - normalizer
            })
            if index < continuation.count - 1 { try context.evaluate([token]) }
        }
        return scores
    }

    @Test func continuationsThatShareLeadingTokensScoreAsTheyDoAlone() throws {
        let model = try TestModel.load()
        let prompt = try model.tokenize("Label the request. Request: my card has not arrived yet. Label:")
        // Shared leading tokens (" card…", " card_payment…"), an exact duplicate, a one-token continuation, and
        // one that shares nothing; more continuations than spare sequences, so several decodes run.
        let texts = [" card_arrival", " card_linking", " card_payment_fee", " card_payment_not_recognised", " card_arrival",
                     " refund", " exchange rate", " cash_withdrawal_charge", " card"]
        let continuations = try texts.map { try model.tokenize($0) }
        #expect(continuations.contains { $0.count == 1 } && continuations.contains { $0.count > 3 })
        let context = try model.makeContext(contextLength: 512, sequences: 4)
        try context.prepare(prompt)
        let batched = try context.tokenLogProbabilities(of: continuations, after: 0)
        #expect(batched[0] == batched[4], "identical continuations get identical scores")
        for (text, (continuation, scores)) in zip(texts, zip(continuations, batched)) {
            let alone = try logProbabilities(of: continuation, after: prompt, model: model)
            #expect(scores.count == continuation.count)
            // Batched and one-token-at-a-time evaluation round differently; a wrong tree (another continuation's
            // tokens in view) moves a log-probability by whole units.
            #expect(zip(scores, alone).allSatisfy { abs($0 - $1) < 0.05 }, "\(text): tree \(scores), alone \(alone)")
        }
    }
}
