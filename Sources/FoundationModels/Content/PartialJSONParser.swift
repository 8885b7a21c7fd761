/// Parses JSON text, or any prefix of it, into ``GeneratedContent``.
///
/// A streaming response is a growing prefix of one JSON document, so the parser accepts input that ends anywhere:
/// inside a string (the text so far is kept, a dangling escape is dropped), a number (the longest valid prefix is
/// kept), a literal (`tr` is `true`), after a key (the key is dropped), or inside nested containers. Each value is
/// marked complete only if its text ended before the input did. Input that can't be the start of a JSON document
/// throws `DecodingError.dataCorrupted`.
struct PartialJSONParser {
    /// The maximum nesting of arrays and objects; deeper input throws instead of overflowing the stack.
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var position = 0
    /// Whether a member name written twice in one object throws, rather than its last value winning.
    private let refusesRepeatedMembers: Bool
    /// Whether an escaped lone surrogate throws, rather than U+FFFD standing in for it.
    private let refusesLoneSurrogates: Bool

    private init(_ text: String, refusesRepeatedMembers: Bool, refusesLoneSurrogates: Bool) {
        bytes = Array(text.utf8)
        self.refusesRepeatedMembers = refusesRepeatedMembers
        self.refusesLoneSurrogates = refusesLoneSurrogates
    }

    /// Parses `text`, which may be a prefix of a JSON document.
    ///
    /// - Parameter isStrict: Throw for an object that names a member twice, and for an escaped lone surrogate
    ///   (`"\uD800"`), which no text holds. Otherwise the last value wins, as in most JSON readers, and U+FFFD stands
    ///   in for the surrogate; a request whose first value or character would be silently replaced wants the error.
    static func parse(_ text: String, isStrict: Bool = false) throws -> GeneratedContent {
        try parse(text, refusesRepeatedMembers: isStrict, refusesLoneSurrogates: isStrict)
    }

    /// Parses `text` as ``parse(_:isStrict:)`` does, with each of the strict checks chosen on its own.
    static func parse(_ text: String, refusesRepeatedMembers: Bool, refusesLoneSurrogates: Bool) throws -> GeneratedContent {
        var parser = PartialJSONParser(text, refusesRepeatedMembers: refusesRepeatedMembers, refusesLoneSurrogates: refusesLoneSurrogates)
        parser.skipWhitespace()
        guard !parser.atEnd else {
            // Nothing generated yet: an empty, incomplete value.
            return GeneratedContent(kind: .null, isComplete: false)
        }
        guard let value = try parser.parseValue(depth: 0) else {
            return GeneratedContent(kind: .null, isComplete: false)
        }
        parser.skipWhitespace()
        guard parser.atEnd else {
            throw parser.error("Unexpected text after the end of the JSON document")
        }
        return value
    }

    // MARK: Values

    private var atEnd: Bool { position >= bytes.count }

    /// Parses one value; returns `nil` if the input ends before any usable part of it.
    private mutating func parseValue(depth: Int) throws -> GeneratedContent? {
        guard depth <= Self.maximumDepth else {
            throw error("JSON nesting is deeper than \(Self.maximumDepth) levels")
        }
        guard !atEnd else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""):
            let (text, complete) = try parseString()
            return GeneratedContent(kind: .string(text), isComplete: complete)
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber(depth: depth)
        default: throw error("Unexpected character \(describe(bytes[position])) where a value should start")
        }
    }

    private mutating func parseObject(depth: Int) throws -> GeneratedContent {
        position += 1  // {
        var properties: [String: GeneratedContent] = [:]
        var keys: [String] = []
        func partial() -> GeneratedContent {
            GeneratedContent(kind: .structure(properties: properties, orderedKeys: keys), isComplete: false)
        }
        skipWhitespace()
        if atEnd { return partial() }
        if bytes[position] == UInt8(ascii: "}") {
            position += 1
            return GeneratedContent(kind: .structure(properties: [:], orderedKeys: []), isComplete: true)
        }
        while true {
            guard bytes[position] == UInt8(ascii: "\"") else {
                throw error("Expected a property name in quotes but found \(describe(bytes[position]))")
            }
            let (key, keyComplete) = try parseString()
            skipWhitespace()
            // A key without its value yet is left out.
            guard keyComplete, !atEnd else { return partial() }
            guard bytes[position] == UInt8(ascii: ":") else {
                throw error("Expected ':' after property name \"\(key)\" but found \(describe(bytes[position]))")
            }
            if refusesRepeatedMembers, properties[key] != nil {
                throw error("The member \"\(key)\" appears twice in one object")
            }
            position += 1
            skipWhitespace()
            guard let value = try parseValue(depth: depth + 1) else { return partial() }
            if properties.updateValue(value, forKey: key) == nil {
                keys.append(key)
            }
            skipWhitespace()
            if atEnd { return partial() }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
                if atEnd { return partial() }
            case UInt8(ascii: "}"):
                position += 1
                return GeneratedContent(kind: .structure(properties: properties, orderedKeys: keys), isComplete: true)
            default:
                throw error("Expected ',' or '}' in an object but found \(describe(bytes[position]))")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws -> GeneratedContent {
        position += 1  // [
        var elements: [GeneratedContent] = []
        skipWhitespace()
        if atEnd { return GeneratedContent(kind: .array(elements), isComplete: false) }
        if bytes[position] == UInt8(ascii: "]") {
            position += 1
            return GeneratedContent(kind: .array([]), isComplete: true)
        }
        while true {
            guard let element = try parseValue(depth: depth + 1) else {
                return GeneratedContent(kind: .array(elements), isComplete: false)
            }
            elements.append(element)
            skipWhitespace()
            if atEnd { return GeneratedContent(kind: .array(elements), isComplete: false) }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
                if atEnd { return GeneratedContent(kind: .array(elements), isComplete: false) }
            case UInt8(ascii: "]"):
                position += 1
                return GeneratedContent(kind: .array(elements), isComplete: true)
            default:
                throw error("Expected ',' or ']' in an array but found \(describe(bytes[position]))")
            }
        }
    }

    /// Parses `true`, `false` or `null`, accepting any prefix of the literal at the end of the input.
    private mutating func parseLiteral(_ literal: String, _ kind: GeneratedContent.Kind) throws -> GeneratedContent {
        for expected in literal.utf8 {
            if atEnd {
                // Only one literal starts with these letters, so its value is already known.
                return GeneratedContent(kind: kind, isComplete: false)
            }
            guard bytes[position] == expected else {
                throw error("Invalid literal; expected \"\(literal)\"")
            }
            position += 1
        }
        return GeneratedContent(kind: kind, isComplete: true)
    }

    /// Parses a number; at the end of the input, keeps the longest prefix that is a valid number.
    private mutating func parseNumber(depth: Int) throws -> GeneratedContent? {
        let start = position
        var validEnd: Int?  // end of the longest prefix that is a complete number
        func digits() -> Int {
            let from = position
            while !atEnd, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - from
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        if !atEnd, bytes[position] == UInt8(ascii: "0") {
            position += 1
            if !atEnd, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                throw error("Numbers can't have leading zeros")
            }
        } else if digits() == 0 {
            if atEnd { return nil }
            throw error("Expected a digit but found \(describe(bytes[position]))")
        }
        validEnd = position
        var truncated = false
        if !atEnd, bytes[position] == UInt8(ascii: ".") {
            position += 1
            if digits() == 0 {
                if !atEnd { throw error("Expected a digit after '.'") }
                truncated = true
            } else {
                validEnd = position
            }
        }
        if !truncated, !atEnd, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if !atEnd, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            if digits() == 0 {
                if !atEnd { throw error("Expected a digit in the exponent") }
                truncated = true
            } else {
                validEnd = position
            }
        }
        let end = validEnd ?? position
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        guard let value = Double(text) else {
            throw error("Invalid number \(text)")
        }
        // Beyond Double's range the literal would become an infinity, which JSON cannot write back.
        guard value.isFinite else { throw error("The number \(text) is out of range") }
        // A number that runs to the end of a nested value may still grow; at the top level it is the whole document.
        let complete = !truncated && (!atEnd || depth == 0)
        return GeneratedContent(kind: .number(value), isComplete: complete)
    }

    /// Parses a string starting at its opening quote; returns the text so far and whether the string was closed.
    private mutating func parseString() throws -> (String, Bool) {
        position += 1  // "
        var buffer: [UInt8] = []
        var pendingHighSurrogate: UInt32?
        func flushSurrogate() throws {
            if let high = pendingHighSurrogate {
                // A lone high surrogate can't be represented in Swift strings.
                if refusesLoneSurrogates { throw loneSurrogate(high) }
                buffer.append(contentsOf: [0xEF, 0xBF, 0xBD])
                pendingHighSurrogate = nil
            }
        }
        while !atEnd {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                try flushSurrogate()
                return (String(decoding: buffer, as: UTF8.self), true)
            case UInt8(ascii: "\\"):
                position += 1
                guard !atEnd else {
                    // A dangling escape: drop it (and any unpaired surrogate waiting for its partner).
                    return (String(decoding: buffer, as: UTF8.self), false)
                }
                let escape = bytes[position]
                position += 1
                if escape == UInt8(ascii: "u") {
                    guard bytes.count - position >= 4 else {
                        // Validate the hex digits that did arrive, then drop the partial escape.
                        for index in position..<bytes.count where hexValue(bytes[index]) == nil {
                            position = index
                            throw error("Invalid \\u escape")
                        }
                        position = bytes.count
                        return (String(decoding: buffer, as: UTF8.self), false)
                    }
                    var code: UInt32 = 0
                    for _ in 0..<4 {
                        guard let digit = hexValue(bytes[position]) else { throw error("Invalid \\u escape") }
                        code = code << 4 | digit
                        position += 1
                    }
                    if (0xD800...0xDBFF).contains(code) {
                        try flushSurrogate()
                        pendingHighSurrogate = code
                        continue
                    }
                    if (0xDC00...0xDFFF).contains(code), let high = pendingHighSurrogate {
                        pendingHighSurrogate = nil
                        let scalar = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)
                        append(scalar, to: &buffer)
                        continue
                    }
                    try flushSurrogate()
                    if refusesLoneSurrogates, (0xDC00...0xDFFF).contains(code) { throw loneSurrogate(code) }
                    append(code, to: &buffer)
                    continue
                }
                try flushSurrogate()
                switch escape {
                case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                default:
                    position -= 1
                    throw error("Invalid escape \\\(describe(escape))")
                }
            case 0..<0x20:
                throw error("Unescaped control character in a string")
            default:
                try flushSurrogate()
                buffer.append(byte)
                position += 1
            }
        }
        // The input ended inside the string; an unpaired high surrogate may still get its partner, so drop it.
        return (String(decoding: buffer, as: UTF8.self), false)
    }

    // MARK: Helpers

    private mutating func skipWhitespace() {
        while !atEnd {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// Appends the UTF-8 encoding of a scalar value (lone low surrogates become U+FFFD).
    private func append(_ value: UInt32, to buffer: inout [UInt8]) {
        let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
        buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    private func loneSurrogate(_ code: UInt32) -> DecodingError {
        error("The escape \\u\(String(code, radix: 16, uppercase: true)) is half of a surrogate pair without its other half, which is no character")
    }

    private func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    private func error(_ message: String) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: [], debugDescription: "\(message) at offset \(position).")
        )
    }
}
