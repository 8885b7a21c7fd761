import FMDecoding

/// Generates values by walking a grammar's masks with random choices, over a byte-level vocabulary.
///
/// Stands in for a model: it picks uniformly among the allowed tokens, leaning more and more toward tokens that
/// close strings, arrays and objects (and toward ending) so that walks finish.
struct GrammarWalk {
    /// Every byte as a token, a few multi-byte tokens spanning JSON punctuation, and EOS.
    static let vocabulary: TokenVocabulary = {
        var tokens: [[UInt8]] = (0...255).map { [UInt8($0)] }
        tokens += ["\"}", "\"]", "\",\"", "{\"", "\":", "\":\"", "true", "false", "null", "]}", "}]", "12", "0.", "é"]
            .map { Array($0.utf8) }
        tokens.append([])
        return TokenVocabulary(tokens: tokens, eosTokenIDs: [tokens.count - 1])
    }()

    private static let closers: [Int] = (0..<vocabulary.count).filter { id in
        let bytes = vocabulary.bytes(of: id)
        return !bytes.isEmpty && bytes.count <= 2 && bytes.allSatisfy { Array("\"]}".utf8).contains($0) }
    }

    /// A finished value's bytes, or nil when the walk ran out of steps (or hit an empty mask, which is reported).
    static func generate(_ constraint: TokenConstraint, seed: UInt64, maximumSteps: Int = 400) -> Result<[UInt8], WalkFailure>? {
        var rng = SplitMix(state: seed)
        var matcher = constraint.makeMatcher()
        var mask = TokenMask(count: vocabulary.count)
        for step in 0..<maximumSteps {
            if matcher.isComplete { return .success(matcher.generatedBytes) }
            let forced = matcher.forcedBytes()
            if !forced.isEmpty {
                guard matcher.accept(bytes: forced) else { return .failure(.init(description: "forced bytes rejected")) }
                continue
            }
            matcher.fillMask(into: &mask)
            if mask.isEmpty {
                return .failure(.init(description: "empty mask after \(String(decoding: matcher.generatedBytes, as: UTF8.self))"))
            }
            var token: Int?
            if Double(rng.next() % 1000) / 1000 < Double(step) / Double(maximumSteps) * 1.5 {
                if let eos = vocabulary.eosTokenIDs.first(where: { mask.contains($0) }) {
                    token = eos
                } else {
                    token = closers.filter { mask.contains($0) }.randomElement(using: &rng)
                }
            }
            if token == nil {
                var id = Int(rng.next() % UInt64(vocabulary.count))
                while !mask.contains(id) { id = (id + 1) % vocabulary.count }
                token = id
            }
            guard matcher.accept(token: token!) else {
                return .failure(.init(description: "allowed token \(token!) rejected"))
            }
            if matcher.isTerminated { return .success(matcher.generatedBytes) }
        }
        return matcher.isComplete ? .success(matcher.generatedBytes) : nil
    }

    struct WalkFailure: Error, CustomStringConvertible {
        var description: String
    }
}

/// A seeded, reproducible generator (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
