import Foundation

/// Switches that turn off one quality measure at a time, so `fm eval` can measure what each is worth:
/// `FM_DISABLE=holdback,examples,schema-placement,choice-scoring` (any subset, comma separated).
///
/// - `holdback`: forced text keeps its last token even when the model would merge it with what follows.
/// - `examples`: content tagging opens without its built-in example turns.
/// - `schema-placement`: content tagging describes the schema after the text, not in the system text.
/// - `choice-scoring`: greedy decoding picks enumeration and Bool values by their first token.
///
/// Everything is on by default; these exist for measurement, not for tuning applications.
package enum QualityLevers {
    private static let disabled: Set<Substring> = Set(
        (ProcessInfo.processInfo.environment["FM_DISABLE"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces)[...] })

    package static let holdsBackBoundaryTokens = !disabled.contains("holdback")
    package static let usesTaggingExamples = !disabled.contains("examples")
    package static let describesTaggingSchemaInSystemText = !disabled.contains("schema-placement")
    package static let scoresChoices = !disabled.contains("choice-scoring")
}
