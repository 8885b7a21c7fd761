/// Turns a stream of token bytes into text without ever splitting a UTF-8 character.
///
/// Tokens can end in the middle of a multi-byte character (byte-fallback tokens, emoji); the
/// accumulator holds such a tail back until the character is complete.
public struct UTF8Accumulator: Sendable {
    private var bytes: [UInt8] = []
    private var validCount = 0

    /// Creates an empty accumulator.
    public init() {}

    /// Appends bytes; returns whether the decodable text grew.
    @discardableResult
    public mutating func append(_ newBytes: [UInt8]) -> Bool {
        bytes.append(contentsOf: newBytes)
        let before = validCount
        validCount = Self.completePrefixLength(bytes)
        return validCount > before
    }

    /// The text of every complete character so far.
    public var text: String { String(decoding: bytes[..<validCount], as: UTF8.self) }

    /// All bytes, including an incomplete tail, decoded with replacement characters.
    public var finalText: String { String(decoding: bytes, as: UTF8.self) }

    /// All bytes received.
    public var allBytes: [UInt8] { bytes }

    /// Length of the longest prefix of `bytes` that does not end inside a multi-byte character.
    public static func completePrefixLength(_ bytes: [UInt8]) -> Int {
        var end = bytes.count
        // Walk back over at most 3 continuation bytes to the lead byte of the last character.
        var index = end - 1
        var continuation = 0
        while index >= 0, continuation < 3, bytes[index] & 0xC0 == 0x80 {
            continuation += 1
            index -= 1
        }
        guard index >= 0 else { return end }
        let lead = bytes[index]
        let needed: Int
        switch lead {
        case 0xF0...0xF7: needed = 3
        case 0xE0...0xEF: needed = 2
        case 0xC0...0xDF: needed = 1
        default: needed = 0
        }
        if continuation < needed { end = index }
        return end
    }
}
