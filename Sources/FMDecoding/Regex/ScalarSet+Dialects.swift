/// The class escapes and wildcards as both dialects that reach the parser read them.
///
/// Patterns come from JSON Schema (ECMA-262: ASCII `\d` and `\w`, its own `\s`, `.` one scalar) and from Swift
/// `Regex` guides (Unicode `\d`, `\w` and `\s`, `.` one `Character`). The parser cannot tell which, so every set
/// it builds is one whose strings match in both: a class escape is the intersection of the dialects' sets, its
/// complement the complement of their union, and a wildcard (`.`, `\D`, a negated class) leaves out the scalars
/// that would join a neighbour into one `Character`, so each scalar it writes is a whole character to Swift.
extension ScalarSet {
    /// `\d` in both dialects: ASCII digits (Swift's Unicode digits include them).
    static let narrowDigits = digits
    /// `\d` in either dialect: everything with a numeric value, which Swift's `\d` matches on a `Character`
    /// (superscripts, fractions, Roman numerals, circled numbers, as well as every decimal digit).
    static let wideDigits = scan { $0.properties.numericType != nil }
    /// `\w` in both dialects: ASCII letters, digits and `_`.
    static let narrowWord = word
    /// `\w` in either dialect: letters, marks, numbers, connector punctuation and join controls (UTS #18).
    static let wideWord = normalized(word + scan { scalar in
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .connectorPunctuation: return true
        default: return properties.isAlphabetic || properties.numericType != nil || properties.isJoinControl
        }
    })
    /// `\s` in both dialects: ECMAScript's white space that is also Unicode's `White_Space`, without the carriage
    /// return, which Swift reads as one character with a following line feed.
    static let narrowSpace = subtract(space, complement(scan(\.properties.isWhitespace)) + [0x0D...0x0D])
    /// `\s` in either dialect.
    static let wideSpace = normalized(space + scan(\.properties.isWhitespace))

    /// Scalars that Swift's grapheme breaking joins to the scalar before or after them: marks (Extend and
    /// SpacingMark), zero-width joiners, emoji modifiers and tags, regional indicators, Hangul jamo, Prepend
    /// characters and the carriage return.
    static let graphemeJoiners = normalized(scan { scalar in
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    } + [
        0x0D...0x0D, 0x200C...0x200D, 0x1F3FB...0x1F3FF, 0x1F1E6...0x1F1FF, 0xE0020...0xE007F, 0xFF9E...0xFF9F,
        0x1100...0x11FF, 0xA960...0xA97F, 0xD7B0...0xD7FF,
        0x0600...0x0605, 0x06DD...0x06DD, 0x070F...0x070F, 0x0890...0x0891, 0x08E2...0x08E2, 0x0D4E...0x0D4E,
        0x110BD...0x110BD, 0x110CD...0x110CD, 0x111C2...0x111C3, 0x1193F...0x1193F, 0x11941...0x11941,
        0x11A3A...0x11A3A, 0x11A84...0x11A89, 0x11D46...0x11D46, 0x11F02...0x11F02,
    ])

    /// Every scalar but `excluded` and the ones that join a neighbour: what a wildcard may write.
    static func wildcard(excluding excluded: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        complement(excluded + graphemeJoiners)
    }

    /// The scalars of the planes Unicode assigns characters in that satisfy `test`, as ranges.
    private static func scan(_ test: (Unicode.Scalar) -> Bool) -> [ClosedRange<UInt32>] {
        var ranges: [ClosedRange<UInt32>] = []
        for plane in [0...0x3FFFF, 0xE0000...0xE0FFF] as [ClosedRange<UInt32>] {
            for value in plane {
                guard let scalar = Unicode.Scalar(value), test(scalar) else { continue }
                if let last = ranges.last, last.upperBound + 1 == value {
                    ranges[ranges.count - 1] = last.lowerBound...value
                } else {
                    ranges.append(value...value)
                }
            }
        }
        return ranges
    }
}
