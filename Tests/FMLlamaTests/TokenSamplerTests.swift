@testable import FMLlama
import Testing

@Suite("TokenSampler and UTF8Accumulator (pure logic)")
struct TokenSamplerTests {
    let logits: [Float] = [0.1, 3.0, 2.9, -1, 0.5, 2.0, 1.0, -4]

    @Test func greedyPicksTheArgmax() {
        var sampler = TokenSampler(.greedy)
        #expect(logits.withUnsafeBufferPointer { sampler.sample($0) } == 1)
    }

    @Test func greedyRespectsTheMask() {
        var sampler = TokenSampler(.greedy)
        let mask: [UInt64] = [0b0010_0100] // tokens 2 and 5
        let token = logits.withUnsafeBufferPointer { l in mask.withUnsafeBufferPointer { sampler.sample(l, allowed: $0) } }
        #expect(token == 2)
    }

    /// A positive temperature too small for a Float (1e-46 rounds to 0, 1e-40 is subnormal) samples greedily
    /// instead of dividing by zero and trapping on a NaN total; so do logits that are not finite.
    @Test(arguments: [1e-46, 1e-40, 1e-300])
    func temperaturesThatVanishAsAFloatAreGreedy(temperature: Double) {
        for strategy in [SamplingParameters.Strategy.topK(3), .nucleus(0.9)] {
            var sampler = TokenSampler(.init(strategy: strategy, temperature: temperature, seed: 3))
            #expect(logits.withUnsafeBufferPointer { sampler.sample($0) } == 1)
        }
        var sampler = TokenSampler(.init(strategy: .nucleus(0.9), temperature: 0.7, seed: 3))
        let infinite: [Float] = [0, .infinity, .infinity, 1]
        #expect([1, 2].contains(infinite.withUnsafeBufferPointer { sampler.sample($0) }))
    }

    /// A temperature too large for a Float (1e39) is sampling at its limit, nearly uniform, not the greedy pick
    /// that an infinite Float would have made of it, and each seed draws its own tokens.
    @Test func aTemperatureBeyondAFloatsRangeSamplesAtItsLimit() {
        var picks: Set<Int32> = []
        for seed in UInt64(1)...40 {
            var sampler = TokenSampler(.init(strategy: .topK(8), temperature: 1e39, seed: seed))
            if let token = logits.withUnsafeBufferPointer({ sampler.sample($0) }) { picks.insert(token) }
        }
        #expect(picks.count >= 4, "\(picks.sorted())")
    }

    /// NaN logits (a broken model or quantisation) under a mask: greedy picks an allowed token with a number if
    /// there is one, and sampling returns an allowed token instead of trapping on an empty candidate list.
    @Test func nanLogitsUnderAMaskYieldAnAllowedToken() {
        let nan: [Float] = [.nan, .nan, 0.5, .nan, 2.0]
        let mask: [UInt64] = [0b1_0101]  // tokens 0, 2 and 4
        var greedy = TokenSampler(.greedy)
        #expect(nan.withUnsafeBufferPointer { l in mask.withUnsafeBufferPointer { greedy.sample(l, allowed: $0) } } == 4)
        let allNaN = [Float](repeating: .nan, count: 5)
        for strategy in [SamplingParameters.Strategy.topK(3), .nucleus(0.9)] {
            var sampler = TokenSampler(.init(strategy: strategy, temperature: 0.8, seed: 5))
            let token = allNaN.withUnsafeBufferPointer { l in mask.withUnsafeBufferPointer { sampler.sample(l, allowed: $0) } }
            #expect(token.map { [0, 2, 4].contains($0) } == true)
        }
    }

    @Test func anEmptyMaskYieldsNoToken() {
        var sampler = TokenSampler(.init(strategy: .topK(3), temperature: 0.8, seed: 1))
        let mask: [UInt64] = [0]
        let token = logits.withUnsafeBufferPointer { l in mask.withUnsafeBufferPointer { sampler.sample(l, allowed: $0) } }
        #expect(token == nil)
    }

    @Test(arguments: [SamplingParameters.Strategy.topK(3), .nucleus(0.9)])
    func seededSamplingIsReproducible(_ strategy: SamplingParameters.Strategy) {
        func run() -> [Int32] {
            var sampler = TokenSampler(.init(strategy: strategy, temperature: 1.0, seed: 42))
            return (0..<50).map { _ in logits.withUnsafeBufferPointer { sampler.sample($0)! } }
        }
        #expect(run() == run())
        #expect(Set(run()).count > 1, "random sampling explores more than one token")
    }

    @Test func topKNeverLeavesTheTopK() {
        var sampler = TokenSampler(.init(strategy: .topK(2), temperature: 1.5, seed: 7))
        for _ in 0..<200 {
            let token = logits.withUnsafeBufferPointer { sampler.sample($0)! }
            #expect(token == 1 || token == 2)
        }
    }

    @Test func accumulatorHoldsBackIncompleteCharacters() {
        var accumulator = UTF8Accumulator()
        let bytes = Array("a🙂é".utf8) // 1 + 4 + 2 bytes
        var seen: [String] = []
        for byte in bytes {
            accumulator.append([byte])
            seen.append(accumulator.text)
        }
        #expect(seen == ["a", "a", "a", "a", "a🙂", "a🙂", "a🙂é"])
        #expect(seen.allSatisfy { !$0.contains("\u{FFFD}") })
    }
}
