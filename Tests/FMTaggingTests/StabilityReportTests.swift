import FMTagging
import FoundationModels
import Testing

@Suite struct StabilityReportTests {
    static func example(_ id: String, _ gold: LabelledExample.Gold) -> LabelledExample {
        LabelledExample(record: TaggingRecord(id: id, text: .success("text \(id)")), gold: gold)
    }

    @Test func countsDistinctAnswersPerInput() {
        let examples = [Self.example("1", .single("a")), Self.example("2", .single("b")), Self.example("3", .single("a"))]
        let conditions = [StabilityReport.Condition(useCase: "contentTagging", temperature: nil),
                          StabilityReport.Condition(useCase: "general", temperature: 0.3)]
        let report = StabilityReport(examples: examples, conditions: conditions, answers: [
            [[.single("a"), .single("b"), .single("a")], [.single("a"), .single("b"), .single("a")], [.single("a"), .single("b"), .single("a")]],
            [[.single("a"), .single("a"), nil], [.single("b"), .single("b"), .single("a")], [.single("a"), .single("b"), .single("b")]],
        ])
        #expect(report.runs == 3)
        #expect(report.scoreName == "accuracy")
        #expect(report.conditions[0].distinctAnswers == [1, 1, 1])
        #expect(report.conditions[0].singleAnswerShare == 1)
        #expect(report.conditions[0].scores == [1, 1, 1])
        #expect(report.conditions[1].distinctAnswers == [2, 2, 3])
        #expect(report.conditions[1].singleAnswerShare == 0)
        #expect(abs(report.conditions[1].meanDistinctAnswers - 7.0 / 3.0) < 1e-12)
        #expect(report.conditions[1].failures == 1)
        #expect(report.conditions[1].histogram(runs: 3) == [0, 2, 1])
        #expect(report.unstableInputs.map(\.id) == ["1", "2", "3"])
        #expect(report.inputs[2].answers[1] == ["<error>", "a", "b"])
        #expect(report.conditions[1].condition.name == ".general sampling T=0.3")
        #expect(report.tableText.contains(".contentTagging greedy"))
    }

    @Test func tagSetsAreComparedAsNormalisedSets() {
        let examples = [Self.example("1", .set(["Bread", "salt"]))]
        let report = StabilityReport(
            examples: examples, conditions: [.init(useCase: "contentTagging", temperature: 0.3)],
            answers: [[[.set(["salt", "bread"])], [.set(["bread", "Salt"])], [.set(["salt"])]]])
        #expect(report.scoreName == "tag F1")
        #expect(report.conditions[0].distinctAnswers == [2])
        #expect(report.inputs[0].gold == #"["bread", "salt"]"#)
    }

    /// A result with no label for a single-label gold (only lists) did generate: it is a missing label, a wrong
    /// answer, not a failed record.
    @Test func aResultWithoutALabelIsMissingNotFailed() throws {
        let result = try GeneratedContent(json: #"{"tags":["x"]}"#)
        let prediction = EvaluationTask.prediction(shapedLike: .single("spam"), in: result, scoring: ScoredFields(result: result))
        #expect(prediction == .single(EvaluationReport.missingLabel))
        let report = EvaluationReport(gold: [.single("spam")], predictions: [prediction])
        #expect(report.failures == 0)
        #expect(report.fields.first?.missing == 1)
        #expect(report.tableText.hasPrefix("examples: 1   failed: 0   fields missing from results: 1"))
    }

    /// Fields the gold does not have are never scored, so they are dropped from a prediction: a changing
    /// `topic` on a row whose gold has only `sentiment` is one answer, and the right one.
    @Test func fieldPredictionsKeepOnlyTheGoldsFields() throws {
        let both: LabelledExample.Gold = .fields(["sentiment": "pos", "topic": "x"])
        let sentimentOnly: LabelledExample.Gold = .fields(["sentiment": "pos"])
        let runs = try [#"{"sentiment":"pos","topic":"x"}"#, #"{"sentiment":"pos","topic":"y"}"#].map { try GeneratedContent(json: $0) }
        #expect(EvaluationTask.prediction(shapedLike: sentimentOnly, in: runs[0], scoring: ScoredFields()) == sentimentOnly)
        let examples = [Self.example("1", both), Self.example("2", sentimentOnly)]
        let answers = runs.map { result in examples.map { EvaluationTask.prediction(shapedLike: $0.gold, in: result, scoring: ScoredFields()) } }
        let report = StabilityReport(examples: examples, conditions: [.init(useCase: "general", temperature: 0.3)], answers: [answers])
        #expect(report.conditions[0].distinctAnswers == [2, 1])
        #expect(report.inputs[1].answers[0] == [report.inputs[1].gold, report.inputs[1].gold])
        #expect(report.conditions[0].scores == [1, 0.5])
    }

    /// A whole temperature beyond `Int`'s range, or an infinite one, is named without trapping.
    @Test func hugeTemperaturesAreNamedWithoutTrapping() {
        #expect(StabilityReport.Condition(useCase: "general", temperature: 2).name == ".general sampling T=2")
        #expect(StabilityReport.Condition(useCase: "general", temperature: 1e19).name == ".general sampling T=" + String(1e19))
        #expect(StabilityReport.Condition(useCase: "general", temperature: .infinity).name == ".general sampling T=inf")
    }

    /// The listing of unstable inputs pads ids by Characters: a decomposed accent does not shift the counts.
    @Test func unstableInputsAlignWhateverTheirIds() {
        let examples = [Self.example("cafe\u{301}", .single("a")), Self.example("tea1", .single("a"))]
        let report = StabilityReport(
            examples: examples, conditions: [.init(useCase: "general", temperature: 0.3)],
            answers: [[[.single("a"), .single("a")], [.single("b"), .single("b")]]])
        let rows = report.tableText.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  caf") || $0.hasPrefix("  tea1") }
        #expect(rows.count == 2)
        #expect(Set(rows.map(\.count)).count == 1, "\(rows)")
    }

    @Test func answerKeysIgnoreFieldOrder() {
        #expect(EvaluationTask.answerKey(.fields(["b": "1", "a": "2"])) == "a=\"2\", b=\"1\"")
        #expect(EvaluationTask.answerKey(nil) == EvaluationReport.failureLabel)
    }

    /// A tag or value holding the separator is one answer, not two: the answers score differently, so they are
    /// different answers.
    @Test func answerKeysKeepSeparatorsInsideValues() {
        #expect(EvaluationTask.answerKey(.set(["pepper", "salt"])) != EvaluationTask.answerKey(.set(["pepper, salt"])))
        #expect(EvaluationTask.answerKey(.fields(["a": "x, b=\"y\""])) != EvaluationTask.answerKey(.fields(["a": "x", "b": "y"])))
        #expect(EvaluationTask.answerKey(.set(["Salt", "pepper"])) == EvaluationTask.answerKey(.set(["pepper", "salt"])))
    }
}

@Suite struct LabelScoreTests {
    @Test func perLabelPrecisionAndRecallFromTheConfusionMatrix() {
        let report = EvaluationReport(
            gold: [.single("a"), .single("a"), .single("b"), .single("b"), .single("c")],
            predictions: [.single("a"), .single("b"), .single("b"), nil, .single("a")])
        let scores = Dictionary(uniqueKeysWithValues: report.fields[0].labelScores.map { ($0.label, $0) })
        #expect(report.fields[0].labels == ["a", "b", "c"])
        #expect(scores["a"]?.precision == 0.5)
        #expect(scores["a"]?.recall == 0.5)
        #expect(scores["b"]?.precision == 0.5)
        #expect(scores["b"]?.recall == 0.5)
        #expect(scores["c"]?.precision == nil, "never predicted")
        #expect(scores["c"]?.recall == 0)
        #expect(report.fields[0].failures(gold: "b") == 1)
        // Macro-F1 over the labels (all of them gold here) agrees with the per-label F1s.
        let macro = (scores["a"]!.f1 + scores["b"]!.f1 + scores["c"]!.f1) / 3
        #expect(abs(macro - report.fields[0].macroF1) < 1e-12)
    }

    @Test func setScoresCountHitsMissesAndExtras() throws {
        let report = EvaluationReport(
            gold: [.set(["salt", "Bread"]), .set(["salt"]), .set(["yeast"])],
            predictions: [.set(["salt", "sugar"]), .set(["salt"]), nil])
        let set = try #require(report.set)
        #expect(set.hits == ["salt": 2])
        #expect(set.misses == ["bread": 1, "yeast": 1])
        #expect(set.extras == ["sugar": 1])
        let first = set.tagScores.first
        #expect(first?.label == "salt")
        #expect(first?.precision == 1)
        #expect(first?.recall == 1)
        #expect(set.tagScores.first { $0.label == "sugar" }?.recall == nil)
    }

    @Test func statisticsCountCooccurrencesAndMonthlyTags() {
        var statistics = TagStatistics()
        statistics.add(line: #"{"id":"1","date":"2020-03-10","result":{"topics":["Picnics","beach"],"mood":"happy"}}"#)
        statistics.add(line: #"{"id":"2","date":"2020-04-11","result":{"topics":["picnic","sun"]}}"#)
        statistics.add(line: #"{"id":"3","result":{"topics":["picnic"]}}"#)
        #expect(statistics.cooccurrences("beach", "picnic") == 1)
        #expect(statistics.cooccurrences("picnic", "beach") == 1)
        #expect(statistics.cooccurrences("picnic", "picnic") == 3)
        #expect(statistics.cooccurrences("happy", "picnic") == 0, "single values are not list tags")
        #expect(statistics.listTagCounts["sun"] == 1)
        #expect(statistics.monthTagCounts["topics"]?["2020-03"]?["picnic"] == 1)
        #expect(statistics.monthTagCounts["topics"]?["2020-04"]?["sun"] == 1)
        #expect(statistics.monthTagCounts["mood"]?["2020-03"]?["happy"] == 1)
    }
}
