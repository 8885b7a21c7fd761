package import FoundationModels

/// Reads JSON values as the input wrote them. `GeneratedContent` holds numbers as `Double`, which rounds integers
/// past 2^53: an id such as 1234567890123456789 (a database key, a post id) would come back as another number.
package enum JSONLiteral {
    /// The text of the top-level member `key`'s value in the JSON object `json` when that value is an integer
    /// (`-?[0-9]+`); `nil` for another value, a missing key or text that is not an object. Of repeated keys the
    /// last counts, as in `GeneratedContent`.
    package static func integer(ofKey key: String, in json: String) -> Substring? {
        guard let value = members(in: json)?.last(where: { $0.key == key })?.value else { return nil }
        return isInteger(value) ? value : nil
    }

    /// Whether `text` is an integer as JSON writes it: `-?[0-9]+`.
    private static func isInteger(_ text: some StringProtocol) -> Bool {
        let digits = text.first == "-" ? text.dropFirst() : text[...]
        return !digits.isEmpty && digits.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// The top-level members of the JSON object `json` as written: each key's text between its quotes (escapes
    /// unread) and its value's text, in order, repeated keys included. `nil` when `json` does not start as an
    /// object or a member's key is not followed by a colon and a value; members before text that ends the scan
    /// early (a missing comma, a cut-off object) are still returned.
    package static func members(in json: String) -> [(key: Substring, value: Substring)]? {
        var scanner = Scanner(json)
        guard scanner.enter(0x7B) else { return nil }
        var members: [(key: Substring, value: Substring)] = []
        while true {
            scanner.skipSpace()
            guard scanner.peek == 0x22, let name = scanner.skipString() else { return members }
            scanner.skipSpace()
            guard scanner.peek == 0x3A else { return nil }
            scanner.advance()
            scanner.skipSpace()
            guard let value = scanner.value() else { return nil }
            members.append((name, value))
            scanner.skipSpace()
            guard scanner.peek == 0x2C else { return members }
            scanner.advance()
        }
    }

    /// The elements of the JSON array `json` as written, in order. `nil` when `json` does not start as an array or
    /// an element cannot be scanned; elements before text that ends the scan early are still returned.
    package static func elements(in json: String) -> [Substring]? {
        var scanner = Scanner(json)
        guard scanner.enter(0x5B) else { return nil }
        var elements: [Substring] = []
        while true {
            scanner.skipSpace()
            if scanner.peek == 0x5D { return elements }
            guard let value = scanner.value() else { return nil }
            elements.append(value)
            scanner.skipSpace()
            guard scanner.peek == 0x2C else { return elements }
            scanner.advance()
        }
    }

    /// `written`, when it is an integer that a `Double` does not hold exactly (past 2^53 − 1): the text that names
    /// it as a label, where its `Double` would name a neighbour (`12345678901234567890` as `…7000`). `nil` for
    /// anything else, which the parsed value names.
    package static func exactInteger(_ written: some StringProtocol) -> String? {
        guard isInteger(written), let value = Double(written), abs(value) > Double(GenerationSchema.largestExactInteger) else {
            return nil
        }
        return String(written)
    }

    /// The member `key` of the JSON object `line` (`fm tag`'s `result`) with its integers past 2^53 − 1 named as
    /// written (``integersAsWritten(in:json:)``); `value` itself when the line holds no such integer.
    package static func member(_ key: String, parsedAs value: GeneratedContent, asWrittenIn line: String) -> GeneratedContent {
        guard line.utf8.hasDigitRun(of: TaggingRecord.longestExactDigits + 1),
              let written = members(in: line)?.last(where: { $0.key == key })?.value else { return value }
        return integersAsWritten(in: value, json: written)
    }

    /// `value` with each number that ``exactInteger(_:)`` names by its text, at any depth, replaced by that text as
    /// a string, read from `json`, the value as written: gold and predicted labels then name it alike. Of repeated
    /// keys the last counts, as in `GeneratedContent`.
    package static func integersAsWritten(in value: GeneratedContent, json: some StringProtocol) -> GeneratedContent {
        switch value.kind {
        case .number: return exactInteger(json).map { GeneratedContent(kind: .string($0)) } ?? value
        case .array(let values):
            guard let written = elements(in: String(json)), written.count == values.count else { return value }
            return GeneratedContent(kind: .array(zip(values, written).map { integersAsWritten(in: $0, json: $1) }))
        case .structure(var properties, let keys):
            let written = Dictionary((members(in: String(json)) ?? []).map { (String($0.key), $0.value) }) { $1 }
            for (key, text) in written {
                guard let member = properties[key] else { continue }
                properties[key] = integersAsWritten(in: member, json: text)
            }
            return GeneratedContent(kind: .structure(properties: properties, orderedKeys: keys))
        default: return value
        }
    }

    /// JSON text without the white space between its tokens: a value written over several lines, as one line.
    package static func compacted(_ json: some StringProtocol) -> String {
        var bytes: [UInt8] = []
        var inString = false, escaped = false
        for byte in json.utf8 {
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
            } else if byte == 0x22 {
                inString = true
            } else if [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                continue
            }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Moves over JSON text by values, without reading them: strings are skipped by their quotes and escapes,
    /// containers by their brackets, other values up to the next delimiter.
    private struct Scanner {
        private let json: String
        private let bytes: String.UTF8View
        private var index: String.UTF8View.Index

        init(_ json: String) {
            self.json = json
            bytes = json.utf8
            index = bytes.startIndex
        }

        var peek: UInt8? { index < bytes.endIndex ? bytes[index] : nil }

        mutating func advance() { index = bytes.index(after: index) }

        mutating func skipSpace() {
            while let byte = peek, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { advance() }
        }

        /// Moves past leading space and the opening `bracket`; false when the text does not start with it.
        mutating func enter(_ bracket: UInt8) -> Bool {
            skipSpace()
            guard peek == bracket else { return false }
            advance()
            return true
        }

        /// Moves past a string whose opening quote is at the current index; returns its raw contents (escapes
        /// unread).
        mutating func skipString() -> Substring? {
            advance()
            let start = index
            while let byte = peek {
                switch byte {
                case 0x5C: // backslash: the next byte is escaped
                    advance()
                    if peek != nil { advance() }
                case 0x22:
                    let contents = json[start..<index]
                    advance()
                    return contents
                default: advance()
                }
            }
            return nil
        }

        /// Moves past one value of any kind and returns its text; `nil` when it is cut off.
        mutating func value() -> Substring? {
            let start = index
            guard let first = peek else { return nil }
            switch first {
            case 0x22: guard skipString() != nil else { return nil }
            case 0x7B, 0x5B:
                var depth = 0
                scan: while let byte = peek {
                    switch byte {
                    case 0x22: if skipString() == nil { return nil }; continue scan
                    case 0x7B, 0x5B: depth += 1
                    case 0x7D, 0x5D: depth -= 1
                    default: break
                    }
                    advance()
                    if depth == 0 { break scan }
                }
                guard depth == 0 else { return nil }
            default:
                while let byte = peek, ![0x2C, 0x7D, 0x5D, 0x20, 0x09, 0x0A, 0x0D].contains(byte) { advance() }
            }
            return json[start..<index]
        }
    }
}
