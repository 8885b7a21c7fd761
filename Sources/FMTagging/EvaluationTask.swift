public import FoundationModels
import Foundation

/// How labelled data is turned into a schema and how predictions are read back.
public enum EvaluationTask {
    /// Label sets up to this size become an enum for multi-label data; larger ones are scored as free tags.
    public static let largestMultiLabelEnum = 40

    /// A schema whose enums are the data's label sets: `{label: enum}`, one enum per field, `{labels: [enum]}`
    /// for small multi-label sets, or `{tags: [String]}` (at most 5) for free tags. Data whose label lists are all
    /// empty gives an object without properties.
    public static func schema(for examples: [LabelledExample]) -> GenerationSchema {
        typealias Property = GenerationSchema.PropertyNode
        var singles: Set<String> = []
        var fields: [String: Set<String>] = [:]
        var setLabels: Set<String> = []
        var hasSets = false
        for example in examples {
            switch example.gold {
            case .single(let label): singles.insert(label)
            case .fields(let values): for (key, value) in values { fields[key, default: []].insert(value) }
            case .set(let labels): hasSets = true; setLabels.formUnion(labels)
            }
        }
        var properties: [Property] = []
        if !singles.isEmpty {
            properties.append(Property(name: "label", description: "The category that best describes the text",
                                       node: .enumeration(.init(name: "Label", choices: singles.sorted()))))
        }
        for (key, values) in fields.sorted(by: { $0.key < $1.key }) {
            if values.isSubset(of: ["true", "false"]) {
                properties.append(Property(name: key, node: .boolean))
            } else {
                properties.append(Property(name: key, node: .enumeration(.init(name: key.capitalized, choices: values.sorted()))))
            }
        }
        // Sets that are all empty give no label to choose from (an enum of none); the caller says so.
        if hasSets, !setLabels.isEmpty {
            if setLabels.count <= largestMultiLabelEnum {
                properties.append(Property(name: "labels", description: "The labels that apply to the text, most relevant first",
                                           node: .array(.init(items: .enumeration(.init(name: "Label", choices: setLabels.sorted())),
                                                              minimumCount: 1, maximumCount: 3))))
            } else {
                properties.append(Property(name: "tags", description: "Most important topics in the input text.",
                                           node: .array(.init(items: .string(.init()), minimumCount: 1, maximumCount: 5))))
            }
        }
        return GenerationSchema(root: .object(.init(name: "Classification", properties: properties)))
    }

    /// The result a labelled example should produce under `schema` (one made by ``schema(for:)``), for use as
    /// a few-shot example; `nil` when the gold answer does not fit the schema.
    public static func result(for gold: LabelledExample.Gold, in schema: GenerationSchema) -> GeneratedContent? {
        let root = schema.resolving(schema.root) ?? schema.root
        let names = Set(root.propertyNames)
        var members: [String] = []
        func quoted(_ text: String) -> String { GeneratedContent(kind: .string(text)).jsonString }
        // A value outside a field's label set (a label of another set) would teach an answer the decoder can
        // never write; fields of other kinds are left to the schema.
        func allows(_ value: String, as node: GenerationSchema.Node?) -> Bool {
            switch node.flatMap(schema.resolving) {
            case .enumeration(let labels)?: labels.choices.contains(value)
            case .string(let guides)?: guides.choices?.contains(value) ?? true
            case .boolean?: value == "true" || value == "false"
            default: true
            }
        }
        func node(of field: String) -> GenerationSchema.Node? {
            guard case .object(let object) = root else { return nil }
            return object.properties.first(where: { $0.name == field })?.node
        }
        func allows(_ value: String, in field: String) -> Bool { allows(value, as: node(of: field)) }
        // A Boolean field (or `"enum": [true, false]`, `"const": true`) writes `true`; a field of labels that only
        // include "true" writes the string `"true"`.
        func isBoolean(_ node: GenerationSchema.Node?) -> Bool {
            switch node.flatMap(schema.resolving) {
            case .boolean?: true
            case .constant(let literal)?: literal == "true" || literal == "false"
            case .anyOf(let union)?: union.choices.contains { isBoolean($0) }
            default: false
            }
        }
        // Whether every label may be an item of the list `field`.
        func allowsItems(_ labels: [String], in field: String) -> Bool {
            guard case .array(let array)? = node(of: field).flatMap(schema.resolving) else { return true }
            return labels.allSatisfy { allows($0, as: array.items) }
        }
        switch gold {
        case .single(let label):
            // A schema whose answer is the label itself (`{"type":"string","enum":[…]}`).
            switch root {
            case .enumeration(let labels): return labels.choices.contains(label) ? GeneratedContent(kind: .string(label)) : nil
            case .string(let guides) where guides.choices != nil:
                return guides.choices?.contains(label) == true ? GeneratedContent(kind: .string(label)) : nil
            default: break
            }
            guard names.contains("label"), allows(label, in: "label") else { return nil }
            members.append("\"label\":" + quoted(label))
        case .fields(let values):
            for name in root.propertyNames {
                guard let value = values[name], allows(value, in: name) else { return nil }
                members.append(quoted(name) + ":" + (isBoolean(node(of: name)) && (value == "true" || value == "false") ? value : quoted(value)))
            }
        case .set(let labels):
            if names.contains("labels") {
                guard allowsItems(Array(labels.prefix(3)), in: "labels") else { return nil }
                members.append("\"labels\":[" + labels.prefix(3).map(quoted).joined(separator: ",") + "]")
            } else if names.contains("tags") {
                // Free tags as the tagging grammar writes them: lowercase words, hyphens as spaces.
                let tags = labels.map { $0.lowercased().replacingOccurrences(of: "-", with: " ") }
                members.append("\"tags\":[" + tags.prefix(5).map(quoted).joined(separator: ",") + "]")
            } else {
                return nil
            }
        }
        return try? GeneratedContent(json: "{" + members.joined(separator: ",") + "}")
    }

    /// What scoring `examples` under a schema the user chose (`--preset`, `--schema`) cannot do, as warnings: gold
    /// values the compared field can never write, gold fields or lists the schema lacks, and which field a single
    /// label or a label set is compared with when the schema offers several. Without them a wrong schema would
    /// score 0 % as if the model had answered badly.
    public static func scoringWarnings(for examples: [LabelledExample], schema: GenerationSchema) -> [String] {
        let resolve = schema.resolving
        // A nullable field's values are those of its other members (null is never a gold value).
        func members(of node: GenerationSchema.Node?) -> [GenerationSchema.Node] {
            guard case .anyOf(let union)? = node else { return node.map { [$0] } ?? [] }
            return union.choices.compactMap(resolve).filter { $0 != .null && $0 != .constant("null") }
        }
        func choices(of node: GenerationSchema.Node?) -> [String]? {
            var values: [String] = []
            for member in members(of: node) {
                switch member {
                case .enumeration(let enumeration): values += enumeration.choices
                case .string(let guides): guard let choices = guides.choices else { return nil }; values += choices
                case .boolean: values += ["false", "true"]
                default: return nil
                }
            }
            return values.isEmpty ? nil : values
        }
        func listed(_ values: [String]) -> String {
            values.prefix(6).joined(separator: ", ") + (values.count > 6 ? ", …" : "")
        }
        let root = resolve(schema.root)
        let properties = ScoredFields.properties(of: schema)
        // A root that is not an object (a union of objects, any value) is scored from each result's own fields,
        // which the schema cannot tell in advance.
        let scoredBySchema = ScoredFields(schema: schema)
        let scored = scoredBySchema ?? ScoredFields()
        let readsResultsFields = scoredBySchema == nil && ScoredFields.canHold(schema, root) { if case .object = $0 { true } else { false } }
        var warnings: [String] = []
        // Gold values a field can never write, by field, with how many examples hold one.
        // Tag sets are scored by their normalised spellings (`Food-Safety` is `food safety`); values as written.
        func unreachable(_ golds: [(example: Int, values: [String])], field: String, node: GenerationSchema.Node?, normalising: Bool = false) {
            guard let allowed = choices(of: node) else { return }
            func spelling(_ values: [String]) -> Set<String> { normalising ? EvaluationReport.normalizedTags(values) : Set(values) }
            let allowedSpellings = spelling(allowed)
            let outside = golds.filter { !spelling($0.values).isSubset(of: allowedSpellings) }
            guard !outside.isEmpty else { return }
            let values = outside.flatMap(\.values).filter { !spelling([$0]).isSubset(of: allowedSpellings) }.reduce(into: [String]()) {
                if !$0.contains($1) { $0.append($1) }
            }.sorted()
            warnings.append("""
                \(outside.count) of \(golds.count) examples have a gold value that \(field) cannot write (\(listed(values))); it \
                allows \(listed(allowed)). Those examples count as wrong whatever the model answers.
                """)
        }
        let singles = examples.enumerated().compactMap { index, example -> (Int, [String])? in
            if case .single(let label) = example.gold { return (index, [label]) } else { return nil }
        }
        if !singles.isEmpty {
            if ScoredFields.canHold(schema, root, where: ScoredFields.isScalar), scoredBySchema == nil {
                unreachable(singles, field: "the answer", node: root)
            } else if readsResultsFields {
                // Each result's own fields are read.
            } else if let field = properties.first(where: { $0.name == scored.label }) {
                let others = properties.filter { $0.name != field.name && ScoredFields.canHold(schema, $0.node, where: ScoredFields.isScalar) }
                    .map(\.name)
                if field.name != "label", !others.isEmpty {
                    warnings.append("Each gold label is compared with the field `\(field.name)`, the schema's first field of one value; \(listed(others)) are not scored.")
                }
                unreachable(singles, field: "the field `\(field.name)`", node: field.node)
            } else {
                warnings.append("The schema has no field of one value to compare the gold labels with; every example counts as wrong.")
            }
        }
        var fieldGolds: [String: [(Int, [String])]] = [:]
        for (index, example) in examples.enumerated() {
            guard case .fields(let values) = example.gold else { continue }
            for (name, value) in values { fieldGolds[name, default: []].append((index, [value])) }
        }
        for (name, golds) in fieldGolds.sorted(by: { $0.key < $1.key }) where !readsResultsFields {
            guard let field = properties.first(where: { $0.name == name }) else {
                warnings.append("The schema has no field `\(name)`; its \(golds.count) gold values count as missing answers.")
                continue
            }
            unreachable(golds, field: "the field `\(name)`", node: field.node)
        }
        let sets = examples.enumerated().compactMap { index, example -> (Int, [String])? in
            if case .set(let labels) = example.gold { return (index, labels) } else { return nil }
        }
        if !sets.isEmpty, !readsResultsFields {
            let lists = properties.filter { ScoredFields.canHold(schema, $0.node, where: ScoredFields.isList) }
            if let compared = lists.first(where: { $0.name == scored.list }) {
                let others = lists.filter { $0.name != compared.name }.map(\.name)
                if !others.isEmpty {
                    let which = ["labels", "tags"].contains(compared.name) ? "by its name" : "the schema's first"
                    warnings.append("Each gold label set is compared with the list `\(compared.name)`, \(which); \(listed(others)) are not scored.")
                }
                let items = members(of: compared.node).lazy.compactMap { node -> GenerationSchema.Node? in
                    if case .array(let array) = node { resolve(array.items) } else { nil }
                }.first
                unreachable(sets, field: "the list `\(compared.name)`", node: items, normalising: true)
            } else {
                warnings.append("The schema has no list to compare the gold label sets with; every example scores 0.")
            }
        }
        return warnings
    }

    /// An example index over labelled examples, with results in `schema`.
    public static func exampleIndex(_ examples: [LabelledExample], schema: GenerationSchema, shots: Int) -> ExampleIndex {
        let pool: [ExampleIndex.Example] = examples.compactMap { example in
            guard case .success(let text) = example.record.text, let result = result(for: example.gold, in: schema) else { return nil }
            return ExampleIndex.Example(id: example.record.id, text: text, result: result)
        }
        return ExampleIndex(examples: pool, shots: shots)
    }

    /// The predicted single label: a scalar result itself, else the result's `field` (``ScoredFields/label``).
    public static func predictedLabel(in result: GeneratedContent, field: String?) -> String? {
        guard case .structure(let properties, _) = result.kind else { return result.scalarText }
        return field.flatMap { properties[$0]?.scalarText }
    }

    /// The predicted value of each named field.
    public static func predictedFields(in result: GeneratedContent) -> [String: String] {
        guard case .structure(let properties, _) = result.kind else { return [:] }
        return properties.compactMapValues(\.scalarText)
    }

    /// The predicted set: the values of the result's list `field` (``ScoredFields/list``); none without it.
    public static func predictedSet(in result: GeneratedContent, field: String?) -> [String] {
        guard case .structure(let properties, _) = result.kind, let field,
              case .array(let values)? = properties[field]?.kind else { return [] }
        return values.compactMap(\.scalarText)
    }
}
