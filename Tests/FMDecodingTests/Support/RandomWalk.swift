import FMDecoding

/// Decodes with random "logits": picks uniformly among allowed tokens, increasingly biased toward tokens that
/// close strings, arrays and objects so that walks finish.
struct RandomWalk {
    struct Outcome {
        var finished: Bool
        var bytes: [UInt8]
        var emptyMaskAt: Int?
        var rejectedAllowedToken: Int?
        var steps: Int
        var forcedBytes: Int
        /// A token whose mask bit disagreed with exact acceptance (only checked with `verifyMasks`), or a
        /// difference between the trie-walk mask and the reference walk (only with `compareWithReference`).
        var maskMismatch: String?
    }

    let vocabulary: TokenVocabulary
    let closers: [Int]

    init(vocabulary: TokenVocabulary) {
        self.vocabulary = vocabulary
        let closing = Set(Array("\"]}".utf8))
        closers = (0..<vocabulary.count).filter { id in
            let bytes = vocabulary.bytes(of: id)
            return vocabulary.isUsableInText(id) && !bytes.isEmpty && bytes.count <= 3 && bytes.allSatisfy { closing.contains($0) }
        }
    }

    func run(
        _ constraint: TokenConstraint, rng: inout SeededGenerator, maximumSteps: Int, verifyMasks: Bool = false,
        compareWithReference: Bool = false
    ) -> Outcome {
        var matcher = constraint.makeMatcher()
        var mask = TokenMask(count: vocabulary.count)
        var outcome = Outcome(finished: false, bytes: [], steps: 0, forcedBytes: 0, maskMismatch: nil)
        for step in 0..<maximumSteps {
            outcome.steps = step
            if matcher.isComplete { break }
            let forced = matcher.forcedBytes()
            if !forced.isEmpty {
                precondition(matcher.accept(bytes: forced), "forced bytes rejected")
                outcome.forcedBytes += forced.count
                continue
            }
            if compareWithReference, let mismatch = matcher.maskMismatch() {
                outcome.maskMismatch = mismatch
                outcome.bytes = matcher.generatedBytes
                return outcome
            }
            matcher.fillMask(into: &mask)
            if mask.isEmpty {
                outcome.emptyMaskAt = matcher.generatedBytes.count
                break
            }
            if verifyMasks {
                for id in 0..<vocabulary.count {
                    var copy = matcher
                    var exact = vocabulary.eosTokenIDs.contains(id) ? matcher.canTerminate : copy.accept(token: id)
                    if exact && !mask.contains(id) && !copy.canTerminate {
                        // The mask may refuse a token after which only a repeated unique element could follow.
                        var next = TokenMask(count: vocabulary.count)
                        copy.fillMask(into: &next)
                        if next.isEmpty { exact = false }
                    }
                    if exact != mask.contains(id) {
                        outcome.maskMismatch = "token \(id) \(Array(vocabulary.bytes(of: id))): mask \(mask.contains(id)), exact \(exact)"
                        outcome.bytes = matcher.generatedBytes
                        return outcome
                    }
                }
            }
            let closingBias = Double(step) / Double(maximumSteps) * 1.5
            var token: Int? = nil
            if rng.chance(closingBias) {
                if let eos = vocabulary.eosTokenIDs.first(where: { mask.contains($0) }), rng.chance(0.5) {
                    token = eos
                } else {
                    let allowed = closers.filter { mask.contains($0) }
                    token = allowed.randomElement(using: &rng)
                }
            }
            if token == nil {
                var id = Int.random(in: 0..<vocabulary.count, using: &rng)
                while !mask.contains(id) { id = (id + 1) % vocabulary.count }
                token = id
            }
            if !matcher.accept(token: token!) {
                outcome.rejectedAllowedToken = token
                break
            }
            if matcher.isTerminated { break }
        }
        outcome.finished = matcher.isComplete || matcher.isTerminated
        outcome.bytes = matcher.generatedBytes
        return outcome
    }
}
