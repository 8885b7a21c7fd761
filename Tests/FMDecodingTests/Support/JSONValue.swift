/// A parsed JSON value for the independent validator (never uses the grammar).
enum JSONValue: Equatable, CustomStringConvertible {
    case string(String)
    case number(text: String, value: Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.number(_, let x), .number(_, let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            // JSON's equality: members in any order, a repeated key counting with its last value.
            let left = Dictionary(x.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
            let right = Dictionary(y.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
            return left.count == right.count && left.allSatisfy { key, value in right[key].map { $0 == value } ?? false }
        default: return false
        }
    }

    var description: String {
        switch self {
        case .string(let s): return "\"\(s)\""
        case .number(let text, _): return text
        case .bool(let b): return "\(b)"
        case .null: return "null"
        case .array(let items): return "[\(items.map(\.description).joined(separator: ","))]"
        case .object(let members): return "{\(members.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ","))}"
        }
    }
}

/// A strict JSON parser: no whitespace anywhere outside strings, no leading zeros, no `-0`, valid UTF-8 only.
struct StrictJSONParser {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let bytes: [UInt8]
    private var index = 0

    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        guard String(validating: bytes, as: UTF8.self) != nil else { throw Failure(description: "invalid UTF-8") }
        var parser = StrictJSONParser(bytes: bytes)
        let value = try parser.value()
        guard parser.index == bytes.count else { throw Failure(description: "trailing bytes at \(parser.index)") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func fail(_ message: String) -> Failure { Failure(description: "\(message) at byte \(index)") }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func expect(_ text: String) throws {
        for byte in text.utf8 {
            guard peek == byte else { throw fail("expected \(text)") }
            index += 1
        }
    }

    private mutating func value() throws -> JSONValue {
        switch peek {
        case UInt8(ascii: "{"):
            index += 1
            var members: [(key: String, value: JSONValue)] = []
            if peek == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                guard case .string(let key) = try value() else { throw fail("object key must be a string") }
                try expect(":")
                members.append((key, try value()))
                if peek == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect("}")
                return .object(members)
            }
        case UInt8(ascii: "["):
            index += 1
            var items: [JSONValue] = []
            if peek == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                items.append(try value())
                if peek == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect("]")
                return .array(items)
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case .some(let byte) where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte):
            return try number()
        default:
            throw fail("unexpected byte")
        }
    }

    private mutating func string() throws -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        while true {
            guard let byte = peek else { throw fail("unterminated string") }
            if byte == 0x22 { break }
            if byte < 0x20 { throw fail("raw control character in string") }
            if byte == 0x5C {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
                index += 1
                guard let escape = peek else { throw fail("bad escape") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                        let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
                        bytes[index..<index + 4].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                        let scalar = Unicode.Scalar(value)
                    else { throw fail("bad \\u escape") }
                    index += 4
                    scalars.append(scalar)
                default: throw fail("bad escape")
                }
                continue
            }
            raw.append(byte)
            index += 1
        }
        index += 1
        scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
        return String(scalars)
    }

    private mutating func number() throws -> JSONValue {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, (0x30...0x39).contains(first) else { throw fail("digit expected") }
        index += 1
        if first == 0x30, let next = peek, (0x30...0x39).contains(next) { throw fail("leading zero") }
        while let byte = peek, (0x30...0x39).contains(byte) { index += 1 }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard let byte = peek, (0x30...0x39).contains(byte) else { throw fail("fraction digit expected") }
            while let byte = peek, (0x30...0x39).contains(byte) { index += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") { throw fail("exponent not canonical") }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text) else { throw fail("bad number") }
        if value == 0 && text.hasPrefix("-") { throw fail("negative zero") }
        return .number(text: text, value: value)
    }
}
