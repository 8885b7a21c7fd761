/// Scores of predictions against gold labels: per-field accuracy, macro-F1 and confusion, all-fields-correct
/// accuracy, and set precision/recall/F1 for multi-label or free tags.
public struct EvaluationReport: Sendable, Codable {
    /// Scores for one enum or Boolean field.
    public struct FieldScore: Sendable, Codable {
        /// The field name.
        public var field: String
        /// How many examples were scored.
        public var count: Int
        /// The fraction predicted exactly.
        public var accuracy: Double
        /// The mean of per-label F1 over every label that is gold or predicted (as scikit-learn's macro average): a
        /// label predicted but never gold counts with F1 0. Failed records and missing fields are no label.
        public var macroF1: Double
        /// Counts by gold label, then by predicted label (``EvaluationReport/failureLabel`` for failed records,
        /// ``EvaluationReport/missingLabel`` for results without the field).
        public var confusion: [String: [String: Int]]
    }

    /// Set scores for multi-label or free-tag gold.
    public struct SetScore: Sendable, Codable {
        /// How many examples were scored.
        public var count: Int
        /// Micro-averaged precision.
        public var precision: Double
        /// Micro-averaged recall.
        public var recall: Double
        /// F1 of the micro precision and recall.
        public var f1: Double
        /// Per normalised tag, how many examples predicted it and had it in their gold set.
        public var hits: [String: Int] = [:]
        /// Per normalised tag, how many examples had it in their gold set but did not predict it.
        public var misses: [String: Int] = [:]
        /// Per normalised tag, how many examples predicted it without having it in their gold set.
        public var extras: [String: Int] = [:]
    }

    /// The number of examples.
    public var count: Int
    /// The number of examples whose generation failed (scored as wrong).
    public var failures: Int
    /// Per-field scores.
    public var fields: [FieldScore]
    /// The fraction of examples with every field right (seed 001's `overallAccuracy`).
    public var overallAccuracy: Double?
    /// Set scores, when the gold is a set.
    public var set: SetScore?
    /// How many lines of the labelled file have no gold answer that can be scored, and are not in this report;
    /// `nil` when every line has one.
    public var unlabelled: Int?
    /// How many labelled lines a limit on the examples scored (`fm eval --limit`) left out; `nil` when none.
    public var pastLimit: Int?

    /// Normalises a tag for set comparison: lowercase, hyphens and underscores as spaces, spaces collapsed.
    public static func normalizeTag(_ tag: String) -> String {
        tag.lowercased().map { $0 == "-" || $0 == "_" ? " " : $0 }
            .reduce(into: "") { text, character in
                if character == " ", text.last == " " || text.isEmpty { return }
                text.append(character)
            }
            .trimmingWhitespace
    }

    /// The distinct normalised tags of a list, without those that normalise to nothing (say, `"-"`).
    public static func normalizedTags(_ tags: [String]) -> Set<String> {
        Set(tags.map(normalizeTag).filter { !$0.isEmpty })
    }

    /// Scores predictions (`nil` = failed record) against gold answers, pairwise.
    public init(gold: [LabelledExample.Gold], predictions: [LabelledExample.Gold?]) {
        count = gold.count
        failures = predictions.filter { $0 == nil }.count
        var pairs: [String: [(String, String)]] = [:]
        var fieldOrder: [String] = []
        var allRight = 0
        var fieldExamples = 0
        var truePositives = 0, predicted = 0, relevant = 0, setExamples = 0
        var hits: [String: Int] = [:], misses: [String: Int] = [:], extras: [String: Int] = [:]
        for (goldValue, prediction) in zip(gold, predictions) {
            switch goldValue {
            case .single(let label):
                var predictedLabel = Self.failureLabel
                if case .single(let value)? = prediction { predictedLabel = value }
                if pairs["label"] == nil { fieldOrder.append("label") }
                pairs["label", default: []].append((label, predictedLabel))
                fieldExamples += 1
                if label == predictedLabel { allRight += 1 }
            case .fields(let values):
                var predictedValues: [String: String]?
                if case .fields(let value)? = prediction { predictedValues = value }
                var right = true
                for (key, label) in values.sorted(by: { $0.key < $1.key }) {
                    // A result without the field is not a failed generation: it gets a label of its own.
                    let guess = predictedValues.map { $0[key] ?? Self.missingLabel } ?? Self.failureLabel
                    if pairs[key] == nil { fieldOrder.append(key) }
                    pairs[key, default: []].append((label, guess))
                    if guess != label { right = false }
                }
                fieldExamples += 1
                if right { allRight += 1 }
            case .set(let labels):
                let goldSet = Self.normalizedTags(labels)
                var predictedSet: Set<String> = []
                if case .set(let value)? = prediction { predictedSet = Self.normalizedTags(value) }
                truePositives += goldSet.intersection(predictedSet).count
                for tag in goldSet.intersection(predictedSet) { hits[tag, default: 0] += 1 }
                for tag in goldSet.subtracting(predictedSet) { misses[tag, default: 0] += 1 }
                for tag in predictedSet.subtracting(goldSet) { extras[tag, default: 0] += 1 }
                predicted += predictedSet.count
                relevant += goldSet.count
                setExamples += 1
            }
        }
        fields = fieldOrder.map { Self.score(field: $0, pairs: pairs[$0] ?? []) }
        overallAccuracy = fieldExamples > 0 ? Double(allRight) / Double(fieldExamples) : nil
        if setExamples > 0 {
            let precision = predicted > 0 ? Double(truePositives) / Double(predicted) : 0
            let recall = relevant > 0 ? Double(truePositives) / Double(relevant) : 0
            let f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
            set = SetScore(count: setExamples, precision: precision, recall: recall, f1: f1,
                           hits: hits, misses: misses, extras: extras)
        }
    }

    private static func score(field: String, pairs: [(String, String)]) -> FieldScore {
        var confusion: [String: [String: Int]] = [:]
        var correct = 0
        for (gold, guess) in pairs {
            confusion[gold, default: [:]][guess, default: 0] += 1
            if gold == guess { correct += 1 }
        }
        var score = FieldScore(field: field, count: pairs.count,
                               accuracy: pairs.isEmpty ? 0 : Double(correct) / Double(pairs.count),
                               macroF1: 0, confusion: confusion)
        // The mean over the label set the per-label table shows (sorted, so the sum is the same in every process).
        let f1s = score.labelScores.map(\.f1)
        score.macroF1 = f1s.isEmpty ? 0 : f1s.reduce(0, +) / Double(f1s.count)
        return score
    }
}
