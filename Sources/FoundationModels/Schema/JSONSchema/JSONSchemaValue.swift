/// A JSON value as the JSON Schema importer reads it: schemas, `const`/`enum` members and default values.
///
/// Objects keep their key order (it decides property order) but compare as unordered, and numbers compare by
/// value, which is JSON Schema's notion of equality (`1` equals `1.0`, `{"a":1,"b":2}` equals `{"b":2,"a":1}`).
enum JSONSchemaValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONSchemaValue])
    case object(JSONSchemaObject)

    init(_ content: GeneratedContent) {
        switch content.kind {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let value): self = .number(value)
        case .string(let value): self = .string(value)
        case .array(let elements): self = .array(elements.map(JSONSchemaValue.init))
        case .structure(let properties, let keys):
            self = .object(JSONSchemaObject(keys: keys, values: properties.mapValues(JSONSchemaValue.init)))
        }
    }

    /// The value as generated content (key order kept).
    var generatedContent: GeneratedContent {
        switch self {
        case .null: return GeneratedContent(kind: .null)
        case .bool(let value): return GeneratedContent(kind: .bool(value))
        case .number(let value): return GeneratedContent(kind: .number(value))
        case .string(let value): return GeneratedContent(kind: .string(value))
        case .array(let elements): return GeneratedContent(kind: .array(elements.map(\.generatedContent)))
        case .object(let object):
            return GeneratedContent(kind: .structure(properties: object.values.mapValues(\.generatedContent),
                                                     orderedKeys: object.keys))
        }
    }

    /// The JSON type names this value has (`integer` values are also `number`s).
    var typeNames: Set<String> {
        switch self {
        case .null: return ["null"]
        case .bool: return ["boolean"]
        case .number(let value): return value == value.rounded() && value.isFinite ? ["number", "integer"] : ["number"]
        case .string: return ["string"]
        case .array: return ["array"]
        case .object: return ["object"]
        }
    }

    /// The number of largest magnitude in this value, nested ones included; `nil` when it holds no number.
    var largestNumber: Double? {
        switch self {
        case .null, .bool, .string: return nil
        case .number(let value): return value
        case .array(let elements): return elements.compactMap(\.largestNumber).max { abs($0) < abs($1) }
        case .object(let object): return object.values.values.compactMap(\.largestNumber).max { abs($0) < abs($1) }
        }
    }

    /// Compact canonical JSON: no whitespace, keys in their order, numbers without exponent or trailing zeros.
    var canonicalText: String { text(sortingKeys: false) }

    /// Compact canonical JSON with every object's keys sorted: the same text for values that compare equal, with
    /// strings written as their scalars (so compare the texts by their code points, not with Swift's `==`).
    var unorderedCanonicalText: String { text(sortingKeys: true) }

    private func text(sortingKeys: Bool) -> String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return Self.numberText(value)
        case .string(let value): return JSONWriter.quoted(value)
        case .array(let elements): return "[" + elements.map { $0.text(sortingKeys: sortingKeys) }.joined(separator: ",") + "]"
        case .object(let object):
            let keys = sortingKeys ? object.keys.sorted() : object.keys
            return "{" + keys.map { JSONWriter.quoted($0) + ":" + object.values[$0]!.text(sortingKeys: sortingKeys) }
                .joined(separator: ",") + "}"
        }
    }

    /// A number in plain decimal notation (`1e-7` → `0.0000001`, `-0.0` → `0`), the shortest that round-trips.
    static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == 0 { return "0" }
        let text = "\(abs(value))"
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exponent = Int(text[text.index(after: e)...].filter { $0 != "+" }) ?? 0
        }
        var digits = Array(mantissa.filter { $0 != "." })
        var point = (mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) }
            ?? mantissa.count) + exponent
        if point <= 0 {
            digits = Array(repeating: "0", count: 1 - point) + digits
            point = 1
        }
        if point > digits.count { digits += Array(repeating: "0", count: point - digits.count) }
        var integer = String(digits[..<point])
        var fraction = String(digits[point...])
        while fraction.last == "0" { fraction.removeLast() }
        while integer.count > 1, integer.first == "0" { integer.removeFirst() }
        return (value < 0 ? "-" : "") + integer + (fraction.isEmpty ? "" : "." + fraction)
    }
}

extension JSONSchemaValue: Equatable {
    /// JSON Schema equality: numbers by value, objects regardless of key order.
    static func == (a: JSONSchemaValue, b: JSONSchemaValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.keys.count == y.keys.count && x.keys.allSatisfy { key in y.values[key].map { $0 == x.values[key]! } ?? false }
        default: return false
        }
    }
}

/// A JSON object with its keys in document order.
struct JSONSchemaObject: Sendable {
    var keys: [String]
    var values: [String: JSONSchemaValue]

    init(keys: [String], values: [String: JSONSchemaValue]) {
        self.keys = keys
        self.values = values
    }

    subscript(key: String) -> JSONSchemaValue? {
        get { values[key] }
        set {
            if let newValue {
                if values[key] == nil { keys.append(key) }
                values[key] = newValue
            } else if values.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// The object without `removed` keys.
    func removing(_ removed: Set<String>) -> JSONSchemaObject {
        var copy = self
        for key in removed { copy[key] = nil }
        return copy
    }
}
