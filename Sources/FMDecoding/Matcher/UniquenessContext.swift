/// Per-generation bookkeeping for `uniqueItems` arrays: where each open element began and which elements each
/// array instance already holds.
///
/// An array instance is identified by its element frame's parent frame and its unique-array id, so the same
/// schema position reached again (a later object in a list) starts a fresh record when its first element begins.
struct UniquenessContext: Sendable {
    /// Output offset where the element of each open unique-element frame begins.
    var elementStart: [Int32: Int] = [:]
    /// Canonical texts of finished elements per array instance.
    var finished: [UInt64: Set<[UInt8]>] = [:]

    static func key(parent: Int32, array: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: parent)) << 32 | UInt64(UInt32(bitPattern: array))
    }

    /// The bytes of frame `frame`'s current element within `output`.
    func element(of frame: Int32, in output: [UInt8]) -> ArraySlice<UInt8> {
        let start = min(elementStart[frame] ?? output.count, output.count)
        return output[start...]
    }
}

/// Rewrites a JSON value so that equal values have equal bytes (string escapes decoded, number fractions trimmed).
enum JSONCanonicalizer {
    static func canonical(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == 0x22 {
                var scalars = String.UnicodeScalarView()
                var raw: [UInt8] = []
                index += 1
                func flushRaw() {
                    if !raw.isEmpty {
                        scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                        raw.removeAll()
                    }
                }
                while index < input.count, input[index] != 0x22 {
                    if input[index] == 0x5C, index + 1 < input.count {
                        flushRaw()
                        let escape = input[index + 1]
                        index += 2
                        switch escape {
                        case UInt8(ascii: "b"): scalars.append("\u{08}")
                        case UInt8(ascii: "f"): scalars.append("\u{0C}")
                        case UInt8(ascii: "n"): scalars.append("\n")
                        case UInt8(ascii: "r"): scalars.append("\r")
                        case UInt8(ascii: "t"): scalars.append("\t")
                        case UInt8(ascii: "u") where index + 4 <= input.count:
                            let hex = String(decoding: input[index..<index + 4], as: UTF8.self)
                            index += 4
                            if let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) {
                                scalars.append(scalar)
                            }
                        default: scalars.append(Unicode.Scalar(escape))
                        }
                    } else {
                        raw.append(input[index])
                        index += 1
                    }
                }
                flushRaw()
                index += 1
                output += ByteNFA.jsonQuoted(String(scalars))
            } else if byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte) {
                var end = index
                while end < input.count, input[end] == UInt8(ascii: "-") || input[end] == UInt8(ascii: ".")
                    || (0x30...0x39).contains(input[end])
                {
                    end += 1
                }
                var number = Array(input[index..<end])
                if number.contains(UInt8(ascii: ".")) {
                    while number.last == UInt8(ascii: "0") { number.removeLast() }
                    if number.last == UInt8(ascii: ".") { number.removeLast() }
                }
                if number == Array("-0".utf8) { number = [UInt8(ascii: "0")] }
                output += number
                index = end
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }
}
