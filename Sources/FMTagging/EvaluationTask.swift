public import FoundationModels
import Foundation

/// How labelled data is turned into a schema and how predictions are read back.
public enum EvaluationTask {
    /// Label sets up to this size become an enum for multi-label data; larger ones are scored as free tags.
    public static let largestMultiLabelEnum = 40

    /// A schema whose enums are the data's label sets: `{label: enum}`, one enum per field, `{labels: [enum]}`
    /// for small multi-label sets, or `{tags: [String]}` (at most 5) for free tags.
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
        if hasSets {
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
        let names = Set(schema.root.propertyNames)
        var members: [String] = []
        func quoted(_ text: String) -> String { GeneratedContent(kind: .string(text)).jsonString }
        // A value outside a field's label set (a label of another set) would teach an answer the decoder can
        // never write; fields of other kinds are left to the schema.
        func allows(_ value: String, in field: String) -> Bool {
            guard case .object(let object) = schema.root,
                  case .enumeration(let labels)? = object.properties.first(where: { $0.name == field })?.node else { return true }
            return labels.choices.contains(value)
        }
        switch gold {
        case .single(let label):
            guard names.contains("label"), allows(label, in: "label") else { return nil }
            members.append("\"label\":" + quoted(label))
        case .fields(let values):
            for name in schema.root.propertyNames {
                guard let value = values[name], allows(value, in: name) else { return nil }
                members.append(quoted(name) + ":" + (value == "true" || value == "false" ? value : quoted(value)))
            }
        case .set(let labels):
            if names.contains("labels") {
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

    /// An example index over labelled examples, with results in `schema`.
    public static func exampleIndex(_ examples: [LabelledExample], schema: GenerationSchema, shots: Int) -> ExampleIndex {
        let pool: [ExampleIndex.Example] = examples.compactMap { example in
            guard case .success(let text) = example.record.text, let result = result(for: example.gold, in: schema) else { return nil }
            return ExampleIndex.Example(id: example.record.id, text: text, result: result)
        }
        return ExampleIndex(examples: pool, shots: shots)
    }

    /// The predicted single label: the `label` field, else the result's first string field.
    public static func predictedLabel(in result: GeneratedContent) -> String? {
        guard case .structure(let properties, let keys) = result.kind else { return result.scalarText }
        if let label = properties["label"]?.scalarText { return label }
        return keys.lazy.compactMap { properties[$0]?.scalarText }.first
    }

    /// The predicted value of each named field.
    public static func predictedFields(in result: GeneratedContent) -> [String: String] {
        guard case .structure(let properties, _) = result.kind else { return [:] }
        return properties.compactMapValues(\.scalarText)
    }

    /// The predicted set: the result's first array of strings.
    public static func predictedSet(in result: GeneratedContent) -> [String] {
        guard case .structure(let properties, let keys) = result.kind else { return [] }
        for key in keys {
            if case .array(let values)? = properties[key]?.kind { return values.compactMap(\.scalarText) }
        }
        return []
    }
}
