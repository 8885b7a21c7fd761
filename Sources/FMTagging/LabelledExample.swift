package import FoundationModels

/// One line of labelled data: a text and its gold answer.
public struct LabelledExample: Sendable {
    /// The gold answer's shape.
    public enum Gold: Sendable, Hashable {
        /// One enum value (`"label": "x"`).
        case single(String)
        /// Several named enum or Boolean fields (`"label": {"topic": "x", …}`).
        case fields([String: String])
        /// A set of labels or free tags (`"labels": [...]`).
        case set([String])
    }

    /// The record (id, text, other fields).
    public var record: TaggingRecord
    /// The gold answer.
    public var gold: Gold

    /// Creates an example.
    public init(record: TaggingRecord, gold: Gold) {
        self.record = record
        self.gold = gold
    }

    /// Reads labelled JSONL; `labelKey` names the gold field (default `label`, else `labels`).
    public static func parse(input: [UInt8], labelKey: String? = nil) -> [LabelledExample] {
        TaggingRecord.parse(input: input).compactMap { record in
            let fields = Dictionary(record.extraFields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            let key = labelKey ?? (fields["label"] != nil ? "label" : "labels")
            switch fields[key]?.kind {
            case .string(let value): return LabelledExample(record: record, gold: .single(value))
            case .array(let values): return LabelledExample(record: record, gold: .set(values.compactMap(\.scalarText)))
            case .structure(let properties, _):
                return LabelledExample(record: record, gold: .fields(properties.compactMapValues(\.scalarText)))
            default: return nil
            }
        }
    }
}

extension GeneratedContent {
    /// A string's text, a Boolean's or number's JSON; `nil` for other kinds.
    package var scalarText: String? {
        switch kind {
        case .string(let text): text
        case .bool(let value): value ? "true" : "false"
        case .number: jsonString
        default: nil
        }
    }
}
