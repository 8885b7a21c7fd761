/// Splits Unicode scalar ranges into UTF-8 byte-range sequences (each sequence matches one encoded length).
enum UTF8Ranges {
    /// The byte-range sequences that match exactly the UTF-8 encodings of scalars in `low...high`
    /// (surrogates excluded).
    static func sequences(_ low: UInt32, _ high: UInt32) -> [[(UInt8, UInt8)]] {
        var result: [[(UInt8, UInt8)]] = []
        if low <= 0xD7FF { split(low, min(high, 0xD7FF), into: &result) }
        if high >= 0xE000 { split(max(low, 0xE000), high, into: &result) }
        return result
    }

    private static func split(_ low: UInt32, _ high: UInt32, into result: inout [[(UInt8, UInt8)]]) {
        if low > high { return }
        for boundary: UInt32 in [0x7F, 0x7FF, 0xFFFF] where low <= boundary && boundary < high {
            split(low, boundary, into: &result)
            split(boundary + 1, high, into: &result)
            return
        }
        if high <= 0x7F {
            result.append([(UInt8(low), UInt8(high))])
            return
        }
        let length = encode(low).count
        for index in 1..<length {
            let mask: UInt32 = (1 << (6 * UInt32(index))) - 1
            if low & ~mask != high & ~mask {
                if low & mask != 0 {
                    split(low, low | mask, into: &result)
                    split((low | mask) + 1, high, into: &result)
                    return
                }
                if high & mask != mask {
                    split(low, (high & ~mask) - 1, into: &result)
                    split(high & ~mask, high, into: &result)
                    return
                }
            }
        }
        let lowBytes = encode(low)
        let highBytes = encode(high)
        result.append(Array(zip(lowBytes, highBytes)))
    }

    static func encode(_ scalar: UInt32) -> [UInt8] {
        Array(String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
    }
}
