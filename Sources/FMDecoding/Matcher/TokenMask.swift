/// A set of allowed token ids, one bit per id, reused across decoding steps.
///
/// ```swift
/// var mask = TokenMask(count: vocabulary.count)
/// matcher.fillMask(into: &mask)
/// if !mask.contains(tokenID) { logits[tokenID] = -.infinity }
/// ```
public struct TokenMask: Sendable, Hashable {
    /// The bits, 64 ids per word; bits beyond ``count`` are always zero.
    public internal(set) var words: [UInt64]
    /// The number of token ids the mask covers.
    public let count: Int

    /// Creates an empty mask for `count` token ids.
    public init(count: Int) {
        self.count = count
        words = [UInt64](repeating: 0, count: (count + 63) / 64)
    }

    /// Whether `id` is allowed.
    public func contains(_ id: Int) -> Bool {
        guard id >= 0, id < count else { return false }
        return words[id >> 6] & (1 << UInt64(id & 63)) != 0
    }

    /// Allows `id`.
    public mutating func insert(_ id: Int) {
        words[id >> 6] |= 1 << UInt64(id & 63)
    }

    /// Forbids `id`.
    public mutating func remove(_ id: Int) {
        words[id >> 6] &= ~(1 << UInt64(id & 63))
    }

    /// Forbids every id.
    public mutating func removeAll() {
        for index in words.indices { words[index] = 0 }
    }

    /// The number of allowed ids.
    public var allowedCount: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// Whether no id is allowed.
    public var isEmpty: Bool { words.allSatisfy { $0 == 0 } }

    /// The allowed ids in increasing order.
    public var allowedIDs: [Int] {
        var result: [Int] = []
        for (index, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                result.append(index << 6 + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
        return result
    }

    /// Overwrites the bits with `source` (same length), through one bulk copy.
    mutating func assign(from source: [UInt64]) {
        precondition(source.count == words.count, "mask size mismatch")
        words.withUnsafeMutableBufferPointer { destination in
            source.withUnsafeBufferPointer { source in
                destination.baseAddress!.update(from: source.baseAddress!, count: source.count)
            }
        }
    }
}
