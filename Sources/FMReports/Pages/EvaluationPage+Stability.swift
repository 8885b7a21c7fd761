import Foundation
import FMTagging

extension EvaluationPage {
    /// The most unstable inputs listed.
    static let largestUnstableTable = 100

    /// The stability experiment: a table and a chart per condition, how many inputs got 1, 2, … answers, and
    /// the inputs that got more than one.
    static func stabilitySection(_ stability: StabilityReport) -> String {
        var content = "<p>Each condition tagged all \(stability.inputs.count) inputs \(stability.runs) times, with the cache off. "
            + "An input is stable under a condition when every run gave the same answer.</p>"
        let rows = stability.conditions.map { result in
            [Markup.escape(result.condition.name), Markup.percent(result.singleAnswerShare),
             String(format: "%.2f", result.meanDistinctAnswers), Markup.percent(result.meanScore), String(result.failures)]
        }
        content += HTMLPage.table(["condition", "#single answer", "#mean distinct answers",
                                   "#\(stability.scoreName) (mean over runs)", "#failed"], rows: rows, classes: "stability")
        let chart = BarChart(
            series: [("inputs with a single answer", ColorRamp.series(0)), ("\(stability.scoreName) (mean)", ColorRamp.series(4))],
            rows: stability.conditions.map { BarChart.Row(label: $0.condition.name, values: [$0.singleAnswerShare, $0.meanScore]) },
            isPercent: true)
        content += "<div class=\"charts\">" + HTMLPage.figure(
            chart.svg(caption: "Share of inputs with a single answer per condition"),
            caption: "Share of inputs whose runs all agreed, and the mean score of a run, per condition.", classes: "stability-chart")
        content += "<figure class=\"histogram\">" + histogramTable(stability)
            + "<figcaption>How many inputs got 1, 2, … distinct answers over the runs.</figcaption></figure></div>"

        let unstable = stability.unstableInputs
        content += "<h3>Inputs with more than one answer</h3>"
        guard !unstable.isEmpty else { return HTMLPage.section("stability", title: "Stability", content: content + "<p class=\"note\">None: every condition gave every input one answer.</p>") }
        var tableRows: [[String]] = []
        for input in unstable.prefix(largestUnstableTable) {
            let shown = input.text.count > 200 ? String(input.text.prefix(200)) + "…" : input.text
            var row = ["<code>\(Markup.escape(input.id))</code>", "<span class=\"text\">\(Markup.escape(shown))</span>", Markup.escape(input.gold)]
            for answers in input.answers { row.append(answerSummary(answers, gold: input.gold)) }
            tableRows.append(row)
        }
        if unstable.count > tableRows.count {
            content += "<p class=\"note\">\(unstable.count) inputs; the first \(tableRows.count) are listed.</p>"
        }
        content += HTMLPage.table(["id", "text", "gold"] + stability.conditions.map(\.condition.name), rows: tableRows, classes: "unstable")
        return HTMLPage.section("stability", title: "Stability", content: content)
    }

    /// The runs' answers, most frequent first, as `answer ×count` lines; right answers marked.
    static func answerSummary(_ answers: [String], gold: String) -> String {
        var counts: [String: Int] = [:]
        for answer in answers { counts[answer, default: 0] += 1 }
        return TagStatistics.top(counts, limit: counts.count).map { answer, count in
            let shown = Markup.escape(answer) + (count > 1 ? " ×\(count)" : "")
            return answer == gold ? "<span class=\"right\">\(shown)</span>" : shown
        }.joined(separator: "<br>")
    }

    private static func histogramTable(_ stability: StabilityReport) -> String {
        let columns = stability.conditions.map { $0.histogram(runs: stability.runs).count }.max() ?? stability.runs
        let rows = stability.conditions.map { result -> [String] in
            let histogram = result.histogram(runs: columns)
            let total = max(histogram.reduce(0, +), 1)
            return [Markup.escape(result.condition.name)] + histogram.enumerated().map { index, count in
                let background = count == 0 ? RGB.empty
                    : (index == 0 ? ColorRamp.blues : ColorRamp.oranges).color(at: 0.1 + 0.9 * Double(count) / Double(total))
                return "<span class=\"tag\" style=\"background:\(background.hex);color:\(RGB.text(on: background).hex)\">\(count)</span>"
            }
        }
        return HTMLPage.table(["condition"] + (1...max(columns, 1)).map { "#\($0) answer\($0 == 1 ? "" : "s")" }, rows: rows,
                              classes: "distribution")
    }
}
