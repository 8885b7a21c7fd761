/// A JSON value from the test suite's files, with each number's text kept exactly (no `Double` rounding).
enum SuiteJSON: Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([SuiteJSON])
    case object([Member])

    /// One member of an object.
    struct Member {
        var key: String
        var value: SuiteJSON
    }

    static func == (a: SuiteJSON, b: SuiteJSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The member `key` of an object.
    subscript(key: String) -> SuiteJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// Compact JSON with the original number texts (for handing schemas and instances to other tools).
    var text: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let text): return text
        case .string(let value): return Self.quoted(value)
        case .array(let elements): return "[" + elements.map(\.text).joined(separator: ",") + "]"
        case .object(let members): return "{" + members.map { Self.quoted($0.key) + ":" + $0.value.text }.joined(separator: ",") + "}"
        }
    }

    /// The canonical JSON text of a string: only `"`, `\` and control characters escaped, short forms first.
    static func quoted(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A number's canonical text: plain decimal, no exponent, no trailing fraction zeros, no `-0`.
    static func canonicalNumber(_ text: String) -> String {
        var body = Substring(text)
        let negative = body.hasPrefix("-")
        if negative { body = body.dropFirst() }
        var exponent = 0
        if let e = body.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(body[body.index(after: e)...].filter { $0 != "+" }) ?? 0
            body = body[..<e]
        }
        var digits = Array(body.filter { $0 != "." })
        var point = (body.firstIndex(of: ".").map { body.distance(from: body.startIndex, to: $0) } ?? body.count) + exponent
        if point <= 0 {
            digits = Array(repeating: "0", count: 1 - point) + digits
            point = 1
        }
        if point > digits.count { digits += Array(repeating: "0", count: point - digits.count) }
        var integer = String(digits[..<point])
        var fraction = String(digits[point...])
        while fraction.last == "0" { fraction.removeLast() }
        while integer.count > 1, integer.first == "0" { integer.removeFirst() }
        let isZero = integer == "0" && fraction.isEmpty
        return (negative && !isZero ? "-" : "") + integer + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// Parses JSON text (whitespace allowed).
    static func parse(_ text: String) throws -> SuiteJSON {
        var parser = Parser(scalars: Array(text.unicodeScalars))
        let value = try parser.value()
        parser.skipSpace()
        guard parser.index == parser.scalars.count else { throw Parser.Failure(position: parser.index) }
        return value
    }

    private struct Parser {
        struct Failure: Error { var position: Int }

        let scalars: [Unicode.Scalar]
        var index = 0

        var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        mutating func skipSpace() {
            while let scalar = peek, [" ", "\n", "\r", "\t"].contains(scalar) { index += 1 }
        }

        mutating func expect(_ scalar: Unicode.Scalar) throws {
            skipSpace()
            guard peek == scalar else { throw Failure(position: index) }
            index += 1
        }

        mutating func value() throws -> SuiteJSON {
            skipSpace()
            guard let scalar = peek else { throw Failure(position: index) }
            switch scalar {
            case "{":
                index += 1
                var members: [Member] = []
                skipSpace()
                if peek == "}" {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    let key = try string()
                    try expect(":")
                    members.append(Member(key: key, value: try value()))
                    skipSpace()
                    if peek == "," {
                        index += 1
                        continue
                    }
                    try expect("}")
                    return .object(members)
                }
            case "[":
                index += 1
                var elements: [SuiteJSON] = []
                skipSpace()
                if peek == "]" {
                    index += 1
                    return .array(elements)
                }
                while true {
                    elements.append(try value())
                    skipSpace()
                    if peek == "," {
                        index += 1
                        continue
                    }
                    try expect("]")
                    return .array(elements)
                }
            case "\"":
                return .string(try string())
            case "t", "f", "n":
                for (word, result) in [("true", SuiteJSON.bool(true)), ("false", .bool(false)), ("null", .null)]
                where scalars[index...].starts(with: word.unicodeScalars) {
                    index += word.unicodeScalars.count
                    return result
                }
                throw Failure(position: index)
            default:
                let start = index
                while let next = peek, "-+.eE0123456789".unicodeScalars.contains(next) { index += 1 }
                guard index > start else { throw Failure(position: index) }
                return .number(String(String.UnicodeScalarView(scalars[start..<index])))
            }
        }

        mutating func string() throws -> String {
            guard peek == "\"" else { throw Failure(position: index) }
            index += 1
            var result = String.UnicodeScalarView()
            var pendingHigh: UInt32?
            while let scalar = peek {
                index += 1
                if scalar == "\"" { return String(result) }
                guard scalar == "\\" else {
                    result.append(scalar)
                    continue
                }
                guard let escape = peek else { break }
                index += 1
                switch escape {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "b": result.append("\u{08}")
                case "f": result.append("\u{0C}")
                case "u":
                    guard index + 4 <= scalars.count,
                        let code = UInt32(String(String.UnicodeScalarView(scalars[index..<index + 4])), radix: 16)
                    else { throw Failure(position: index) }
                    index += 4
                    if (0xD800...0xDBFF).contains(code) {
                        pendingHigh = code
                    } else if (0xDC00...0xDFFF).contains(code), let high = pendingHigh {
                        result.append(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))!)
                        pendingHigh = nil
                    } else if let decoded = Unicode.Scalar(code) {
                        result.append(decoded)
                    }
                default: result.append(escape)
                }
            }
            throw Failure(position: index)
        }
    }
}
