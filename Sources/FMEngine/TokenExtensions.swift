import FMDecoding

/// For each token, the tokens whose text starts with its text: the candidates for merging across the end
/// of forced text.
///
/// Tokens sorted by their bytes put every extension of a token in the run right after it, so one sort per
/// model answers every query.
struct TokenExtensions: Sendable {
    private let order: [Int32]
    private let position: [Int32]
    private let bytes: [[UInt8]]

    init(tokenBytes: [[UInt8]]) {
        bytes = tokenBytes
        order = tokenBytes.indices.sorted { tokenBytes[$0].lexicographicallyPrecedes(tokenBytes[$1]) }.map(Int32.init)
        var position = [Int32](repeating: 0, count: tokenBytes.count)
        for (index, token) in order.enumerated() { position[Int(token)] = Int32(index) }
        self.position = position
    }

    /// Whether `mask` allows a token whose text strictly extends `token`'s.
    func hasAllowedExtension(of token: Int32, in mask: TokenMask) -> Bool {
        let prefix = bytes[Int(token)]
        guard !prefix.isEmpty else { return false }
        var index = Int(position[Int(token)]) + 1
        while index < order.count {
            let candidate = Int(order[index])
            guard bytes[candidate].starts(with: prefix) else { return false }
            if bytes[candidate].count > prefix.count, mask.contains(candidate) { return true }
            index += 1
        }
        return false
    }
}
