@testable import FMLlama
import Foundation
import Testing

/// The catalogue models `make test` installs, by file: the tiny default of these tests (Q8_0 output weight shared
/// with the embeddings), the default `medium` (a separate Q6_K output weight) and Gemma-3 (a 262,144-token
/// vocabulary).
private let modelFiles: [String] = {
    let environment = ProcessInfo.processInfo.environment
    let cache = TestModel.modelsDirectory
    return [TestModel.path, cache + "qwen2.5-coder-1.5b-instruct.gguf",
            environment["FM_GEMMA_MODEL_PATH"] ?? cache + "gemma-3-270m-q4_k_m.gguf"]
}()

@Suite("Logits computed for allowed tokens only")
struct RestrictedLogitsTests {
    /// Every third token (from `offset`) and every token of `extra`: a mask of the kind a grammar gives, over the
    /// whole vocabulary.
    private func mask(vocabularySize: Int, extra: [Int32], offset: Int = 0) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: (vocabularySize + 63) / 64)
        for token in stride(from: offset, to: vocabularySize, by: 3) { words[token >> 6] |= 1 << UInt64(token & 63) }
        for token in extra { words[Int(token) >> 6] |= 1 << UInt64(Int(token) & 63) }
        return words
    }

    private func allowed(_ words: [UInt64], _ token: Int) -> Bool { words[token >> 6] & (1 << UInt64(token & 63)) != 0 }

    /// Allowed tokens whose restricted logit differs from the full computation's, and other tokens that have one.
    private func differences(_ actual: UnsafeBufferPointer<Float>, from expected: UnsafeBufferPointer<Float>,
                             mask words: [UInt64]) -> (mismatches: Int, outside: Int) {
        var mismatches = 0
        var outside = 0
        for token in 0..<expected.count {
            if allowed(words, token) {
                if actual[token] != expected[token] { mismatches += 1 }
            } else if actual[token] != -.infinity {
                outside += 1
            }
        }
        return (mismatches, outside)
    }

    @Test("Three sequences decoded together: the allowed logits are llama.cpp's own, bit for bit", arguments: modelFiles)
    func allowedLogitsEqualTheFullComputation(path: String) throws {
        let model = try LlamaModel(path: path)
        let prompts = try ["Tags for: a picnic at the beach", "Tags for: fixing a flat bike tyre", "Tags for: sourdough"]
            .map { try model.tokenize(model.renderChat([ChatMessage(role: "user", content: $0)], addAssistantPrefix: true)) }
        let full = try model.makeContext(contextLength: 512, sequences: 3)
        let restricted = try model.makeContext(contextLength: 512, sequences: 3)
        for context in [full, restricted] { try context.evaluate(prompts.enumerated().map { ($0.offset, $0.element) }) }
        #expect(restricted.restrictedOutputCount == 0, "a first evaluation computes every logit")

        // Each sequence's greedy token, then one step with a restriction on every output of the restricted context.
        let next = (0..<3).map { sequence in full.withLogits(sequence: sequence) { TokenSampler.argmax($0, allowed: nil)! } }
        let masks = next.map { mask(vocabularySize: model.vocabularySize, extra: [$0]) }
        for (sequence, words) in masks.enumerated() { restricted.restrictNextLogits(sequence: sequence, to: words) }
        for context in [full, restricted] { try context.evaluate(next.enumerated().map { ($0.offset, [$0.element]) }) }

        // All three end their graphs in a plain product of an unrepacked weight.
        #expect(restricted.restrictedOutputCount == 3, "\(path): the output product was computed in full")
        for sequence in 0..<3 {
            #expect(!restricted.hasFullLogits(sequence: sequence))
            let (mismatches, outside) = full.withLogits(sequence: sequence) { expected in
                restricted.withLogits(sequence: sequence) { differences($0, from: expected, mask: masks[sequence]) }
            }
            #expect(mismatches == 0, "\(path), sequence \(sequence): allowed logits differ from llama.cpp's")
            #expect(outside == 0, "\(path), sequence \(sequence): tokens outside the mask have logits")
        }
    }

    @Test("Several outputs of one sequence, as verifying a draft reads them: each row's allowed logits are llama.cpp's own",
          arguments: modelFiles)
    func everyRowOfAMultiOutputEvaluationIsExact(path: String) throws {
        let model = try LlamaModel(path: path)
        let prompt = try model.tokenize(model.renderChat([ChatMessage(role: "user", content: "Tags for: a picnic at the beach")],
                                                         addAssistantPrefix: true))
        let full = try model.makeContext(contextLength: 512)
        let restricted = try model.makeContext(contextLength: 512)
        for context in [full, restricted] { try context.prepare(prompt) }
        // Five outputs, as verifying the longest draft reads (SequenceDecoder.maximumDraftLength + 1). From eight
        // rows on, llama.cpp's own product over a K-quant weight (Qwen2.5's Q6_K) runs its tiled kernel, which
        // rounds differently (by up to 4e-6).
        let proposed = Array(try model.tokenize(#"{"topics": ["picnic", "beach"]}"#, addSpecial: false, parseSpecial: false).prefix(5))
        // Each row its own mask, as the grammar's state after each proposed token gives.
        let masks = proposed.indices.map { mask(vocabularySize: model.vocabularySize, extra: [proposed[$0]], offset: $0 % 3) }
        restricted.restrictNextLogits(sequence: 0, rows: masks)
        for context in [full, restricted] { try context.evaluate(proposed, sequence: 0, outputs: proposed.count) }

        #expect(restricted.restrictedOutputCount == proposed.count, "\(path): the output product was computed in full")
        #expect(!restricted.hasFullLogits(sequence: 0))
        for row in proposed.indices {
            let (mismatches, outside) = full.withLogits(sequence: 0, row: row) { expected in
                restricted.withLogits(sequence: 0, row: row) { differences($0, from: expected, mask: masks[row]) }
            }
            #expect(mismatches == 0, "\(path), row \(row): allowed logits differ from llama.cpp's")
            #expect(outside == 0, "\(path), row \(row): tokens outside the row's mask have logits")
        }
        // The last row is the sequence's logits, as after any evaluation.
        let last = restricted.withLogits(sequence: 0) { Array($0) }
        #expect(last == restricted.withLogits(sequence: 0, row: proposed.count - 1) { Array($0) })

        // Fewer masks than outputs: the evaluation computes every logit.
        #expect(proposed.count == 5)
        restricted.restrictNextLogits(sequence: 0, rows: [masks[0]])
        try restricted.evaluate(Array(proposed.prefix(2)), sequence: 0, outputs: 2)
        #expect(restricted.hasFullLogits(sequence: 0) && restricted.restrictedOutputCount == proposed.count)
    }

    @Test("Outputs without a restriction keep the whole vocabulary's logits")
    func aPartialRestrictionComputesEverything() throws {
        let model = try TestModel.load()
        let context = try model.makeContext(contextLength: 256, sequences: 2)
        try context.evaluate([(0, try model.tokenize("One two three")), (1, try model.tokenize("Red green blue"))])
        context.restrictNextLogits(sequence: 0, to: mask(vocabularySize: model.vocabularySize, extra: []))
        try context.evaluate([(0, try model.tokenize(" four")), (1, try model.tokenize(" yellow"))])
        #expect(context.restrictedOutputCount == 0)
        #expect(context.hasFullLogits(sequence: 0) && context.hasFullLogits(sequence: 1))
        // A restriction lasts one evaluation: the next one, without any, computes every logit again.
        context.restrictNextLogits(sequence: 0, to: mask(vocabularySize: model.vocabularySize, extra: []))
        try context.evaluate(try model.tokenize(" five"), sequence: 0)
        #expect(context.restrictedOutputCount == 1)
        #expect(!context.hasFullLogits(sequence: 0))
        try context.evaluate(try model.tokenize(" six"), sequence: 0)
        #expect(context.restrictedOutputCount == 1)
        #expect(context.hasFullLogits(sequence: 0))
    }

    @Test("An empty restriction computes no logit: a prefill's output is not read")
    func anEmptyRestrictionComputesNothing() throws {
        let model = try TestModel.load()
        let context = try model.makeContext(contextLength: 256)
        try context.prepare(try model.tokenize("A first evaluation, in full."))
        context.restrictNextLogits(sequence: 0, to: [])
        try context.evaluate(try model.tokenize(" More text."))
        #expect(context.restrictedOutputCount == 1)
        let finite = context.withLogits(sequence: 0) { logits in logits.filter { $0.isFinite }.count }
        #expect(finite == 0)
        // The cache holds the tokens all the same: the next full step matches a context that never restricted.
        try context.evaluate(try model.tokenize(" The end"))
        let reference = try model.makeContext(contextLength: 256)
        try reference.prepare(try model.tokenize("A first evaluation, in full."))
        try reference.evaluate(try model.tokenize(" More text."))
        try reference.evaluate(try model.tokenize(" The end"))
        let logits = context.withLogits(sequence: 0) { Array($0) }
        #expect(logits == reference.withLogits(sequence: 0) { Array($0) })
    }
}
