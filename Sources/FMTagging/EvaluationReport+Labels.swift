extension EvaluationReport {
    /// Precision, recall and F1 of one label (or one normalised tag).
    public struct LabelScore: Sendable, Codable, Hashable {
        /// The label.
        public var label: String
        /// How many examples have the label in their gold answer.
        public var support: Int
        /// How many examples were predicted with the label.
        public var predicted: Int
        /// How many examples were predicted with the label and have it in their gold answer.
        public var correct: Int

        /// Creates a score from its counts.
        public init(label: String, support: Int, predicted: Int, correct: Int) {
            self.label = label
            self.support = support
            self.predicted = predicted
            self.correct = correct
        }

        /// The share of predictions of this label that were right; `nil` when it was never predicted.
        public var precision: Double? { predicted > 0 ? Double(correct) / Double(predicted) : nil }
        /// The share of gold occurrences of this label that were predicted; `nil` when it never occurs in gold.
        public var recall: Double? { support > 0 ? Double(correct) / Double(support) : nil }
        /// The harmonic mean of precision and recall (0 when either is missing or both are 0).
        public var f1: Double {
            let denominator = support + predicted
            return denominator > 0 ? 2 * Double(correct) / Double(denominator) : 0
        }
    }

    /// The label a failed record is counted under in a confusion matrix.
    public static let failureLabel = "<error>"

    /// The label a field is counted under when a result was generated without it: not a failed record, so
    /// apart from ``failureLabel`` (and from ``EvaluationReport/failures``).
    public static let missingLabel = "<missing>"

    /// Whether a label is spelled like ``failureLabel`` or ``missingLabel``, after any number of leading
    /// backslashes: such gold labels are refused, and predicted ones are escaped (``reportedLabel(_:)``).
    public static func isReservedSpelling(_ label: String) -> Bool {
        let name = label.drop { $0 == "\\" }
        return name == failureLabel || name == missingLabel
    }

    /// A predicted label as the report counts it. A model's answer spelled like ``failureLabel`` or
    /// ``missingLabel`` (a free-string field can write `<error>`) gets one more leading backslash, so it is counted
    /// as the wrong label it is, not as a failed record or a missing field; every other label is itself.
    public static func reportedLabel(_ label: String) -> String {
        isReservedSpelling(label) ? "\\" + label : label
    }
}

extension EvaluationReport.FieldScore {
    /// Every gold or predicted label, sorted; failed records (``EvaluationReport/failureLabel``) and missing
    /// fields (``EvaluationReport/missingLabel``) are not labels.
    public var labels: [String] {
        var labels = Set(confusion.keys)
        for row in confusion.values { labels.formUnion(row.keys) }
        labels.remove(EvaluationReport.failureLabel)
        labels.remove(EvaluationReport.missingLabel)
        return labels.sorted()
    }

    /// How many examples of a gold label failed to generate.
    public func failures(gold label: String) -> Int {
        confusion[label]?[EvaluationReport.failureLabel] ?? 0
    }

    /// How many examples of a gold label got a result without this field.
    public func missing(gold label: String) -> Int {
        confusion[label]?[EvaluationReport.missingLabel] ?? 0
    }

    /// How many examples got a result without this field.
    public var missing: Int {
        confusion.values.reduce(0) { $0 + ($1[EvaluationReport.missingLabel] ?? 0) }
    }

    /// Precision, recall and F1 per label, read off the confusion matrix, in ``labels`` order.
    public var labelScores: [EvaluationReport.LabelScore] {
        var predicted: [String: Int] = [:]
        for row in confusion.values { for (label, count) in row { predicted[label, default: 0] += count } }
        return labels.map { label in
            EvaluationReport.LabelScore(
                label: label, support: confusion[label]?.values.reduce(0, +) ?? 0,
                predicted: predicted[label] ?? 0, correct: confusion[label]?[label] ?? 0)
        }
    }
}

extension EvaluationReport.SetScore {
    /// Precision, recall and F1 per normalised tag, most frequent in gold or predictions first (ties by name).
    public var tagScores: [EvaluationReport.LabelScore] {
        let tags = Set(hits.keys).union(misses.keys).union(extras.keys)
        return tags.map { tag in
            let hit = hits[tag] ?? 0
            return EvaluationReport.LabelScore(
                label: tag, support: hit + (misses[tag] ?? 0), predicted: hit + (extras[tag] ?? 0), correct: hit)
        }
        .sorted { ($0.support + $0.predicted, $1.label) > ($1.support + $1.predicted, $0.label) }
    }
}
