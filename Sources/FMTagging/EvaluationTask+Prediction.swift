public import FoundationModels

extension EvaluationTask {
    /// The prediction read from a result in the shape of the gold answer it is scored against, from the fields
    /// `scoring` names (the schema's, whatever order a result lists its members in), or, when it is `nil`, from
    /// the result's own (``ScoredFields/init(result:)``). For several fields it keeps
    /// only the gold's fields: others are never scored, so they must not make answers differ. A result with no
    /// label for a single-label gold (a schema of lists only) is ``EvaluationReport/missingLabel``: it did
    /// generate, so it is a wrong answer the report counts as missing, not a failed generation. A label spelled
    /// like those names is escaped (``EvaluationReport/reportedLabel(_:)``).
    public static func prediction(shapedLike gold: LabelledExample.Gold, in result: GeneratedContent,
                                  scoring: ScoredFields?) -> LabelledExample.Gold? {
        let scoring = scoring ?? ScoredFields(result: result)
        return switch gold {
        case .single: .single(predictedLabel(in: result, field: scoring.label).map(EvaluationReport.reportedLabel)
                              ?? EvaluationReport.missingLabel)
        case .fields(let values):
            .fields(predictedFields(in: result).filter { values[$0.key] != nil }.mapValues(EvaluationReport.reportedLabel))
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

/// The result fields answers are scored from. A single gold label is compared with the field `label`, else the
/// first field that can hold one value; a gold label set with the list `labels`, else `tags`, else the first
/// field that can hold a list.
public struct ScoredFields: Sendable, Equatable {
    /// The field a single gold label is compared with; `nil` when there is none that can hold one value.
    public var label: String?
    /// The list a gold label set is compared with; `nil` when there is none.
    public var list: String?

    /// Fields named directly.
    public init(label: String? = nil, list: String? = nil) {
        self.label = label
        self.list = list
    }

    /// The fields a result read from a file is scored from, in its own order, since it may come from another
    /// schema. A field named `label`, `labels` or `tags` is chosen whatever it holds (`null` from a nullable
    /// schema is a missing answer, as in a run of the model), another only for a value of the right kind.
    public init(result: GeneratedContent) {
        guard case .structure(let properties, let keys) = result.kind else { return }
        label = properties["label"] != nil ? "label" : keys.first { properties[$0]?.scalarText != nil }
        func isList(_ key: String) -> Bool { if case .array? = properties[key]?.kind { true } else { false } }
        list = ["labels", "tags"].first { properties[$0] != nil } ?? keys.first(where: isList)
    }

    /// The fields answers in `schema` are scored from; `nil` for a schema whose root is not an object (a union
    /// of objects, any value), where each result's own fields are read.
    public init?(schema: GenerationSchema) {
        guard case .object? = schema.resolving(schema.root) else { return nil }
        let properties = Self.properties(of: schema)
        // A field of the kind itself is chosen before one that can also hold it (a union, any value).
        func chosen(_ names: [String], _ test: (GenerationSchema.Node) -> Bool) -> String? {
            let able = properties.filter { Self.canHold(schema, $0.node, where: test) }
            return names.first { name in able.contains { $0.name == name } }
                ?? able.first { $0.node.map(test) == true }?.name ?? able.first?.name
        }
        label = chosen(["label"], Self.isScalar)
        list = chosen(["labels", "tags"], Self.isList)
    }

    /// The root object's properties in schema order, references resolved; none for a root of another kind.
    static func properties(of schema: GenerationSchema) -> [(name: String, node: GenerationSchema.Node?)] {
        let resolve = schema.resolving
        guard case .object(let object)? = resolve(schema.root) else { return [] }
        return object.properties.map { ($0.name, resolve($0.node)) }
    }

    /// Whether a node holds one value, which a single label can be compared with.
    static func isScalar(_ node: GenerationSchema.Node) -> Bool {
        switch node {
        case .string, .enumeration, .integer, .number, .boolean, .constant: true
        default: false
        }
    }

    /// Whether a node is a list, which a label set can be compared with.
    static func isList(_ node: GenerationSchema.Node) -> Bool {
        if case .array = node { true } else { false }
    }

    /// Whether a value of `node` can be one that `test` accepts: any value can, and a union can when one of its
    /// choices can (a nullable field, `{"type": ["string", "null"]}`, is such a union).
    static func canHold(_ schema: GenerationSchema, _ node: GenerationSchema.Node?,
                        where test: (GenerationSchema.Node) -> Bool) -> Bool {
        // Each node once: unions of references to unions are walked, not expanded.
        var pending = node.flatMap(schema.resolving).map { [$0] } ?? []
        var seen: Set<GenerationSchema.Node> = []
        while let node = pending.popLast() {
            guard seen.insert(node).inserted else { continue }
            switch node {
            case .any: return true
            case .anyOf(let union): pending += union.choices.compactMap(schema.resolving)
            default: if test(node) { return true }
            }
        }
        return false
    }
}
