/// Rewrites compact JSON so that equal values have equal bytes: string escapes decoded, number fractions trimmed,
/// object members sorted by key (a repeated key keeps its last value, as JSON parsers do).
///
/// `uniqueItems` compares elements by these bytes. Text that ends early (a string still open) is rewritten as far
/// as it goes.
enum JSONCanonicalizer {
    static func canonical(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count { value(input, &index, into: &output) }
        return output
    }

    private static func value(_ input: [UInt8], _ index: inout Int, into output: inout [UInt8]) {
        switch input[index] {
        case 0x22:
            string(input, &index, into: &output)
        case UInt8(ascii: "-"), 0x30...0x39:
            number(input, &index, into: &output)
        case UInt8(ascii: "{"):
            object(input, &index, into: &output)
        default:
            // `[`, `]`, `,`, `:` and the letters of literals are their own canonical spelling; an array's elements
            // are canonicalised one by one as the loop meets them.
            output.append(input[index])
            index += 1
        }
    }

    private static func object(_ input: [UInt8], _ index: inout Int, into output: inout [UInt8]) {
        index += 1  // {
        var members: [(key: [UInt8], value: [UInt8])] = []
        var closed = false
        while index < input.count {
            if input[index] == UInt8(ascii: "}") {
                index += 1
                closed = true
                break
            }
            if input[index] == UInt8(ascii: ",") { index += 1; continue }
            var key: [UInt8] = []
            value(input, &index, into: &key)
            var member: [UInt8] = []
            if index < input.count, input[index] == UInt8(ascii: ":") {
                index += 1
                if index < input.count { element(input, &index, into: &member) }
            }
            if let existing = members.firstIndex(where: { $0.key == key }) { members.remove(at: existing) }
            members.append((key, member))
        }
        members.sort { $0.key.lexicographicallyPrecedes($1.key) }
        output.append(UInt8(ascii: "{"))
        for (offset, member) in members.enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            output += member.key
            output.append(UInt8(ascii: ":"))
            output += member.value
        }
        if closed { output.append(UInt8(ascii: "}")) }
    }

    /// One whole value, arrays included (their brackets and commas copied, their elements canonicalised).
    private static func element(_ input: [UInt8], _ index: inout Int, into output: inout [UInt8]) {
        guard input[index] == UInt8(ascii: "[") else { return value(input, &index, into: &output) }
        output.append(UInt8(ascii: "["))
        index += 1
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "]") {
                output.append(byte)
                index += 1
                return
            }
            if byte == UInt8(ascii: ",") {
                output.append(byte)
                index += 1
                continue
            }
            element(input, &index, into: &output)
        }
    }

    private static func string(_ input: [UInt8], _ index: inout Int, into output: inout [UInt8]) {
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
    }

    private static func number(_ input: [UInt8], _ index: inout Int, into output: inout [UInt8]) {
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
    }
}
