/// A metadata value read back from a transcript's JSON form, when it is not a plain string, number, Boolean
/// or list of one of those.
package indirect enum JSONMetadataValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONMetadataValue])
    case object([String: JSONMetadataValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONMetadataValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONMetadataValue].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value as the plainest Swift type that holds it: `String`, `Int`, `Double`, `Bool`, an array of one of
    /// those, or this value itself.
    var plainValue: any Codable & Sendable & Equatable {
        switch self {
        case .bool(let value): return value
        case .number(let value):
            if value == value.rounded() && abs(value) < 1e15 { return Int(value) }
            return value
        case .string(let value): return value
        case .array(let items):
            let strings = items.compactMap { if case .string(let value) = $0 { value } else { nil } }
            if strings.count == items.count { return strings }
            let flags = items.compactMap { if case .bool(let value) = $0 { value } else { nil } }
            if flags.count == items.count { return flags }
            let numbers = items.compactMap { if case .number(let value) = $0 { value } else { nil } }
            if numbers.count == items.count {
                if numbers.allSatisfy({ $0 == $0.rounded() && abs($0) < 1e15 }) { return numbers.map { Int($0) } }
                return numbers
            }
            return self
        case .null, .object:
            return self
        }
    }
}
