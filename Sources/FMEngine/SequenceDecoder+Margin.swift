import FMDecoding

extension SequenceDecoder {
    /// How far `token` led the runner-up among the tokens the last ``pickToken(from:)`` allowed, in logits: the
    /// margin by which a greedy decision was made (0 for a tie). `nil` when no other token was allowed.
    func margin(of token: Int32, in logits: UnsafeBufferPointer<Float>) -> Double? {
        var runnerUp = -Float.infinity
        for index in logits.indices where index != Int(token) && logits[index] > runnerUp {
            if let mask, !mask.contains(index) { continue }
            runnerUp = logits[index]
        }
        guard runnerUp > -.infinity else { return nil }
        return Double(logits[Int(token)] - runnerUp)
    }
}
