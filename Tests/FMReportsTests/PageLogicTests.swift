import FMReports
import FMTagging
import Testing

@Suite struct PageLogicTests {
    @Test func smallLabelSetsShowWhole() {
        let report = EvaluationReport(gold: [.single("b"), .single("a")], predictions: [.single("a"), nil])
        #expect(EvaluationPage.heatmapLabels(report.fields[0]) == ["a", "b"])
    }

    @Test func largeLabelSetsShowTheMostConfusedLabels() {
        // 50 labels, all right except x1 → x2 (twice) and x3 → x4.
        var gold: [LabelledExample.Gold] = (0..<50).map { .single("l\($0)") }
        var predictions: [LabelledExample.Gold?] = gold
        gold += [.single("x1"), .single("x1"), .single("x3")]
        predictions += [.single("x2"), .single("x2"), .single("x4")]
        let field = EvaluationReport(gold: gold, predictions: predictions).fields[0]
        let shown = EvaluationPage.heatmapLabels(field, limit: 10)
        #expect(shown.count == 10)
        for label in ["x1", "x2", "x3", "x4"] { #expect(shown.contains(label)) }
        #expect(shown == shown.sorted())
    }

    @Test func freeTagSchemasAreToldFromLabelSets() {
        let free = #"{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}},"propertyOrdering":["tags"]}"#
        let enumerated = #"{"type":"object","properties":{"labels":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}"#
        let referenced = ##"{"$defs":{"L":{"type":"string","enum":["a"]}},"type":"object","properties":{"labels":{"type":"array","items":{"$ref":"#/$defs/L"}}}}"##
        #expect(EvaluationPage.isFreeTagSchema(free))
        #expect(!EvaluationPage.isFreeTagSchema(enumerated))
        #expect(!EvaluationPage.isFreeTagSchema(referenced))
        // Choices written as alternatives of constants, directly or through references, are a label set too.
        let constants = #"{"type":"object","properties":{"labels":{"type":"array","items":{"anyOf":[{"const":"a"},{"const":"b"}]}}}}"#
        let referencedConstants = ##"{"$defs":{"A":{"const":"a"},"B":{"enum":["b","c"]}},"type":"object","properties":{"labels":{"type":"array","items":{"oneOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/B"}]}}}}"##
        let mixed = #"{"type":"object","properties":{"tags":{"type":"array","items":{"anyOf":[{"const":"a"},{"type":"string"}]}}}}"#
        let loop = ##"{"$defs":{"L":{"anyOf":[{"$ref":"#/$defs/L"}]}},"type":"object","properties":{"tags":{"type":"array","items":{"$ref":"#/$defs/L"}}}}"##
        #expect(!EvaluationPage.isFreeTagSchema(constants))
        #expect(!EvaluationPage.isFreeTagSchema(referencedConstants))
        #expect(EvaluationPage.isFreeTagSchema(mixed), "one free alternative makes the tags free")
        #expect(EvaluationPage.isFreeTagSchema(loop), "a reference back to itself ends the walk")
    }

    @Test func misclassifiedCellsMarkHitsMissesAndExtras() {
        #expect(EvaluationPage.misclassifiedCells(gold: .single("a"), prediction: .single("a")) == nil)
        #expect(EvaluationPage.misclassifiedCells(gold: .single("a"), prediction: nil)?[1].contains("failed") == true)
        #expect(EvaluationPage.misclassifiedCells(gold: .set(["Bread-Flour"]), prediction: .set(["bread flour"])) == nil)
        let cells = EvaluationPage.misclassifiedCells(gold: .set(["salt", "yeast"]), prediction: .set(["salt", "sugar"]))
        #expect(cells?[0].contains("<span class=\"tag miss\">yeast</span>") == true)
        #expect(cells?[0].contains("<span class=\"tag hit\">salt</span>") == true)
        #expect(cells?[1].contains("<span class=\"tag extra\">sugar</span>") == true)
        let fields = EvaluationPage.misclassifiedCells(gold: .fields(["a": "x", "b": "<y>"]), prediction: .fields(["a": "x", "b": "z"]))
        #expect(fields?[1].contains("<span class=\"wrong\">b: z</span>") == true)
        #expect(fields?[0].contains("b: &lt;y&gt;") == true, "labels are escaped")
        // A field the result lacks is wrong, even where the gold value is written like the placeholder.
        let dash = EvaluationPage.misclassifiedCells(gold: .fields(["f": "—"]), prediction: .fields([:]))
        #expect(dash?[1] == "<span class=\"wrong\">f: —</span>")
    }

    /// A result without a gold field gets a "missing" column of its own: the "failed" column stays the records
    /// the header counts as failed.
    @Test func missingFieldsGetTheirOwnHeatmapColumn() {
        let report = EvaluationReport(gold: [.fields(["a": "x", "b": "y"]), .fields(["a": "z", "b": "y"])],
                                      predictions: [.fields(["a": "x"]), .fields(["a": "z", "b": "y"])])
        #expect(report.failures == 0)
        let b = report.fields[1]
        #expect(b.field == "b")
        #expect(EvaluationPage.heatmapLabels(b) == ["y"])
        let columns = EvaluationPage.heatmapExtraColumns(b, labels: ["y"])
        #expect(columns.map { $0.title } == ["missing"])
        #expect(columns.first?.values == [1])
        let failed = EvaluationReport(gold: [.fields(["b": "y"])], predictions: [nil]).fields[0]
        #expect(EvaluationPage.heatmapExtraColumns(failed, labels: ["y"]).map { $0.title } == ["failed"])
    }

    @Test func emptyTagsAreNotMisclassifications() {
        #expect(EvaluationPage.misclassifiedCells(gold: .set(["salt", "-"]), prediction: .set(["salt", "_"])) == nil)
        #expect(EvaluationPage.misclassifiedCells(gold: .set(["salt"]), prediction: .set(["salt", "-"])) == nil)
    }

    @Test func monthsAreFilledBetweenTheFirstAndTheLast() {
        #expect(StatisticsPage.months(["2020-11", "2021-02"]) == ["2020-11", "2020-12", "2021-01", "2021-02"])
        #expect(StatisticsPage.months(["2020-03"]) == ["2020-03"])
        #expect(StatisticsPage.months([]) == [])
        #expect(StatisticsPage.months(["2020-13", "2020-01"]) == ["2020-01", "2020-13"], "not months: kept as they are")
        #expect(StatisticsPage.months(["0001-01", "2020-01"]) == ["0001-01", "2020-01"], "no thousands of empty months")
        // One odd date does not stop the months' gaps from being filled; it goes after them.
        #expect(StatisticsPage.months(["2020-03", "unknown", "2020-01", "2021-3-"]) == ["2020-01", "2020-02", "2020-03", "2021-3-", "unknown"])
    }

    @Test func cooccurrenceHeatmapFollowsTheListTags() {
        var statistics = TagStatistics()
        statistics.add(line: #"{"id":"1","result":{"topics":["beach","picnic"],"sentiment":"positive"}}"#)
        statistics.add(line: #"{"id":"2","result":{"topics":["Beaches","sun"]}}"#)
        statistics.add(line: #"{"id":"3","result":{"topics":["beach"]}}"#)
        let page = StatisticsPage(statistics: statistics, sources: [], top: 10)
        #expect(page.heatmapTags == ["beach", "picnic", "sun"], "single-value fields are not co-occurrence tags")
        #expect(page.unpairedNote.isEmpty)
        let many = (0...TagStatistics.pairedTagLimit).map { "\"t\($0)\"" }.joined(separator: ",")
        statistics.add(line: #"{"id":"4","result":{"topics":["# + many + "]}}")
        #expect(StatisticsPage(statistics: statistics, sources: [], top: 10).unpairedNote
            == " One record has more than \(TagStatistics.pairedTagLimit) tags; it is counted on the diagonal but not paired.")
    }
}
