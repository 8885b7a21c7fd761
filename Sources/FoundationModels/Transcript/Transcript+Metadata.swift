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
        if (other as? Value) == value { return true }
        // JSON does not tell 2 from 2.0, so a Double read back from a transcript's JSON form may be an Int;
        // numbers are compared by value.
        if let left = number(value), let right = number(other) { return left == right }
        if let left = value as? [Any], let right = other as? [Any], left.count == right.count {
            let leftNumbers = left.compactMap(number), rightNumbers = right.compactMap(number)
            return leftNumbers.count == left.count && rightNumbers.count == right.count && leftNumbers == rightNumbers
        }
        return false
    }

    private static func number(_ value: Any) -> Double? {
        switch value {
        case let value as Int: Double(value)
        case let value as Double: value
        case let value as Float: Double(value)
        case let value as Int64: Double(value)
        case let value as Int32: Double(value)
        case let value as UInt: Double(value)
        case let value as UInt64: Double(value)
        case let value as UInt32: Double(value)
        default: nil
        }
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
