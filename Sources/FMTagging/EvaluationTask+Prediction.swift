public import FoundationModels

extension EvaluationTask {
    /// The prediction read from a result in the shape of the gold answer it is scored against. For several
    /// fields it keeps only the gold's fields: others are never scored, so they must not make answers differ. A
    /// result with no label for a single-label gold (a schema of lists only) is ``EvaluationReport/missingLabel``:
    /// it did generate, so it is a wrong answer the report counts as missing, not a failed generation.
    public static func prediction(shapedLike gold: LabelledExample.Gold, in result: GeneratedContent) -> LabelledExample.Gold? {
        switch gold {
        case .single: .single(predictedLabel(in: result) ?? EvaluationReport.missingLabel)
        case .fields(let values): .fields(predictedFields(in: result).filter { values[$0.key] != nil })
        case .set: .set(predictedSet(in: result))
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
