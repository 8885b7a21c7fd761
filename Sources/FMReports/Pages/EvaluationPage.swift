public import FMTagging
public import Foundation

/// The HTML report of an `fm eval` run: the run's summary, per field accuracy, macro-F1, a confusion-matrix
/// heatmap and per-label precision and recall, set scores with the most frequent hits, misses and extras for
/// multi-label and free-tag data, the stability experiment when it ran, and the misclassified examples.
///
/// ```swift
/// let page = EvaluationPage(summary: summary, examples: examples, predictions: predictions, report: report)
/// try page.html.write(toFile: "report.html", atomically: true, encoding: .utf8)
/// ```
public struct EvaluationPage: Sendable {
    /// What was run.
    public struct Summary: Sendable {
        /// The labelled data file.
        public var dataFile: String
        /// The model file.
        public var model: String
        /// The schema, as JSON Schema text.
        public var schema: String
        /// How the model decoded (say, `greedy`).
        public var decoding: String
        /// When the run finished.
        public var date: Date

        /// Creates a summary.
        public init(dataFile: String, model: String, schema: String, decoding: String, date: Date = Date()) {
            self.dataFile = dataFile
            self.model = model
            self.schema = schema
            self.decoding = decoding
            self.date = date
        }
    }

    /// The run's summary.
    public var summary: Summary
    /// The labelled examples, in order.
    public var examples: [LabelledExample]
    /// The prediction for each example (`nil` when generation failed).
    public var predictions: [LabelledExample.Gold?]
    /// The scores.
    public var report: EvaluationReport
    /// The stability experiment, when it ran.
    public var stability: StabilityReport?

    /// The most labels a confusion heatmap shows; larger label sets show those most involved in confusions.
    public static let largestHeatmap = 40
    /// The most misclassified examples listed.
    public static let largestExampleTable = 250

    /// Creates a page.
    public init(summary: Summary, examples: [LabelledExample], predictions: [LabelledExample.Gold?],
                report: EvaluationReport, stability: StabilityReport? = nil) {
        self.summary = summary
        self.examples = examples
        self.predictions = predictions
        self.report = report
        self.stability = stability
    }

    /// The whole HTML document.
    public var html: String {
        var page = HTMLPage(title: "fm eval — " + URL(fileURLWithPath: summary.dataFile).lastPathComponent)
        page.append(header)
        page.append(HTMLPage.section("scores", title: "Scores", content: scoreCards))
        for (index, field) in report.fields.enumerated() { page.append(fieldSection(field, index: index)) }
        if let set = report.set { page.append(setSection(set)) }
        if let stability { page.append(Self.stabilitySection(stability)) }
        page.append(misclassifiedSection)
        return page.document
    }

    // MARK: Summary

    private var header: String {
        let name = URL(fileURLWithPath: summary.dataFile).lastPathComponent
        let date = ISO8601DateFormatter.string(from: summary.date, timeZone: .current, formatOptions: [.withInternetDateTime])
        let failed = report.count > 0 ? " (\(Markup.percent(Double(report.failures) / Double(report.count))))" : ""
        let shapes = Set(examples.map { example -> String in
            switch example.gold {
            case .single: "single label"
            case .fields: "several fields"
            case .set: isFreeTags ? "free tags" : "multi-label"
            }
        }).sorted().joined(separator: ", ")
        // Lines of the file this report leaves out, so it does not read as the whole file's.
        var notScored: [(name: String, value: String)] = []
        if let unlabelled = report.unlabelled {
            notScored.append(("Not scored", "<span id=\"unlabelled-count\">\(unlabelled)</span> lines without a gold answer"))
        }
        if let pastLimit = report.pastLimit {
            notScored.append(("Past the limit", "<span id=\"past-limit-count\">\(pastLimit)</span> labelled lines not scored"))
        }
        return "<header><h1>Evaluation of \(Markup.escape(name))</h1><p class=\"subtitle\">fm eval · \(Markup.escape(date))</p>"
            + HTMLPage.summary([
                ("Data", Markup.escape(summary.dataFile)),
                ("Model", Markup.escape(summary.model)),
                ("Decoding", Markup.escape(summary.decoding)),
                ("Task", Markup.escape(shapes)),
                ("Examples", "<span id=\"example-count\">\(report.count)</span>"),
                ("Failed", "<span id=\"failure-count\">\(report.failures)</span>\(failed)"),
            ] + notScored + [
                ("Schema", "<details><summary>JSON Schema</summary><pre>\(Markup.escape(summary.schema))</pre></details>"),
                ("Date", Markup.escape(date)),
            ]) + "</header>\n"
    }

    /// Whether the set gold is scored as free tags rather than as a label set.
    private var isFreeTags: Bool { Self.isFreeTagSchema(summary.schema) }

    /// Whether a JSON Schema's first array property holds free strings (free tags) rather than an enumeration.
    package static func isFreeTagSchema(_ schema: String) -> Bool {
        guard let root = try? JSONSerialization.jsonObject(with: Data(schema.utf8)) as? [String: Any] else { return true }
        let definitions = root["$defs"] as? [String: Any] ?? [:]
        func resolved(_ node: [String: Any]) -> [String: Any] {
            guard let reference = node["$ref"] as? String, let name = reference.split(separator: "/").last,
                  let target = definitions[String(name)] as? [String: Any] else { return node }
            return target
        }
        let properties = resolved(root)["properties"] as? [String: Any] ?? [:]
        let order = resolved(root)["propertyOrdering"] as? [String] ?? properties.keys.sorted()
        for key in order {
            guard let property = properties[key] as? [String: Any], property["type"] as? String == "array" else { continue }
            return !isEnumeration(resolved(property["items"] as? [String: Any] ?? [:]), resolved: resolved)
        }
        return true
    }

    /// Whether `node` allows only listed values: an `enum`, a `const`, or alternatives that each do (the form
    /// Apple's enum schemas and many JSON Schema writers use for labelled choices).
    /// `depth` bounds the walk, since a reference may lead back to the alternatives that hold it.
    private static func isEnumeration(
        _ node: [String: Any], resolved: ([String: Any]) -> [String: Any], depth: Int = 8
    ) -> Bool {
        if node["enum"] != nil || node["const"] != nil { return true }
        guard depth > 0 else { return false }
        for key in ["anyOf", "oneOf"] {
            guard let alternatives = node[key] as? [[String: Any]], !alternatives.isEmpty else { continue }
            return alternatives.allSatisfy { isEnumeration(resolved($0), resolved: resolved, depth: depth - 1) }
        }
        return false
    }

    private var scoreCards: String {
        var cards: [(name: String, value: String)] = []
        for field in report.fields {
            cards.append(("\(field.field) accuracy", Markup.percent(field.accuracy)))
            cards.append(("\(field.field) macro-F1", Markup.percent(field.macroF1)))
        }
        if report.fields.count > 1, let overall = report.overallAccuracy { cards.append(("all fields correct", Markup.percent(overall))) }
        if let set = report.set {
            cards.append(("tag precision", Markup.percent(set.precision)))
            cards.append(("tag recall", Markup.percent(set.recall)))
            cards.append(("tag F1", Markup.percent(set.f1)))
        }
        cards.append(("failed", String(report.failures)))
        return HTMLPage.cards(cards)
    }

    // MARK: Fields

    /// The labels a field's heatmap shows: all of them, or the ones most involved in confusions.
    package static func heatmapLabels(_ field: EvaluationReport.FieldScore, limit: Int = largestHeatmap) -> [String] {
        let labels = field.labels
        guard labels.count > limit else { return labels }
        var involvement: [String: Int] = [:]
        var support: [String: Int] = [:]
        for (gold, row) in field.confusion {
            for (predicted, count) in row {
                support[gold, default: 0] += count
                guard predicted != gold else { continue }
                involvement[gold, default: 0] += count
                if predicted != EvaluationReport.failureLabel, predicted != EvaluationReport.missingLabel {
                    involvement[predicted, default: 0] += count
                }
            }
        }
        let chosen = labels.sorted {
            (involvement[$0] ?? 0, support[$0] ?? 0, $1) > (involvement[$1] ?? 0, support[$1] ?? 0, $0)
        }
        return Array(chosen.prefix(limit)).sorted()
    }

    /// The columns right of a field's heatmap: per shown gold label, the failed records and, apart from them (the
    /// header's failed count does not include them), the results without the field; a column only when non-empty.
    package static func heatmapExtraColumns(_ field: EvaluationReport.FieldScore, labels: [String]) -> [(title: String, values: [Int])] {
        let failures = labels.map { field.failures(gold: $0) }
        let missing = labels.map { field.missing(gold: $0) }
        let columns: [(title: String, values: [Int])] = [("failed", failures), ("missing", missing)]
        return columns.filter { column in column.values.contains { $0 > 0 } }
    }

    private func fieldSection(_ field: EvaluationReport.FieldScore, index: Int) -> String {
        let labels = Self.heatmapLabels(field)
        let counts = labels.map { gold in labels.map { field.confusion[gold]?[$0] ?? 0 } }
        var heatmap = Heatmap(labels: labels, counts: counts, extraColumns: Self.heatmapExtraColumns(field, labels: labels),
                              rowTitle: "gold", columnTitle: "predicted", coloring: .confusion)
        // Failures and missing fields are in the confusion counts too, under their own labels.
        heatmap.rowTotals = labels.map { field.confusion[$0]?.values.reduce(0, +) ?? 0 }
        var caption = "Confusion matrix of \(field.field): rows are gold labels, columns predictions; blue cells are right, "
            + "orange ones confusions, shaded by share of the row."
        if labels.count < field.labels.count {
            caption += " Showing the \(labels.count) of \(field.labels.count) labels most involved in confusions."
        }
        let scores = field.labelScores.sorted { ($0.support, $1.label) > ($1.support, $0.label) }
        let bars = BarChart(
            series: [("precision", ColorRamp.series(0)), ("recall", ColorRamp.series(1))],
            rows: scores.map { BarChart.Row(label: $0.label, values: [$0.precision, $0.recall]) }, isPercent: true)
        // With one field its scores are the page's headline scores, shown once above.
        var cards: [(name: String, value: String)] = [("examples", String(field.count)), ("labels", String(field.labels.count))]
        if field.missing > 0 { cards.append(("missing from results", String(field.missing))) }
        if report.fields.count > 1 || report.set != nil {
            cards.insert(contentsOf: [("accuracy", Markup.percent(field.accuracy)), ("macro-F1", Markup.percent(field.macroF1))], at: 0)
        }
        let content = HTMLPage.cards(cards)
            + "<div class=\"charts\">"
            + HTMLPage.figure(heatmap.svg(caption: "Confusion matrix of \(field.field)"), caption: caption, classes: "confusion")
            + HTMLPage.figure(bars.svg(caption: "Precision and recall per label of \(field.field)"),
                              caption: "Precision and recall per label, most frequent gold labels first; a dash marks a label never predicted.",
                              classes: scores.count > 24 ? "per-label tall" : "per-label")
            + "</div>"
        return HTMLPage.section("field-\(index)", title: "Field: \(field.field)", content: content)
    }

    // MARK: Sets

    private func setSection(_ set: EvaluationReport.SetScore) -> String {
        let title = isFreeTags ? "Free tags" : "Multi-label"
        let goldTags = Set(set.hits.keys).union(set.misses.keys).count
        let predictedTags = Set(set.hits.keys).union(set.extras.keys).count
        var content = HTMLPage.cards([("examples", String(set.count)), ("distinct gold tags", String(goldTags)),
                                      ("distinct predicted tags", String(predictedTags))])
        content += "<p class=\"note\">Tags are compared normalised: lowercase, hyphens and underscores as spaces.</p>"
        let scores = Array(set.tagScores.prefix(30))
        let bars = BarChart(
            series: [("precision", ColorRamp.series(0)), ("recall", ColorRamp.series(1))],
            rows: scores.map { BarChart.Row(label: $0.label, values: [$0.precision, $0.recall]) }, isPercent: true)
        content += "<div class=\"charts\">" + HTMLPage.figure(
            bars.svg(caption: "Precision and recall per tag"),
            caption: "Precision and recall of the \(scores.count) tags most frequent in gold or predictions; a dash marks a tag never predicted (precision) or never in gold (recall).",
            classes: "per-label")
        for (name, counts, color) in [("hits", set.hits, ColorRamp.series(4)), ("misses", set.misses, ColorRamp.series(2)),
                                      ("extras", set.extras, ColorRamp.series(5))] {
            let top = TagStatistics.top(counts, limit: 15)
            guard !top.isEmpty else {
                content += "<figure class=\"\(name)\"><p class=\"note\">No \(name).</p></figure>"
                continue
            }
            var chart = BarChart(series: [(name, color)], rows: top.map { BarChart.Row(label: $0.0, values: [Double($0.1)]) }, isPercent: false)
            chart.plotWidth = 200
            content += HTMLPage.figure(chart.svg(caption: "Most frequent \(name)"), caption: Self.setCaption(name), classes: name)
        }
        content += "</div>"
        return HTMLPage.section("tags", title: title, content: content)
    }

    private static func setCaption(_ name: String) -> String {
        switch name {
        case "hits": "Most frequent hits: tags predicted that were in the gold set."
        case "misses": "Most frequent misses: gold tags not predicted."
        default: "Most frequent extras: tags predicted that were not in the gold set."
        }
    }

    // MARK: Misclassified examples

    private var misclassifiedSection: String {
        var rows: [[String]] = []
        var wrong = 0
        for (example, prediction) in zip(examples, predictions) {
            guard let cells = Self.misclassifiedCells(gold: example.gold, prediction: prediction) else { continue }
            wrong += 1
            guard rows.count < Self.largestExampleTable else { continue }
            let text = (try? example.record.text.get()) ?? ""
            let shown = text.count > 300 ? String(text.prefix(300)) + "…" : text
            rows.append(["<code>\(Markup.escape(example.record.id))</code>", "<span class=\"text\">\(Markup.escape(shown))</span>"] + cells)
        }
        var content = "<p class=\"note\"><span id=\"misclassified-count\">\(wrong)</span> of \(examples.count) examples are not "
            + "entirely right"
        content += rows.count < wrong ? "; the first \(rows.count) are listed.</p>" : ".</p>"
        if !rows.isEmpty {
            content += "<div class=\"legend-key\"><span class=\"tag hit\">hit</span><span class=\"tag miss\">miss</span>"
                + "<span class=\"tag extra\">extra</span></div>"
            content += HTMLPage.table(["id", "text", "gold", "predicted"], rows: rows, classes: "misclassified")
        }
        return HTMLPage.section("misclassified", title: "Misclassified examples", content: content)
    }

    /// The gold and predicted cells of a wrong example, or `nil` when the prediction is entirely right.
    package static func misclassifiedCells(gold: LabelledExample.Gold, prediction: LabelledExample.Gold?) -> [String]? {
        let failed = "<span class=\"wrong\">failed</span>"
        switch gold {
        case .single(let label):
            if case .single(let predicted)? = prediction {
                return predicted == label ? nil : [Markup.escape(label), "<span class=\"wrong\">\(Markup.escape(predicted))</span>"]
            }
            return [Markup.escape(label), failed]
        case .fields(let values):
            guard case .fields(let predicted)? = prediction else {
                return [values.sorted { $0.key < $1.key }.map { "\(Markup.escape($0.key)): \(Markup.escape($0.value))" }.joined(separator: "<br>"), failed]
            }
            let keys = values.keys.sorted()
            guard keys.contains(where: { predicted[$0] != values[$0] }) else { return nil }
            let goldCell = keys.map { "\(Markup.escape($0)): \(Markup.escape(values[$0] ?? ""))" }.joined(separator: "<br>")
            let predictedCell = keys.map { key in
                let value = predicted[key]
                let shown = "\(Markup.escape(key)): \(Markup.escape(value ?? "—"))"
                return value == values[key] ? "<span class=\"right\">\(shown)</span>" : "<span class=\"wrong\">\(shown)</span>"
            }.joined(separator: "<br>")
            return [goldCell, predictedCell]
        case .set(let labels):
            let goldSet = EvaluationReport.normalizedTags(labels)
            guard case .set(let values)? = prediction else {
                return [goldSet.sorted().map { "<span class=\"tag miss\">\(Markup.escape($0))</span>" }.joined(), failed]
            }
            let predictedSet = EvaluationReport.normalizedTags(values)
            guard goldSet != predictedSet else { return nil }
            let goldCell = goldSet.sorted().map { tag in
                "<span class=\"tag \(predictedSet.contains(tag) ? "hit" : "miss")\">\(Markup.escape(tag))</span>"
            }.joined()
            let predictedCell = predictedSet.sorted().map { tag in
                "<span class=\"tag \(goldSet.contains(tag) ? "hit" : "extra")\">\(Markup.escape(tag))</span>"
            }.joined()
            return [goldCell, predictedCell.isEmpty ? "<span class=\"note\">none</span>" : predictedCell]
        }
    }
}
