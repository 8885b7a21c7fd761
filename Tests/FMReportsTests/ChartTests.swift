import Foundation
import FMReports
import Testing

@Suite struct ChartTests {
    static func occurrences(of needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    @Test func heatmapHasACellPerPairAndColoursRightAndWrong() {
        let heatmap = Heatmap(labels: ["a", "b", "c"], counts: [[5, 1, 0], [0, 3, 2], [0, 0, 4]],
                              rowTitle: "gold", columnTitle: "predicted", coloring: .confusion)
        let svg = heatmap.svg(caption: "test")
        #expect(Self.occurrences(of: "<rect class=\"cell\"", in: svg) == 9)
        #expect(Self.occurrences(of: "class=\"row-label\"", in: svg) == 3)
        #expect(Self.occurrences(of: "class=\"column-label\"", in: svg) == 3)
        #expect(heatmap.fill(row: 0, column: 2) == .empty)
        let right = heatmap.fill(row: 0, column: 0), wrong = heatmap.fill(row: 0, column: 1)
        #expect(right.blue > right.red, "the diagonal is blue")
        #expect(wrong.red > wrong.blue, "confusions are orange")
        // 5 of 6 is a larger share than 3 of 5: darker.
        #expect(heatmap.fill(row: 0, column: 0).relativeLuminance < heatmap.fill(row: 1, column: 1).relativeLuminance)
    }

    /// When only some labels are shown, a row is shaded by its share of the whole row: two right of ten, the
    /// other eight sent to a hidden label, is not shaded as a perfect row.
    @Test func aRowOfWhichSomeAnswersAreHiddenIsShadedByItsWholeCount() {
        var heatmap = Heatmap(labels: ["a", "b"], counts: [[2, 0], [0, 5]], rowTitle: "gold", columnTitle: "predicted", coloring: .confusion)
        #expect(heatmap.fill(row: 0, column: 0) == heatmap.fill(row: 1, column: 1), "without totals both rows look perfect")
        heatmap.rowTotals = [10, 5]
        #expect(heatmap.fill(row: 0, column: 0) == ColorRamp.blues.color(at: 0.15 + 0.85 * 0.2))
        #expect(heatmap.fill(row: 1, column: 1) == ColorRamp.blues.color(at: 1))
    }

    @Test func heatmapCellsShrinkWithMoreLabelsWithinBounds() {
        func size(_ n: Int) -> Double {
            Heatmap(labels: (0..<n).map { "l\($0)" }, counts: Array(repeating: Array(repeating: 0, count: n), count: n),
                    rowTitle: "r", columnTitle: "c", coloring: .confusion).cellSize
        }
        #expect(size(2) == 48)
        #expect(size(29) == 21)
        #expect(size(40) >= 14 && size(40) <= 16)
        #expect(size(150) == 14)
    }

    @Test func extraColumnSitsOutsideTheSquare() {
        let heatmap = Heatmap(labels: ["a", "b"], counts: [[1, 0], [0, 1]], extraColumns: [("failed", [2, 0])],
                              rowTitle: "gold", columnTitle: "predicted", coloring: .confusion)
        let svg = heatmap.svg(caption: "test")
        #expect(Self.occurrences(of: "<rect class=\"cell\"", in: svg) == 4)
        #expect(Self.occurrences(of: "<rect class=\"extra-cell\"", in: svg) == 2)
        #expect(heatmap.extraFill(row: 1) == .empty)
    }

    /// Failed records and missing fields are two columns side by side, each a share of the whole row.
    @Test func extraColumnsSitSideBySide() {
        let heatmap = Heatmap(labels: ["a", "b"], counts: [[1, 0], [0, 1]], extraColumns: [("failed", [1, 0]), ("missing", [0, 3])],
                              rowTitle: "gold", columnTitle: "predicted", coloring: .confusion)
        let svg = heatmap.svg(caption: "test")
        #expect(Self.occurrences(of: "<rect class=\"extra-cell\"", in: svg) == 4)
        #expect(Self.occurrences(of: "class=\"column-label extra\"", in: svg) == 2)
        #expect(svg.contains("data-column=\"missing\""))
        #expect(heatmap.extraFill(row: 0, column: 0) == ColorRamp.oranges.color(at: 0.15 + 0.85 * 0.5))
        #expect(heatmap.extraFill(row: 1, column: 1) == ColorRamp.oranges.color(at: 0.15 + 0.85 * 0.75))
        #expect(heatmap.extraFill(row: 1, column: 0) == .empty)
    }

    @Test func cooccurrenceColoursTheDiagonalPlainly() {
        let heatmap = Heatmap(labels: ["x", "y"], counts: [[9, 2], [2, 4]], rowTitle: "tag", columnTitle: "with", coloring: .cooccurrence)
        #expect(heatmap.fill(row: 0, column: 0) == heatmap.fill(row: 1, column: 1))
        #expect(heatmap.fill(row: 0, column: 1) == ColorRamp.blues.color(at: 1))
    }

    @Test func barChartDrawsOneBarPerValueAndADashForMissingOnes() {
        let chart = BarChart(series: [("precision", ColorRamp.series(0)), ("recall", ColorRamp.series(1))],
                             rows: [.init(label: "a", values: [0.5, 1]), .init(label: "b", values: [nil, 0])], isPercent: true)
        let svg = chart.svg(caption: "test")
        #expect(Self.occurrences(of: "<rect class=\"bar\"", in: svg) == 3)
        #expect(Self.occurrences(of: "class=\"value missing\"", in: svg) == 1)
        #expect(chart.scale(1) == chart.plotWidth)
        #expect(svg.contains(">50.0%<"))
    }

    @Test func countBarsEndOnARoundNumber() {
        let chart = BarChart(series: [("records", ColorRamp.series(0))], rows: [.init(label: "a", values: [37])], isPercent: false)
        #expect(chart.scale.domainEnd == 40)
    }

    @Test func lineChartHasAPointPerValue() {
        let chart = LineChart(categories: ["2020-01", "2020-02", "2020-03"], series: [("a", [1, 0, 2]), ("b", [0, 3, 1])])
        let svg = chart.svg(caption: "test")
        #expect(Self.occurrences(of: "<polyline class=\"series\"", in: svg) == 2)
        #expect(Self.occurrences(of: "<circle class=\"point\"", in: svg) == 6)
        #expect(chart.scale(0) == chart.plotHeight, "zero at the bottom")
    }
}
