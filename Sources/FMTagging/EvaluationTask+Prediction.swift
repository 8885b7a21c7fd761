public import FoundationModels

extension EvaluationTask {
    /// The prediction read from a result in the shape of the gold answer it is scored against, from the fields
    /// `scoring` names (the schema's, whatever order a result lists its members in). For several fields it keeps
    /// only the gold's fields: others are never scored, so they must not make answers differ. A result with no
    /// label for a single-label gold (a schema of lists only) is ``EvaluationReport/missingLabel``: it did
    /// generate, so it is a wrong answer the report counts as missing, not a failed generation.
    public static func prediction(shapedLike gold: LabelledExample.Gold, in result: GeneratedContent,
                                  scoring: ScoredFields) -> LabelledExample.Gold? {
        switch gold {
        case .single: .single(predictedLabel(in: result, field: scoring.label) ?? EvaluationReport.missingLabel)
        case .fields(let values): .fields(predictedFields(in: result).filter { values[$0.key] != nil })
        case .set: .set(predictedSet(in: result, field: scoring.list))
        }
    }

    /// A canonical text for an answer, equal exactly for answers that score the same: the label, `field="value"`
    /// pairs in field order, or the normalised tags sorted; ``EvaluationReport/failureLabel`` for a failed record.
    /// Values and tags are JSON strings, so one that holds the separator (`"pepper, salt"`) is not read as two.
    public static func answerKey(_ answer: LabelledExample.Gold?) -> String {
        func quoted(_ text: String) -> String { GeneratedContent(kind: .string(text)).jsonString }
        return switch answer {
        case nil: EvaluationReport.failureLabel
        case .single(let label)?: label
        case .fields(let values)?: values.sorted { $0.key < $1.key }.map { "\($0.key)=" + quoted($0.value) }.joined(separator: ", ")
        case .set(let tags)?: "[" + EvaluationReport.normalizedTags(tags).sorted().map(quoted).joined(separator: ", ") + "]"
        }
    }
}

/// The result fields a schema's answers are scored from: a single gold label is compared with the field `label`,
/// else the schema's first field of one value; a gold label set with the schema's first list.
public struct ScoredFields: Sendable, Equatable {
    /// The field a single gold label is compared with; `nil` when the schema has no field of one value.
    public var label: String?
    /// The list a gold label set is compared with; `nil` when the schema has no list.
    public var list: String?

    /// Fields named directly.
    public init(label: String? = nil, list: String? = nil) {
        self.label = label
        self.list = list
    }

    /// The fields a result read from a file is scored from, in its own order, since it may come from another
    /// schema: the field `label`, else its first field of one value; the list `labels`, else `tags`, else its first
    /// list.
    public init(result: GeneratedContent) {
        guard case .structure(let properties, let keys) = result.kind else { return }
        label = properties["label"]?.scalarText != nil ? "label" : keys.first { properties[$0]?.scalarText != nil }
        func isList(_ key: String) -> Bool { if case .array? = properties[key]?.kind { true } else { false } }
        list = ["labels", "tags"].first(where: isList) ?? keys.first(where: isList)
    }

    /// The fields `schema`'s answers are scored from.
    public init(schema: GenerationSchema) {
        let properties = Self.properties(of: schema)
        label = (properties.first { $0.name == "label" && Self.isScalar($0.node) } ?? properties.first { Self.isScalar($0.node) })?.name
        list = properties.first { if case .array? = $0.node { true } else { false } }?.name
    }

    /// The root object's properties in schema order, references resolved; none for a root of another kind.
    static func properties(of schema: GenerationSchema) -> [(name: String, node: GenerationSchema.Node?)] {
        let resolve = schema.resolving
        guard case .object(let object)? = resolve(schema.root) else { return [] }
        return object.properties.map { ($0.name, resolve($0.node)) }
    }

    /// Whether a node holds one value, which a single label can be compared with.
    static func isScalar(_ node: GenerationSchema.Node?) -> Bool {
        switch node {
        case .string?, .enumeration?, .integer?, .number?, .boolean?, .constant?: true
        default: false
        }
    }
}
