import FMReports
import FMTagging
import Foundation
import FoundationModels
import HeadlessBrowser
import Testing

/// Every report page rendered in headless Chromium: the rendered DOM has a heatmap cell per pair of classes and
/// every label, labels neither collide nor leave their chart, the page loads nothing and logs no error, and a
/// screenshot is saved (under `.build/report-screenshots/`).
@Suite("Report pages in headless Chromium", .serialized, .timeLimit(.minutes(5)))
struct BrowserRenderingTests {
    /// Renders a page and checks what every page must satisfy; returns its facts.
    static func render(_ html: String, name: String) async throws -> PageFacts {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(name + ".html")
        try Data(html.utf8).write(to: file)
        let browser = try HeadlessBrowser()
        let rendering: HeadlessBrowser.Rendering
        do {
            rendering = try await browser.render(file, evaluating: PageFacts.expression)
        } catch {
            await browser.close()
            throw error
        }
        await browser.close()
        #expect(rendering.consoleErrors.isEmpty, "console errors: \(rendering.consoleErrors)")
        #expect(rendering.requests.isEmpty, "the page requested \(rendering.requests)")
        let saved = try HeadlessBrowser.save(screenshot: rendering.screenshot, name: name)
        let size = try #require(HeadlessBrowser.pngSize(rendering.screenshot), "the screenshot at \(saved.path) is not a PNG")
        #expect(size.width == rendering.contentSize.width && size.height == rendering.contentSize.height)
        #expect(size.height > 300, "a whole page, not an empty viewport")
        let facts = try PageFacts(rendering.value)
        #expect(facts.scriptsAndLoads == 0, "a self-contained page has no scripts and loads nothing")
        for heatmap in facts.heatmaps {
            #expect(heatmap.overlappingRowLabels == 0 && heatmap.overlappingColumnLabels == 0, "labels collide: \(heatmap.rowLabels)")
            #expect(heatmap.labelsOutside == 0, "labels cut off: \(heatmap.rowLabels)")
            #expect(heatmap.countsWiderThanCells == 0, "counts spill out of their cells")
        }
        for bars in facts.bars {
            #expect(bars.overlappingLabels == 0, "bar labels collide: \(bars.labels)")
            #expect(bars.labelsOutside == 0, "bar labels cut off: \(bars.labels)")
        }
        for lines in facts.lines { #expect(lines.overlappingXLabels == 0, "month labels collide: \(lines.xLabels)") }
        // A text with an unbroken run (a URL, base64) wraps inside its column instead of widening the table.
        #expect(facts.widestText <= 521, "a quoted text is \(facts.widestText) px wide")
        // Nor does an unbroken label squeeze the text beside it to a few letters a line.
        #expect(facts.narrowestText == 0 || facts.narrowestText >= 200, "a quoted text is \(facts.narrowestText) px narrow")
        return facts
    }

    static func examples(_ golds: [LabelledExample.Gold]) -> [LabelledExample] {
        golds.enumerated().map { index, gold in
            // The first text holds a 300-character run with no break opportunity.
            let run = index == 0 ? " " + String(repeating: "x", count: 300) : ""
            return LabelledExample(record: TaggingRecord(id: "ex-\(index)", text: .success("Example text number \(index) <b>&</b>.\(run)")), gold: gold)
        }
    }

    static func page(_ golds: [LabelledExample.Gold], _ predictions: [LabelledExample.Gold?], schema: String,
                     stability: StabilityReport? = nil) -> String {
        EvaluationPage(
            summary: .init(dataFile: "/data/test.jsonl", model: "/models/test.gguf", schema: schema, decoding: "greedy"),
            examples: examples(golds), predictions: predictions,
            report: EvaluationReport(gold: golds, predictions: predictions), stability: stability).html
    }

    // MARK: The checker itself

    /// The checks above are only worth something if a broken page fails them: console errors, exceptions,
    /// failed loads and blocked scripts must all be caught.
    @Test func aBrokenPageIsCaught() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let broken = directory.appendingPathComponent("broken.html")
        try Data("""
            <!DOCTYPE html><html><head><title>broken</title></head><body><p>x</p>
            <img src="http://127.0.0.1:9/missing.png">
            <script>console.error("deliberate console error"); console.assert(false, "deliberate assertion");</script>
            <script>throw new Error("deliberate exception")</script>
            </body></html>
            """.utf8).write(to: broken)
        let blocked = directory.appendingPathComponent("blocked.html")
        try Data("""
            <!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'">
            <title>blocked</title></head><body><script>document.title = "ran"</script></body></html>
            """.utf8).write(to: blocked)

        let browser = try HeadlessBrowser()
        do {
            let page = try await browser.render(broken, evaluating: "document.title")
            #expect(page.value == .string("broken"))
            let errors = page.consoleErrors.joined(separator: "\n")
            #expect(errors.contains("deliberate console error"), "\(errors)")
            #expect(errors.contains("deliberate assertion"), "\(errors)")
            #expect(errors.contains("deliberate exception"), "\(errors)")
            #expect(errors.contains("127.0.0.1:9/missing.png"), "the failed load is logged: \(errors)")
            #expect(page.requests == ["http://127.0.0.1:9/missing.png"])

            let policy = try await browser.render(blocked, evaluating: "document.title")
            #expect(policy.value == .string("blocked"), "the policy stopped the script")
            #expect(policy.consoleErrors.contains { $0.contains("Content Security Policy") }, "\(policy.consoleErrors)")
        } catch {
            await browser.close()
            throw error
        }
        await browser.close()
    }

    // MARK: fm eval

    @Test func singleLabel() async throws {
        let labels = ["ham", "spam", "<b>&'quoted\"", "a_rather_long_label_that_needs_room_to_breathe", "émoji 🎉"]
        var golds: [LabelledExample.Gold] = []
        var predictions: [LabelledExample.Gold?] = []
        for (index, label) in labels.enumerated() {
            for copy in 0..<4 {
                golds.append(.single(label))
                predictions.append(copy == 0 ? .single(labels[(index + 1) % labels.count]) : copy == 1 && index == 0 ? nil : .single(label))
            }
        }
        let facts = try await Self.render(Self.page(golds, predictions, schema: #"{"type":"object"}"#), name: "eval-single-label")
        try #require(facts.heatmaps.count == 1)
        let heatmap = facts.heatmaps[0]
        #expect(heatmap.cells == labels.count * labels.count)
        #expect(heatmap.classes == labels.count)
        #expect(Set(heatmap.rowLabels) == Set(labels))
        #expect(Set(heatmap.columnLabels) == Set(labels))
        #expect(heatmap.counts.reduce(0, +) == golds.count - 1, "every scored example in a cell, the failure beside them")
        #expect(Set(facts.bars[0].labels) == Set(labels))
        #expect(facts.bars[0].bars == labels.count * 2)
        #expect(facts.misclassifiedRows == labels.count + 1)
        #expect(facts.values["failure-count"] == "1")
        #expect(facts.sections == ["scores", "field-0", "misclassified"])
    }

    /// A label of 195 letters without a space, gold on one row and predicted on another, wraps in its own cell.
    @Test func anUnbrokenLabelWrapsInItsCell() async throws {
        let long = String(repeating: "averyveryverylonglabelwithoutanyspaces_", count: 5)
        let facts = try await Self.render(Self.page([.single("short"), .single(long)], [.single(long), .single("short")],
                                                    schema: #"{"type":"object"}"#), name: "eval-unbroken-label")
        #expect(facts.misclassifiedRows == 2)
    }

    @Test func severalFields() async throws {
        let golds: [LabelledExample.Gold] = (0..<12).map { .fields(["topic": ["billing", "bug", "login"][$0 % 3], "urgent": $0 % 2 == 0 ? "true" : "false"]) }
        let predictions: [LabelledExample.Gold?] = golds.enumerated().map { index, gold in
            guard case .fields(var values) = gold else { return nil }
            if index % 4 == 0 { values["topic"] = "bug" }
            if index % 5 == 0 { values["urgent"] = "true" }
            return .fields(values)
        }
        let facts = try await Self.render(Self.page(golds, predictions, schema: #"{"type":"object"}"#), name: "eval-fields")
        try #require(facts.heatmaps.count == 2)
        #expect(facts.heatmaps[0].cells == 9)
        #expect(facts.heatmaps[0].rowLabels == ["billing", "bug", "login"])
        #expect(facts.heatmaps[1].cells == 4)
        #expect(facts.heatmaps[1].rowLabels == ["false", "true"])
        #expect(facts.sections == ["scores", "field-0", "field-1", "misclassified"])
        let wrong = zip(golds, predictions).filter { $0.0 != $0.1 }.count
        #expect(facts.misclassifiedRows == wrong)
    }

    @Test func multiLabel() async throws {
        let schema = #"{"type":"object","properties":{"labels":{"type":"array","items":{"type":"string","enum":["joy","anger","fear"]}}},"propertyOrdering":["labels"]}"#
        let golds: [LabelledExample.Gold] = [.set(["joy"]), .set(["anger", "fear"]), .set(["fear"]), .set(["joy", "anger"])]
        let predictions: [LabelledExample.Gold?] = [.set(["joy"]), .set(["anger"]), .set(["joy"]), nil]
        let facts = try await Self.render(Self.page(golds, predictions, schema: schema), name: "eval-multi-label")
        #expect(facts.heatmaps.isEmpty)
        #expect(facts.sections == ["scores", "tags", "misclassified"])
        #expect(Set(facts.bars[0].labels) == ["joy", "anger", "fear"])
        #expect(facts.bars.count == 4, "per-tag precision and recall, then hits, misses and extras")
        #expect(facts.misclassifiedRows == 3)
    }

    @Test func freeTags() async throws {
        let schema = #"{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}},"propertyOrdering":["tags"]}"#
        let golds: [LabelledExample.Gold] = (0..<40).map { .set(["baking", "tag-\($0 % 7)"]) }
        let predictions: [LabelledExample.Gold?] = (0..<40).map { .set(["Baking", "tag_\($0 % 5)", "extra \($0 % 3)"]) }
        let facts = try await Self.render(Self.page(golds, predictions, schema: schema), name: "eval-free-tags")
        #expect(facts.sections == ["scores", "tags", "misclassified"])
        try #require(facts.bars.count == 4)
        #expect(facts.bars[0].labels.first == "baking", "the most frequent tag first")
        #expect(facts.bars[1].labels.first == "baking", "the most frequent hit")
        #expect(Set(facts.bars[3].labels).isSuperset(of: ["extra 0", "extra 1", "extra 2"]))
        #expect(!facts.bars[3].labels.contains("baking"), "a hit is never an extra")
        #expect(facts.misclassifiedRows == 40)
    }

    @Test func largeLabelSetShowsTheMostConfusedLabels() async throws {
        let labels = (0..<60).map { String(format: "intent_number_%02d", $0) }
        let golds: [LabelledExample.Gold] = labels.map { .single($0) }
        let predictions: [LabelledExample.Gold?] = labels.enumerated().map { index, label in .single(index % 3 == 0 ? labels[(index + 7) % 60] : label) }
        let facts = try await Self.render(Self.page(golds, predictions, schema: #"{"type":"object"}"#), name: "eval-large-label-set")
        let heatmap = try #require(facts.heatmaps.first)
        #expect(heatmap.classes == EvaluationPage.largestHeatmap)
        #expect(heatmap.cells == EvaluationPage.largestHeatmap * EvaluationPage.largestHeatmap)
        #expect(heatmap.rowLabels == heatmap.columnLabels)
        #expect(Set(facts.bars[0].labels) == Set(labels), "every label has its precision and recall bars")
    }

    @Test func stabilitySection() async throws {
        let golds: [LabelledExample.Gold] = [.single("a"), .single("b"), .single("a")]
        let conditions = [StabilityReport.Condition(useCase: "contentTagging", temperature: nil),
                          .init(useCase: "contentTagging", temperature: 0.3),
                          .init(useCase: "general", temperature: nil), .init(useCase: "general", temperature: 0.3)]
        let steady: [[LabelledExample.Gold?]] = Array(repeating: golds, count: 3)
        let shaky: [[LabelledExample.Gold?]] = [golds, [.single("b"), .single("b"), nil], [.single("a"), .single("a"), .single("b")]]
        let stability = StabilityReport(examples: Self.examples(golds), conditions: conditions, answers: [steady, shaky, steady, shaky])
        let facts = try await Self.render(Self.page(golds, golds, schema: #"{"type":"object"}"#, stability: stability), name: "eval-stability")
        #expect(facts.sections == ["scores", "field-0", "stability", "misclassified"])
        #expect(facts.stabilityRows == 4)
        let chart = try #require(facts.bars.last)
        #expect(chart.labels == conditions.map(\.name))
        #expect(chart.bars == 8)
    }

    // MARK: fm stats

    /// Counts of five digits in 20-pixel cells are written small enough to stay inside them.
    @Test func largeCountsFitTheirCells() async throws {
        let labels = (0..<30).map { "label \($0)" }
        let counts = labels.indices.map { row in labels.indices.map { column in row == column ? 12_345 : (column == row + 1 ? 7 : 0) } }
        let heatmap = Heatmap(labels: labels, counts: counts, rowTitle: "gold", columnTitle: "predicted", coloring: .confusion)
        var page = HTMLPage(title: "counts")
        page.append(HTMLPage.section("matrix", title: "Large counts", content: HTMLPage.figure(heatmap.svg(caption: "large counts"), caption: "large counts")))
        let facts = try await Self.render(page.document, name: "heatmap-large-counts")
        try #require(facts.heatmaps.count == 1)
        #expect(facts.heatmaps[0].counts.max() == 12_345)
    }

    @Test func statisticsPage() async throws {
        var statistics = TagStatistics()
        let topics = ["beach", "picnic", "sun", "family", "work", "rain"]
        for index in 0..<60 {
            let month = String(format: "2021-%02d-03", index % 12 + 1)
            let tags = [topics[index % 6], topics[(index + 1) % 6], topics[index % 4 == 0 ? 2 : 3]].map { "\"\($0)\"" }
            statistics.add(line: #"{"id":"\#(index)","date":"\#(month)","result":{"topics":[\#(tags.joined(separator: ","))],"sentiment":"\#(index % 3 == 0 ? "positive" : "neutral")"}}"#)
        }
        statistics.add(line: #"{"id":"bad","error":{"code":"empty-text","message":"no text"}}"#)
        let facts = try await Self.render(StatisticsPage(statistics: statistics, sources: ["tags.jsonl"], top: 10).html, name: "stats")
        #expect(facts.sections == ["frequency", "cooccurrence", "trends"])
        let heatmap = try #require(facts.heatmaps.first)
        #expect(heatmap.cells == topics.count * topics.count)
        #expect(Set(heatmap.rowLabels) == Set(topics))
        #expect(facts.bars.map { Set($0.labels) } == [["neutral", "positive"], Set(topics)])
        try #require(facts.lines.count == 3, "records per month, then one chart per field")
        #expect(facts.lines[0].points == 12)
        #expect(facts.lines[1].series == ["neutral", "positive"])
        #expect(facts.lines[2].series.count == StatisticsPage.trendSeries)
        #expect(facts.values["record-count"] == "61")
        #expect(facts.values["error-count"] == "1")
    }
}
