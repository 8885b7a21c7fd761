/// Where a byte of JSON text falls: inside a string or not, following escapes.
///
/// The engine's guards and choice detection read the response byte by byte and only need to know whether a
/// `"`, `:`, `,` or bracket is structure or string content; this is the one place that rule lives.
public struct JSONLexicalState: Sendable, Hashable {
    /// Whether the next byte is inside a string.
    public private(set) var inString = false
    private var escaped = false

    /// The state at the start of a JSON text.
    public init() {}

    /// What a byte was to the text.
    public enum Role: Sendable, Hashable {
        /// Outside any string: whitespace, a literal's byte, or punctuation (`{`, `[`, `:`, `,`, …).
        case structure
        /// The `"` that opens a string.
        case openingQuote
        /// A byte inside a string, escapes included.
        case content
        /// The `"` that closes a string.
        case closingQuote
    }

    /// Reads one byte.
    public mutating func consume(_ byte: UInt8) -> Role {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
                return .closingQuote
            }
            return .content
        }
        if byte == UInt8(ascii: "\"") {
            inString = true
            return .openingQuote
        }
        return .structure
    }

    /// The state after `bytes` from the start of a text.
    public static func after(_ bytes: some Sequence<UInt8>) -> JSONLexicalState {
        var state = JSONLexicalState()
        for byte in bytes { _ = state.consume(byte) }
        return state
    }
}
