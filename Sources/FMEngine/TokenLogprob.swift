import Foundation

/// A sampled token of a free-text response with its log-probability under the model, and the likeliest tokens
/// at that step (OpenAI's `logprobs`). The probabilities are the model's own, before temperature or any cut.
package struct TokenLogprob: Sendable, Codable, Equatable {
    /// One token and its log-probability.
    package struct Candidate: Sendable, Codable, Equatable {
        /// The token's bytes: its text, which may be part of a character.
        package var bytes: [UInt8]
        /// The natural logarithm of its probability.
        package var logprob: Double
    }

    /// The token the response took.
    package var chosen: Candidate
    /// The likeliest tokens at that step, most likely first.
    package var top: [Candidate]

    /// The most alternatives one step may list, as OpenAI allows (`top_logprobs`).
    package static let maximumTopCount = 20

    /// The log-probability of `token` in `logits` and the `topCount` likeliest tokens, from one pass that finds
    /// the log-partition and keeps the leaders in a small sorted list.
    static func measure(_ token: Int32, in logits: UnsafeBufferPointer<Float>, topCount: Int, tokenBytes: [[UInt8]]) -> TokenLogprob {
        var maximum = -Float.infinity
        for logit in logits where logit > maximum { maximum = logit }
        var sum = 0.0
        var leaders: [(token: Int, logit: Float)] = []
        leaders.reserveCapacity(topCount + 1)
        for index in 0..<logits.count {
            let logit = logits[index]
            sum += Double(exp(logit - maximum))
            guard topCount > 0, leaders.count < topCount || logit > leaders[leaders.count - 1].logit else { continue }
            let position = leaders.firstIndex { logit > $0.logit } ?? leaders.count
            leaders.insert((index, logit), at: position)
            if leaders.count > topCount { leaders.removeLast() }
        }
        let logPartition = Double(maximum) + log(sum)
        func candidate(_ token: Int, _ logit: Float) -> Candidate {
            Candidate(bytes: token < tokenBytes.count ? tokenBytes[token] : [], logprob: min(0, Double(logit) - logPartition))
        }
        return TokenLogprob(chosen: candidate(Int(token), logits[Int(token)]), top: leaders.map { candidate($0.token, $0.logit) })
    }
}
