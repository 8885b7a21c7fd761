import FMDecoding

/// Writes ``GeneratedContent`` as JSON text, keeping structure keys in order.
///
/// Foundation's `JSONEncoder` doesn't preserve key order, and property order is part of our contract, so this small
/// writer is used for ``GeneratedContent/jsonString`` and for JSON Schema output.
struct JSONWriter {
    /// Whether to break lines and indent by two spaces.
    var prettyPrinted = false
    /// Whether to write a space after each colon and comma, as Apple's `jsonString` does (`{"a": 1, "b": [1, 2]}`).
    var spaced = false

    /// The text written so far.
    private(set) var output = ""

    /// Appends `content` at the given nesting depth.
    mutating func write(_ content: GeneratedContent, depth: Int = 0) {
        switch content.kind {
        case .null:
            output += "null"
        case .bool(let value):
            output += value ? "true" : "false"
        case .number(let value):
            output += Self.numberText(value)
        case .string(let value):
            writeString(value)
        case .array(let elements):
            guard !elements.isEmpty else {
                output += "[]"
                return
            }
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += spaced && !prettyPrinted ? ", " : "," }
                newline(depth + 1)
                write(element, depth: depth + 1)
            }
            newline(depth)
            output += "]"
        case .structure(let properties, let keys):
            guard !keys.isEmpty else {
                output += "{}"
                return
            }
            output += "{"
            for (index, key) in keys.enumerated() {
                if index > 0 { output += spaced && !prettyPrinted ? ", " : "," }
                newline(depth + 1)
                writeString(key)
                output += prettyPrinted || spaced ? ": " : ":"
                // `normalized()` guarantees every ordered key has a value.
                if let value = properties[key] {
                    write(value, depth: depth + 1)
                }
            }
            newline(depth)
            output += "}"
        }
    }

    /// Breaks the line and indents, when pretty-printing.
    private mutating func newline(_ depth: Int) {
        guard prettyPrinted else { return }
        output += "\n" + String(repeating: "  ", count: depth)
    }

    /// Appends a quoted, escaped JSON string.
    mutating func writeString(_ value: String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16, uppercase: false)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    /// JSON text for a number: integral values without a fraction, others with the digits of their shortest
    /// round-trip form, always in plain decimal notation (`0.00005`, not `5e-05`), as the decoder's number
    /// grammar writes them and as schemas check them.
    static func numberText(_ value: Double) -> String {
        guard value.isFinite else {
            // JSON has no infinities or NaN.
            return "null"
        }
        if value == value.rounded(), abs(value) < 0x1p63 {
            return String(Int64(value))
        }
        return DecimalText.plain(value)
    }

    /// The JSON text of `content`.
    static func string(for content: GeneratedContent, prettyPrinted: Bool = false, spaced: Bool = false) -> String {
        var writer = JSONWriter(prettyPrinted: prettyPrinted, spaced: spaced)
        writer.write(content)
        return writer.output
    }
}
