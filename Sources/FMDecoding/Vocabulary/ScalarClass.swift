/// A set of Unicode scalars that a ``TokenTrie`` folds into runs: some ASCII bytes, and optionally every
/// non-ASCII scalar (as valid UTF-8, surrogates excluded, exactly like the grammar's string bodies).
///
/// Inside open text most bytes behave alike (any letter of a free string, any `[a-z0-9]` of a counted pattern),
/// so a token is described by its runs of class scalars and the few bytes between them.
struct ScalarClass: Hashable, Sendable {
    /// ASCII members 0–63 and 64–127, one bit each.
    var low: UInt64 = 0
    var high: UInt64 = 0
    /// Whether every non-ASCII scalar is a member.
    var includesNonASCII = false

    /// The class with no members: its trie is the plain byte trie.
    static let empty = ScalarClass()

    /// UTF-8 byte-range sequences of every non-ASCII scalar (the grammar builds string bodies from the same table).
    static let nonASCIISequences: [[(UInt8, UInt8)]] = UTF8Ranges.sequences(0x80, 0x10FFFF)

    var isEmpty: Bool { low == 0 && high == 0 && !includesNonASCII }

    var asciiCount: Int { low.nonzeroBitCount + high.nonzeroBitCount }

    func containsASCII(_ byte: UInt8) -> Bool {
        byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 && high & (1 << UInt64(byte - 64)) != 0
    }

    mutating func insertASCII(_ byte: UInt8) {
        if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
    }

    /// The ASCII members in increasing order.
    var asciiMembers: [UInt8] { (0..<128).compactMap { containsASCII(UInt8($0)) ? UInt8($0) : nil } }

    /// The length of the member scalar starting at `bytes[index]`, or 0 when there is none (a byte outside the
    /// class, or an invalid or incomplete UTF-8 sequence).
    func memberLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, end: Int) -> Int {
        let lead = bytes[index]
        if lead < 0x80 { return containsASCII(lead) ? 1 : 0 }
        guard includesNonASCII else { return 0 }
        // Well-formed UTF-8 without surrogates, exactly the byte ranges of `nonASCIISequences`.
        let length: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondHigh = 0x9F
        case 0xF0: length = 4; secondLow = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondHigh = 0x8F
        default: return 0
        }
        guard index + length <= end, bytes[index + 1] >= secondLow, bytes[index + 1] <= secondHigh else { return 0 }
        for offset in 2..<length where bytes[index + offset] < 0x80 || bytes[index + offset] > 0xBF { return 0 }
        return length
    }
}
