import FMTagging
import Testing

@Suite struct EvaluationReportTests {
    @Test func singleLabelAccuracyAndMacroF1() {
        let report = EvaluationReport(
            gold: [.single("a"), .single("a"), .single("b"), .single("b")],
            predictions: [.single("a"), .single("b"), .single("b"), nil])
        #expect(report.fields.first?.accuracy == 0.5)
        // F1(a) = 2/3 (one missed), F1(b) = 1/2 (one false positive, one failed).
        #expect(abs((report.fields.first?.macroF1 ?? 0) - 7.0 / 12.0) < 1e-9)
        #expect(report.overallAccuracy == 0.5)
        #expect(report.failures == 1)
        #expect(report.fields.first?.confusion["b"]?["<error>"] == 1)
    }

    @Test func setScoresNormaliseTags() {
        let report = EvaluationReport(gold: [.set(["Bread-Flour", "salt"])], predictions: [.set(["bread flour", "yeast"])])
        #expect(report.set?.precision == 0.5)
        #expect(report.set?.recall == 0.5)
    }

    @Test func allFieldsCorrect() {
        let report = EvaluationReport(
            gold: [.fields(["a": "x", "b": "true"]), .fields(["a": "y", "b": "false"])],
            predictions: [.fields(["a": "x", "b": "true"]), .fields(["a": "y", "b": "true"])])
        #expect(report.overallAccuracy == 0.5)
        #expect(report.fields.count == 2)
    }

    @Test func statisticsGroupVariants() {
        #expect(TagStatistics.normalize("Beaches") == "beach")
        #expect(TagStatistics.normalize("outdoor-activities") == "outdoor activity")
        #expect(TagStatistics.normalize("glass") == "glass")
        var statistics = TagStatistics()
        statistics.add(line: #"{"id":"1","date":"2020-03-10","result":{"topics":["Picnics","beach"]}}"#)
        statistics.add(line: #"{"id":"2","date":"2020-03-11","result":{"topics":["picnic"]}}"#)
        #expect(statistics.tagCounts["topics"]?["picnic"] == 2)
        #expect(statistics.pairCounts["beach + picnic"] == 1)
        #expect(statistics.monthCounts["2020-03"] == 2)
        // Lines that are not fm tag's output are counted apart; blank lines are not lines at all.
        statistics.add(line: "Today we had a lovely picnic.")
        statistics.add(line: "[1, 2]")
        statistics.add(line: "   ")
        // An input line is a JSON object too, but neither a result nor an error.
        statistics.add(line: #"{"id":"3","text":"A picnic."}"#)
        // The last line of a killed job, cut off inside a tag: neither a record nor the tag "cook".
        statistics.add(line: #"{"id":"4","text":"Pasta.","result":{"topics":["cook"#)
        #expect(statistics.unreadableLines == 4)
        #expect(statistics.records == 2)
        #expect(statistics.tagCounts["topics"]?["cook"] == nil)
    }
}
