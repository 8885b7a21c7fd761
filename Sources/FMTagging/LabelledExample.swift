package import FoundationModels

/// One line of labelled data: a text and its gold answer.
public struct LabelledExample: Sendable {
    /// The gold answer's shape.
    public enum Gold: Sendable, Hashable {
        /// One enum value (`"label": "x"`; a number or Boolean gold, `"label": 4`, is named by its JSON text).
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

    /// Reads labelled JSONL; `labelKey` names the gold field (default `label` or `labels`, whichever more lines
    /// have). Lines without a
    /// gold answer are left out; ``parseReportingUnlabelled(input:labelKey:)`` also says which.
    public static func parse(input: [UInt8], labelKey: String? = nil) -> [LabelledExample] {
        parseReportingUnlabelled(input: input, labelKey: labelKey).examples
    }

    /// Reads labelled JSONL, and returns beside the examples why each other non-blank line is not one: the
    /// line's own failure (not JSON, no text) or a missing gold field, one message per line in input order.
    public static func parseReportingUnlabelled(input: [UInt8], labelKey: String? = nil)
        -> (examples: [LabelledExample], unlabelled: [String]) {
        var examples: [LabelledExample] = []
        var unlabelled: [String] = []
        let records = TaggingRecord.parse(input: input)
        // One gold field for the whole file, the one more lines have: a line with only the other is reported, not
        // scored as tags beside single labels (or the reverse).
        func count(_ name: String) -> Int { records.count { record in record.extraFields.contains { $0.key == name } } }
        let key = labelKey ?? (count("label") >= count("labels") ? "label" : "labels")
        let other = key == "label" ? "labels" : "label"
        let readings = records.map { record in
            gold(from: record.extraFields.first { $0.key == key }?.value, writtenAs: record.extraFieldTexts[key])
        }
        // One kind of gold for the whole file, the one more of its scorable lines give: a file is scored as one kind
        // of answer, and a label beside objects of fields would become a field of its own with that one value,
        // always right.
        let golds = readings.compactMap { try? $0.get() }
        func lines(giving shape: Shape) -> Int { golds.count { Shape($0) == shape } }
        // The lines a file of `shape` scores, which one label and a list of one both are.
        func linesScored(as shape: Shape) -> Int {
            golds.count { gold in
                switch (Shape(gold), shape, gold) {
                case (let own, let file, _) where own == file: true
                case (.single, .set, _): true
                case (.set, .single, .set(let labels)): labels.count == 1
                default: false
                }
            }
        }
        // On a tie the first of single labels, objects and lists.
        let shape = Shape.allCases.max { lines(giving: $0) < lines(giving: $1) } ?? .single
        func add(_ record: TaggingRecord, _ gold: Gold) {
            switch (Shape(gold), shape, gold) {
            case (let own, let file, _) where own == file: examples.append(LabelledExample(record: record, gold: gold))
            // One label and a list of one say the same.
            case (.single, .set, .single(let label)): examples.append(LabelledExample(record: record, gold: .set([label])))
            case (.set, .single, .set(let labels)) where labels.count == 1:
                examples.append(LabelledExample(record: record, gold: .single(labels[0])))
            case (let own, let file, _):
                unlabelled.append("""
                    Record \(record.id)'s "\(key)" is \(own.description), while \(linesScored(as: file)) of the file's lines give \
                    \(file.plural); a file is scored as one kind of answer.
                    """)
            }
        }
        for (record, reading) in zip(records, readings) {
            let id = record.id
            switch reading {
            case .success(let gold): add(record, gold)
            case .failure(.empty): unlabelled.append("Record \(id)'s \"\(key)\" is empty.")
            case .failure(.emptyInList): unlabelled.append("Record \(id)'s \"\(key)\" list holds an empty label.")
            case .failure(.nonLabelInList):
                unlabelled.append("Record \(id)'s \"\(key)\" list holds something other than strings, numbers and Booleans.")
            case .failure(.emptyField(let name)): unlabelled.append("Record \(id)'s \"\(key)\" field \"\(name)\" is empty.")
            case .failure(.nonLabelField(let name)):
                unlabelled.append("Record \(id)'s \"\(key)\" field \"\(name)\" is not a string, number or Boolean.")
            case .failure(.emptyObject): unlabelled.append("Record \(id)'s \"\(key)\" object is empty.")
            case .failure(.reserved(let label)):
                unlabelled.append("Record \(id)'s \"\(key)\" holds \"\(label)\", which a report reserves for a failed record or a missing field.")
            case .failure(.missing):
                if case .failure(let failure) = record.text, failure.code != "missing-text" {
                    unlabelled.append(failure.message)
                } else {
                    let aside = labelKey == nil && record.extraFields.contains(where: { $0.key == other })
                        ? " It has \"\(other)\", which fewer lines of the file have; --label-key chooses the field." : ""
                    unlabelled.append("Record \(id) has no \"\(key)\" string, list or object." + aside)
                }
            }
        }
        return (examples, unlabelled)
    }
}

extension LabelledExample {
    /// The kind of a gold answer, as a file's lines give it.
    enum Shape: CaseIterable {
        case single, fields, set

        init(_ gold: Gold) {
            switch gold {
            case .single: self = .single
            case .fields: self = .fields
            case .set: self = .set
            }
        }

        var description: String {
            switch self {
            case .single: "one label"
            case .fields: "an object of fields"
            case .set: "a list of labels"
            }
        }

        var plural: String {
            switch self {
            case .single: "one label"
            case .fields: "objects of fields"
            case .set: "lists of labels"
            }
        }
    }
}

extension LabelledExample {
    /// Why a line's gold field gives no gold answer, so the line is reported rather than scored.
    enum GoldProblem: Error {
        /// No gold field, or `null`.
        case missing
        /// A label of nothing but whitespace.
        case empty
        /// A list holding such a label.
        case emptyInList
        /// A list holding something other than strings, numbers and Booleans.
        case nonLabelInList
        /// An object whose field (named) is such a label.
        case emptyField(String)
        /// An object whose field (named) is not a string, number or Boolean.
        case nonLabelField(String)
        /// An object of no fields.
        case emptyObject
        /// A label (named) that a report's confusion matrix uses for failed records or missing fields, which would
        /// count a failure as right.
        case reserved(String)
    }

    /// The gold answer a line's gold field gives, or why it gives none.
    ///
    /// - Parameter written: The field's JSON text as the line wrote it, when a `Double` may not hold it (16 digits or
    ///   more): an integer label past 2^53 − 1 is named by that text, since `12345678901234567890` would read back
    ///   as `…7000` (``JSONLiteral/integersAsWritten(in:json:)``).
    static func gold(from value: GeneratedContent?, writtenAs written: String? = nil) -> Result<Gold, GoldProblem> {
        guard let parsed = value else { return .failure(.missing) }
        let value = written.map { JSONLiteral.integersAsWritten(in: parsed, json: $0) } ?? parsed
        let scalars: [GeneratedContent] = switch value.kind {
        case .array(let values): values
        case .structure(let properties, let keys): keys.compactMap { properties[$0] }
        default: [value]
        }
        if let label = scalars.lazy.compactMap(\.scalarText).first(where: EvaluationReport.isReservedSpelling) { return .failure(.reserved(label)) }
        switch value.kind {
        // An empty label names no class (a blank cell in a spreadsheet export), and would become a choice "".
        case .string where value.isBlankScalar: return .failure(.empty)
        // A rating or a yes/no gold (`"label": 4`, `"label": true`) is one value too, named by its JSON.
        case .string, .number, .bool: return .success(.single(value.scalarText ?? ""))
        // A gold part that is not a scalar would be dropped from the scoring, and an object left with no field
        // would count as right whatever the model said: such lines are reported, not scored.
        case .array(let values) where values.contains(where: \.isBlankScalar): return .failure(.emptyInList)
        case .array(let values):
            let labels = values.compactMap(\.scalarText)
            return labels.count == values.count ? .success(.set(labels)) : .failure(.nonLabelInList)
        case .structure(let properties, let keys):
            if let name = keys.first(where: { properties[$0]?.isBlankScalar == true }) { return .failure(.emptyField(name)) }
            if let name = keys.first(where: { properties[$0]?.scalarText == nil }) { return .failure(.nonLabelField(name)) }
            return keys.isEmpty ? .failure(.emptyObject) : .success(.fields(properties.compactMapValues(\.scalarText)))
        default: return .failure(.missing)
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

    /// Whether this is a string of nothing but whitespace: a label that names no class.
    var isBlankScalar: Bool { scalarText?.trimmingWhitespace.isEmpty == true }
}
