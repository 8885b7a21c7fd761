/// The class escapes as both dialects that reach the parser read them, where that costs little.
///
/// Patterns come from JSON Schema (ECMA-262: ASCII `\d` and `\w`, its own `\s`) and from Swift `Regex` guides
/// (Unicode `\d`, `\w` and `\s`). The parser cannot tell which, so a class escape is the intersection of the
/// dialects' sets, which is small, and `\S` the complement of their union. `\D`, `\W`, `.` and negated classes
/// keep ECMAScript's meaning: Swift's Unicode complements run to hundreds of ranges, each of which the byte
/// automaton spells out, and they would multiply the states of every schema that uses them.
extension ScalarSet {
    /// `\s` in both dialects: ECMAScript's white space that is also Unicode's `White_Space`, without the carriage
    /// return, which Swift reads as one character with a following line feed.
    static let narrowSpace = subtract(space, complement(unicodeWhiteSpace) + [0x0D...0x0D])
    /// `\s` in either dialect.
    static let wideSpace = normalized(space + unicodeWhiteSpace)

    /// Unicode's `White_Space` property (all of it in the first plane).
    private static let unicodeWhiteSpace: [ClosedRange<UInt32>] = {
        var ranges: [ClosedRange<UInt32>] = []
        for value in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.isWhitespace else { continue }
            if let last = ranges.last, last.upperBound + 1 == value {
                ranges[ranges.count - 1] = last.lowerBound...value
            } else {
                ranges.append(value...value)
            }
        }
        return ranges
    }()
}
