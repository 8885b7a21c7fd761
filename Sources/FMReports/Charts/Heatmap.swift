/// A square matrix of counts drawn as coloured cells with the counts written in them: a confusion matrix
/// (rows gold, columns predicted) or a tag co-occurrence matrix.
package struct Heatmap: Sendable {
    /// How cells are coloured.
    package enum Coloring: Sendable {
        /// The diagonal (right answers) in blues and other cells (confusions) in oranges, by share of the row.
        case confusion
        /// Off-diagonal cells in blues by share of the largest off-diagonal count; the diagonal plain.
        case cooccurrence
    }

    /// The row and column labels (the same list: the matrix is square).
    package var labels: [String]
    /// `counts[row][column]`.
    package var counts: [[Int]]
    /// Extra columns right of the matrix (say, failed records and missing fields per gold label), outside the square.
    package var extraColumns: [(title: String, values: [Int])]
    /// What the rows mean.
    package var rowTitle: String
    /// What the columns mean.
    package var columnTitle: String
    /// How cells are coloured.
    package var coloring: Coloring
    /// The most the square may measure across.
    package var maximumSide = 620.0
    /// Each row's whole count, when the matrix shows only some of the columns (the labels most involved in
    /// confusions): shares are of the whole row, so a row whose other answers went to hidden labels does not
    /// look right. `nil`: the shown cells and the extra columns are the whole row.
    package var rowTotals: [Int]?

    /// Label font size in pixels.
    package static let fontSize = 12.0

    /// Creates a heatmap.
    package init(labels: [String], counts: [[Int]], extraColumns: [(title: String, values: [Int])] = [],
                 rowTitle: String, columnTitle: String, coloring: Coloring) {
        precondition(counts.count == labels.count && counts.allSatisfy { $0.count == labels.count }, "a square matrix")
        self.labels = labels
        self.counts = counts
        self.extraColumns = extraColumns
        self.rowTitle = rowTitle
        self.columnTitle = columnTitle
        self.coloring = coloring
    }

    /// The side of one cell: the square's share per label, between 14 and 48 pixels.
    package var cellSize: Double {
        guard !labels.isEmpty else { return 48 }
        return min(48, max(14, (maximumSide / Double(labels.count)).rounded(.down)))
    }

    /// What a row's shares are of.
    private func total(row: Int) -> Int {
        let shown = counts[row].reduce(0, +) + extraColumns.reduce(0) { $0 + $1.values[row] }
        return max(rowTotals?[row] ?? shown, shown)
    }

    /// The fill of a cell.
    package func fill(row: Int, column: Int) -> RGB {
        let count = counts[row][column]
        guard count > 0 else { return .empty }
        switch coloring {
        case .confusion:
            let total = total(row: row)
            let share = total > 0 ? Double(count) / Double(total) : 0
            return (row == column ? ColorRamp.blues : ColorRamp.oranges).color(at: 0.15 + 0.85 * share)
        case .cooccurrence:
            if row == column { return RGB(hex: 0xD1D5DB) }
            var largest = 0
            for (r, line) in counts.enumerated() { for (c, value) in line.enumerated() where r != c { largest = max(largest, value) } }
            return ColorRamp.blues.color(at: 0.1 + 0.9 * Double(count) / Double(max(largest, 1)))
        }
    }

    /// The fill of a cell of the extra column at `column` (an index into ``extraColumns``).
    package func extraFill(row: Int, column: Int = 0) -> RGB {
        let count = extraColumns[column].values[row]
        guard count > 0 else { return .empty }
        return ColorRamp.oranges.color(at: 0.15 + 0.85 * Double(count) / Double(max(total(row: row), 1)))
    }

    /// The chart as an `<svg>` element.
    package func svg(caption: String) -> String {
        let font = Self.fontSize
        let cell = cellSize
        let n = labels.count
        let columnHeaders = labels + extraColumns.map { $0.title }
        let columns = LabelLayout.columnLabels(columnHeaders, band: cell, fontSize: font, maximumLength: 170)
        let rowTexts = labels.map { LabelLayout.fit($0, maximumWidth: 220, fontSize: font) }
        let rowWidth = LabelLayout.rowLabelWidth(rowTexts, fontSize: font, maximumWidth: 230)
        let left = 22 + rowWidth
        let top = 20 + columns.height
        let extraGap = extraColumns.isEmpty ? 0 : 8.0
        let matrixRight = left + Double(n) * cell
        let right = matrixRight + (extraColumns.isEmpty ? 0 : extraGap + Double(extraColumns.count) * cell)
        let overhang = columns.rotation == -45
            ? (columns.texts.map { LabelLayout.width(of: $0, fontSize: font) }.max() ?? 0) * 0.7071 : 0
        let width = right + max(8, overhang - cell / 2 + 8)
        let height = top + Double(n) * cell + 8
        // Small enough for the widest count to fit its cell (a digit is about 0.64 of the font size wide).
        let digits = Double(String((Array(counts.joined()) + extraColumns.flatMap { $0.values }).max() ?? 0).count)
        let countFont = min(11, cell * 0.5, (cell - 3) / (0.64 * digits))
        func x(_ column: Int) -> Double { column < n ? left + Double(column) * cell : matrixRight + extraGap + Double(column - n) * cell }

        var svg = "<svg class=\"heatmap\" data-classes=\"\(n)\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\""
        svg += " width=\"\(Markup.number(width))\" height=\"\(Markup.number(height))\""
        svg += " viewBox=\"0 0 \(Markup.number(width)) \(Markup.number(height))\" aria-label=\"\(Markup.escape(caption))\">"
        svg += "<text class=\"axis-title\" x=\"\(Markup.number(left + Double(n) * cell / 2))\" y=\"14\" text-anchor=\"middle\">"
        svg += Markup.escape(columnTitle) + " →</text>"
        let middle = top + Double(n) * cell / 2
        svg += "<text class=\"axis-title\" x=\"14\" y=\"\(Markup.number(middle))\" text-anchor=\"middle\""
        svg += " transform=\"rotate(-90 14 \(Markup.number(middle)))\">" + Markup.escape(rowTitle) + " →</text>"
        for (index, header) in columnHeaders.enumerated() {
            let center = x(index) + cell / 2
            let attributes: String
            switch columns.rotation {
            case 0:
                attributes = "x=\"\(Markup.number(center))\" y=\"\(Markup.number(top - 6))\" text-anchor=\"middle\""
            case -45:
                let (ax, ay) = (center, top - 6)
                attributes = "x=\"\(Markup.number(ax))\" y=\"\(Markup.number(ay))\" transform=\"rotate(-45 \(Markup.number(ax)) \(Markup.number(ay)))\""
            default:
                let (ax, ay) = (center + font * 0.35, top - 6)
                attributes = "x=\"\(Markup.number(ax))\" y=\"\(Markup.number(ay))\" transform=\"rotate(-90 \(Markup.number(ax)) \(Markup.number(ay)))\""
            }
            let kind = index < n ? "column-label" : "column-label extra"
            svg += Markup.label(columns.texts[index], full: header, attributes: "class=\"\(kind)\" \(attributes)")
        }
        for row in 0..<n {
            let y = top + Double(row) * cell
            svg += Markup.label(rowTexts[row], full: labels[row], attributes:
                "class=\"row-label\" x=\"\(Markup.number(left - 6))\" y=\"\(Markup.number(y + cell / 2 + font * 0.35))\" text-anchor=\"end\"")
            for column in 0..<n {
                svg += cellMarkup(kind: "cell", x: x(column), y: y, size: cell, fill: fill(row: row, column: column),
                                  count: counts[row][column], fontSize: countFont,
                                  title: "\(labels[row]) → \(labels[column]): \(counts[row][column])",
                                  data: "data-row=\"\(Markup.escape(labels[row]))\" data-column=\"\(Markup.escape(labels[column]))\"")
            }
            for (index, extra) in extraColumns.enumerated() {
                svg += cellMarkup(kind: "extra-cell", x: x(n + index), y: y, size: cell, fill: extraFill(row: row, column: index),
                                  count: extra.values[row], fontSize: countFont,
                                  title: "\(labels[row]): \(extra.values[row]) \(extra.title)",
                                  data: "data-row=\"\(Markup.escape(labels[row]))\" data-column=\"\(Markup.escape(extra.title))\"")
            }
        }
        return svg + "</svg>"
    }

    private func cellMarkup(kind: String, x: Double, y: Double, size: Double, fill: RGB, count: Int, fontSize: Double,
                            title: String, data: String) -> String {
        var markup = "<g><title>\(Markup.escape(title))</title><rect class=\"\(kind)\" \(data) data-count=\"\(count)\""
        markup += " x=\"\(Markup.number(x + 0.5))\" y=\"\(Markup.number(y + 0.5))\" width=\"\(Markup.number(size - 1))\""
        markup += " height=\"\(Markup.number(size - 1))\" fill=\"\(fill.hex)\"/>"
        if count > 0 {
            markup += "<text class=\"count\" x=\"\(Markup.number(x + size / 2))\" y=\"\(Markup.number(y + size / 2 + fontSize * 0.36))\""
            markup += " text-anchor=\"middle\" font-size=\"\(Markup.number(fontSize))\" fill=\"\(RGB.text(on: fill).hex)\">\(count)</text>"
        }
        return markup + "</g>"
    }
}
