/// JSON string pieces: the escaped form of scalars, unconstrained string bodies and exact literals.
extension ByteNFA {
    /// UTF-8 sequences of every scalar a JSON string may hold unescaped (no `"`, `\`, or control characters).
    static let unescapedScalarSequences: [[(UInt8, UInt8)]] =
        UTF8Ranges.sequences(0x20, 0x21) + UTF8Ranges.sequences(0x23, 0x5B) + UTF8Ranges.sequences(0x5D, 0x10FFFF)

    /// The canonical JSON spelling of one scalar inside a string.
    static func jsonEscaped(_ scalar: UInt32) -> [UInt8] {
        switch scalar {
        case 0x22: return Array(#"\""#.utf8)
        case 0x5C: return Array(#"\\"#.utf8)
        case 0x08: return Array(#"\b"#.utf8)
        case 0x0C: return Array(#"\f"#.utf8)
        case 0x0A: return Array(#"\n"#.utf8)
        case 0x0D: return Array(#"\r"#.utf8)
        case 0x09: return Array(#"\t"#.utf8)
        case 0..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            return Array(#"\u00"#.utf8) + [hex[Int(scalar >> 4)], hex[Int(scalar & 15)]]
        default: return UTF8Ranges.encode(scalar)
        }
    }

    /// The canonical JSON text of `string`, quotes included.
    static func jsonQuoted(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = [0x22]
        for scalar in string.unicodeScalars { bytes += jsonEscaped(scalar.value) }
        bytes.append(0x22)
        return bytes
    }

    /// Adds `"…"` with any content (valid UTF-8, every JSON escape, `\uXXXX` without lone surrogates).
    mutating func addAnyString(from: Int32) -> Int32 {
        let body = addLiteral([0x22], from: from)
        for sequence in Self.unescapedScalarSequences { addRangeSequence(sequence, from: body, to: body) }
        let escape = addState()
        addBytes(body, 0x5C, 0x5C, escape)
        for byte in Array(#""\/bfnrt"#.utf8) { addBytes(escape, byte, byte, body) }
        let hex1 = addState(), hex2 = addState(), hex2Low = addState(), hex3 = addState(), hex4 = addState()
        addBytes(escape, UInt8(ascii: "u"), UInt8(ascii: "u"), hex1)
        // First hex digit: anything but d/D goes on freely; d/D must not start a surrogate (D800–DFFF).
        for (low, high) in [("0", "9"), ("a", "c"), ("e", "f"), ("A", "C"), ("E", "F")] {
            addBytes(hex1, UInt8(ascii: Unicode.Scalar(low)!), UInt8(ascii: Unicode.Scalar(high)!), hex2)
        }
        addBytes(hex1, UInt8(ascii: "d"), UInt8(ascii: "d"), hex2Low)
        addBytes(hex1, UInt8(ascii: "D"), UInt8(ascii: "D"), hex2Low)
        addBytes(hex2Low, UInt8(ascii: "0"), UInt8(ascii: "7"), hex3)
        for (state, next) in [(hex2, hex3), (hex3, hex4), (hex4, body)] { addHexDigit(from: state, to: next) }
        return addLiteral([0x22], from: body)
    }

    private mutating func addHexDigit(from: Int32, to: Int32) {
        addBytes(from, UInt8(ascii: "0"), UInt8(ascii: "9"), to)
        addBytes(from, UInt8(ascii: "a"), UInt8(ascii: "f"), to)
        addBytes(from, UInt8(ascii: "A"), UInt8(ascii: "F"), to)
    }

    /// Adds edges from `from` to `to` matching one scalar of `set` (sorted, disjoint ranges), JSON-escaped.
    mutating func addScalarSet(_ set: [ClosedRange<UInt32>], from: Int32, to: Int32) {
        var plain: [ClosedRange<UInt32>] = []
        for range in set {
            var low = range.lowerBound
            // Scalars that need escapes get an explicit literal path each.
            for special: UInt32 in Array(0..<0x20) + [0x22, 0x5C] where range.contains(special) {
                if low < special { plain.append(low...(special - 1)) }
                let bytes = Self.jsonEscaped(special)
                addRangeSequence(bytes.map { ($0, $0) }, from: from, to: to)
                low = special + 1
            }
            if low <= range.upperBound { plain.append(low...range.upperBound) }
        }
        for range in plain {
            for sequence in UTF8Ranges.sequences(range.lowerBound, range.upperBound) {
                addRangeSequence(sequence, from: from, to: to)
            }
        }
    }
}
