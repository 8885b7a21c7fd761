public import FoundationModels

extension EvaluationTask {
    /// The prediction read from a result in the shape of the gold answer it is scored against. For several
    /// fields it keeps only the gold's fields: others are never scored, so they must not make answers differ.
    public static func prediction(shapedLike gold: LabelledExample.Gold, in result: GeneratedContent) -> LabelledExample.Gold? {
        switch gold {
        case .single: predictedLabel(in: result).map { .single($0) }
        case .fields(let values): .fields(predictedFields(in: result).filter { values[$0.key] != nil })
        case .set: .set(predictedSet(in: result))
        }
    }

    /// A canonical text for an answer, equal for answers that score the same: the label, `field=value` pairs
    /// in field order, or the normalised tags sorted; ``EvaluationReport/failureLabel`` for a failed record.
    public static func answerKey(_ answer: LabelledExample.Gold?) -> String {
        switch answer {
        case nil: EvaluationReport.failureLabel
        case .single(let label)?: label
        case .fields(let values)?: values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
        case .set(let tags)?: "[" + EvaluationReport.normalizedTags(tags).sorted().joined(separator: ", ") + "]"
        }
    }
}
