/// How repeatable a tagging setup is: the same inputs tagged several times under each of several conditions
/// (use case, greedy or sampled decoding), counting per input how many distinct answers the runs gave.
///
/// Answers are compared as they are scored (``EvaluationTask/answerKey(_:)``): the label, the field values, or
/// the set of normalised tags; a failed generation is an answer of its own.
public struct StabilityReport: Sendable, Codable {
    /// One way of running the tagger.
    public struct Condition: Sendable, Codable, Hashable {
        /// `general` or `contentTagging`: the model's use case.
        public var useCase: String
        /// The sampling temperature, or `nil` for greedy decoding.
        public var temperature: Double?

        /// Creates a condition.
        public init(useCase: String, temperature: Double?) {
            self.useCase = useCase
            self.temperature = temperature
        }

        /// Whether the condition decodes greedily.
        public var isGreedy: Bool { temperature == nil }

        /// A short name: `.contentTagging greedy`, `.general sampling T=0.3`.
        public var name: String {
            "." + useCase + " " + (temperature.map { "sampling T=" + Self.format($0) } ?? "greedy")
        }

        private static func format(_ value: Double) -> String {
            let rounded = (value * 100).rounded() / 100
            // `Int(exactly:)`, not `Int(_:)`: a whole number beyond `Int`'s range (or infinity) would trap.
            if rounded == rounded.rounded(), let whole = Int(exactly: rounded) { return String(whole) }
            return String(rounded)
        }
    }

    /// The results of one condition.
    public struct ConditionResult: Sendable, Codable {
        /// The condition.
        public var condition: Condition
        /// Per input, in input order, how many distinct answers the runs gave.
        public var distinctAnswers: [Int]
        /// The share of inputs whose runs all gave the same answer.
        public var singleAnswerShare: Double
        /// The mean number of distinct answers per input.
        public var meanDistinctAnswers: Double
        /// Failed generations over all runs.
        public var failures: Int
        /// Per run, the score against the gold answers (see ``StabilityReport/scoreName``).
        public var scores: [Double]

        /// The mean of ``scores``.
        public var meanScore: Double { scores.isEmpty ? 0 : scores.reduce(0, +) / Double(scores.count) }

        /// How many inputs had 1, 2, … `runs` distinct answers (index 0 counts inputs with one answer).
        public func histogram(runs: Int) -> [Int] {
            var counts = [Int](repeating: 0, count: max(runs, distinctAnswers.max() ?? 0))
            for distinct in distinctAnswers where distinct > 0 { counts[distinct - 1] += 1 }
            return counts
        }
    }

    /// One input and every answer it got.
    public struct Input: Sendable, Codable {
        /// The record's id.
        public var id: String
        /// The text.
        public var text: String
        /// The gold answer's key.
        public var gold: String
        /// Per condition (in ``StabilityReport/conditions`` order), the answer key of each run.
        public var answers: [[String]]
    }

    /// How many times each condition ran over the inputs.
    public var runs: Int
    /// What each run's score measures: `accuracy` (every field right) or `tag F1`.
    public var scoreName: String
    /// Per condition, its results.
    public var conditions: [ConditionResult]
    /// Every input with its answers.
    public var inputs: [Input]

    /// Builds the report from the answers of every run: `answers[condition][run][input]` (`nil` = failed).
    public init(examples: [LabelledExample], conditions: [Condition], answers: [[[LabelledExample.Gold?]]]) {
        precondition(answers.count == conditions.count, "one list of runs per condition")
        runs = answers.map(\.count).max() ?? 0
        let golds = examples.map(\.gold)
        let isFieldTask = golds.contains { if case .set = $0 { false } else { true } }
        scoreName = isFieldTask ? "accuracy" : "tag F1"
        var inputs = examples.map { example in
            Input(id: example.record.id, text: (try? example.record.text.get()) ?? "",
                  gold: EvaluationTask.answerKey(example.gold), answers: [])
        }
        self.conditions = zip(conditions, answers).map { condition, runAnswers in
            var distinct: [Int] = []
            for index in examples.indices {
                let keys = runAnswers.map { index < $0.count ? EvaluationTask.answerKey($0[index]) : EvaluationReport.failureLabel }
                inputs[index].answers.append(keys)
                distinct.append(Set(keys).count)
            }
            let scores = runAnswers.map { predictions in
                let report = EvaluationReport(gold: golds, predictions: predictions)
                return (isFieldTask ? report.overallAccuracy : report.set?.f1) ?? 0
            }
            let failures = runAnswers.reduce(0) { total, run in total + run.filter { $0 == nil }.count }
            let single = distinct.filter { $0 == 1 }.count
            return ConditionResult(
                condition: condition, distinctAnswers: distinct,
                singleAnswerShare: distinct.isEmpty ? 0 : Double(single) / Double(distinct.count),
                meanDistinctAnswers: distinct.isEmpty ? 0 : Double(distinct.reduce(0, +)) / Double(distinct.count),
                failures: failures, scores: scores)
        }
        self.inputs = inputs
    }

    /// The inputs that got more than one answer under some condition, in input order.
    public var unstableInputs: [Input] {
        inputs.filter { input in input.answers.contains { Set($0).count > 1 } }
    }
}
