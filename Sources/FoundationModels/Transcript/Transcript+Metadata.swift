extension Transcript {
    /// Whether two metadata dictionaries hold the same keys with equal values of the same types.
    static func metadataEqual(
        _ lhs: [String: any Codable & Sendable & Equatable], _ rhs: [String: any Codable & Sendable & Equatable]
    ) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs {
            guard let other = rhs[key], isEqual(value, other) else { return false }
        }
        return true
    }

    private static func isEqual<Value: Equatable>(_ value: Value, _ other: Any) -> Bool {
        (other as? Value) == value
    }
}

extension Transcript.Response {
    /// The metadata key under which both executors of this package report why a response ended: `"stop"` (the
    /// model ended it, or a stop string did), `"length"` (the token limit did), or a remote server's own reason.
    package static let finishReasonKey = "finishReason"
    /// The metadata key of a text response's per-token log-probabilities (`[TokenLogprob]`), sent only when the
    /// request asked for them.
    package static let tokenLogprobsKey = "tokenLogprobs"
}
