import Foundation

/// Chooses tokens from logits, optionally restricted by an allow-mask (one bit per token).
///
/// Greedy selection is a single pass over the logits. Random selection first drops tokens whose
/// probability is negligible (more than 10 nats below the best after temperature), so sorting and
/// softmax touch a few hundred candidates instead of the whole vocabulary.
public struct TokenSampler: Sendable {
    /// The parameters in use.
    public let parameters: SamplingParameters
    private var generator: SeededGenerator
    private var candidates: [(token: Int32, logit: Float)] = []

    /// Creates a sampler; a `nil` seed draws one from the system.
    public init(_ parameters: SamplingParameters) {
        self.parameters = parameters
        self.generator = SeededGenerator(seed: parameters.seed ?? UInt64.random(in: .min ... .max))
    }

    /// Picks a token; `nil` only when the mask allows nothing.
    ///
    /// - Parameter allowed: Bit `i % 64` of word `i / 64` set means token `i` may be chosen; `nil` allows all.
    public mutating func sample(_ logits: UnsafeBufferPointer<Float>, allowed: UnsafeBufferPointer<UInt64>? = nil) -> Int32? {
        // A temperature beyond Float's range acts as the largest one, its limit (a draw with almost no preference),
        // rather than becoming infinity, which would pass for greedy decoding below and ignore the seed.
        let temperature = Float(min(parameters.temperature, Double(Float.greatestFiniteMagnitude)))
        // A temperature that rounds to zero (or below the smallest normal Float) as a Float would divide by
        // zero below: it is greedy in all but name.
        if parameters.strategy == .greedy || !(temperature.isNormal && temperature > 0) {
            return Self.argmax(logits, allowed: allowed)
        }
        guard let best = Self.argmax(logits, allowed: allowed) else { return nil }
        // Tokens more than 10 nats below the best (after temperature) carry under 1/22,000 of its
        // probability; dropping them keeps the sort small without changing any likely choice.
        let floor = logits[Int(best)] - 10 * temperature
        candidates.removeAll(keepingCapacity: true)
        if let allowed {
            for wordIndex in 0..<allowed.count where allowed[wordIndex] != 0 {
                var bits = allowed[wordIndex]
                while bits != 0 {
                    let token = wordIndex &* 64 &+ bits.trailingZeroBitCount
                    if token < logits.count, logits[token] >= floor { candidates.append((Int32(token), logits[token])) }
                    bits &= bits &- 1
                }
            }
        } else {
            for token in 0..<logits.count where logits[token] >= floor {
                candidates.append((Int32(token), logits[token]))
            }
        }
        // Logits that are NaN pass no floor: the best allowed token is then the only answer there is.
        guard !candidates.isEmpty else { return best }
        candidates.sort { $0.logit > $1.logit }
        if case .topK(let k) = parameters.strategy, candidates.count > max(k, 1) {
            candidates.removeSubrange(max(k, 1)...)
        }
        let top = candidates[0].logit
        var weights = candidates.map { Double(exp(($0.logit - top) / temperature)) }
        if case .nucleus(let threshold) = parameters.strategy {
            let total = weights.reduce(0, +)
            var cumulative = 0.0
            var keep = weights.count
            for (index, weight) in weights.enumerated() {
                cumulative += weight / total
                if cumulative >= threshold {
                    keep = index + 1
                    break
                }
            }
            weights.removeSubrange(keep...)
        }
        let total = weights.reduce(0, +)
        // Logits that are not finite leave nothing to draw from; the best token is the only sensible answer.
        guard total.isFinite, total > 0 else { return best }
        var draw = Double.random(in: 0..<total, using: &generator)
        for (index, weight) in weights.enumerated() {
            draw -= weight
            if draw < 0 { return candidates[index].token }
        }
        return candidates[weights.count - 1].token
    }

    /// The allowed token with the highest logit; one whose logit is NaN only when every allowed one is.
    public static func argmax(_ logits: UnsafeBufferPointer<Float>, allowed: UnsafeBufferPointer<UInt64>?) -> Int32? {
        var best = -1
        var bestLogit = -Float.infinity
        if let allowed {
            for wordIndex in 0..<allowed.count where allowed[wordIndex] != 0 {
                var bits = allowed[wordIndex]
                while bits != 0 {
                    let token = wordIndex &* 64 &+ bits.trailingZeroBitCount
                    // Any allowed token beats none, and any number beats a NaN.
                    if token < logits.count, best < 0 || logits[token] > bestLogit || (bestLogit.isNaN && !logits[token].isNaN) {
                        bestLogit = logits[token]
                        best = token
                    }
                    bits &= bits &- 1
                }
            }
        } else {
            for index in 0..<logits.count where logits[index] > bestLogit {
                bestLogit = logits[index]
                best = index
            }
        }
        return best >= 0 ? Int32(best) : nil
    }
}
