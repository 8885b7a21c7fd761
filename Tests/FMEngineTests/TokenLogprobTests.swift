@testable import FMEngine
import Foundation
import Testing

/// A token's log-probability and the likeliest alternatives, against a direct softmax over random logits.
struct TokenLogprobTests {
    @Test func logprobsAndLeadersMatchADirectSoftmax() {
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<300 {
            let count = Int.random(in: 1...400, using: &generator)
            // Coarse logits make ties common, so equal logits must not confuse the ranking.
            let logits = (0..<count).map { _ in Float(Int.random(in: -40...40, using: &generator)) / 4 }
            let tokenBytes = (0..<count).map { Array("t\($0)".utf8) }
            let token = Int32.random(in: 0..<Int32(count), using: &generator)
            let topCount = Int.random(in: 0...TokenLogprob.maximumTopCount, using: &generator)
            let measured = logits.withUnsafeBufferPointer { TokenLogprob.measure(token, in: $0, topCount: topCount, tokenBytes: tokenBytes) }

            let logPartition = log(logits.reduce(0.0) { $0 + exp(Double($1)) })
            #expect(abs(measured.chosen.logprob - (Double(logits[Int(token)]) - logPartition)) < 1e-4, "trial \(trial)")
            #expect(measured.chosen.bytes == tokenBytes[Int(token)])
            #expect(measured.top.count == min(topCount, count))
            // The leaders are the highest logits, in order, each with its own log-probability.
            let expected = logits.sorted(by: >).prefix(topCount).map { Double($0) - logPartition }
            #expect(zip(measured.top.map(\.logprob), expected).allSatisfy { abs($0 - $1) < 1e-4 }, "trial \(trial)")
            for candidate in measured.top {
                let index = Int(String(decoding: candidate.bytes.dropFirst(), as: UTF8.self))!
                #expect(abs(candidate.logprob - (Double(logits[index]) - logPartition)) < 1e-4)
            }
            #expect(Set(measured.top.map(\.bytes)).count == measured.top.count, "no token listed twice")
        }
    }

    @Test func aCertainTokenHasLogprobZeroAndNeverAbove() {
        let logits: [Float] = [50, -50, -50]
        let measured = logits.withUnsafeBufferPointer { TokenLogprob.measure(0, in: $0, topCount: 2, tokenBytes: [[1], [2], [3]]) }
        #expect(measured.chosen.logprob == 0)
        #expect(measured.top.map(\.bytes) == [[1], [2]])
        #expect(measured.top[1].logprob < -99)
    }
}
