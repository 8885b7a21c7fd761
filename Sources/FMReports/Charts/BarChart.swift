/// Horizontal bars, one group per labelled row and one bar per series: per-class precision and recall, tag
/// frequencies, shares of stable inputs.
package struct BarChart: Sendable {
    /// One labelled group of bars.
    package struct Row: Sendable {
        /// The row's label.
        package var label: String
        /// One value per series; `nil` draws no bar and writes a dash (say, precision of a never-predicted label).
        package var values: [Double?]

        /// Creates a row.
        package init(label: String, values: [Double?]) {
            self.label = label
            self.values = values
        }
    }

    /// Each series' name and colour.
    package var series: [(name: String, color: RGB)]
    /// The rows, top to bottom.
    package var rows: [Row]
    /// Whether values are shares (0…1) written as percentages; the axis then ends at 100%.
    package var isPercent: Bool
    /// The width of the plotting area.
    package var plotWidth = 360.0
    /// The thickness of one bar.
    package var barHeight = 11.0

    /// Label font size in pixels.
    package static let fontSize = 12.0

    /// Creates a chart.
    package init(series: [(name: String, color: RGB)], rows: [Row], isPercent: Bool) {
        precondition(rows.allSatisfy { $0.values.count == series.count }, "one value per series in every row")
        self.series = series
        self.rows = rows
        self.isPercent = isPercent
    }

    /// The value axis: 0 to 1 for shares, else 0 to a round number at or above the largest value.
    package var scale: LinearScale {
        let largest = rows.flatMap { $0.values.compactMap { $0 } }.max() ?? 0
        let top = isPercent ? 1 : max(largest, 1)
        let scale = LinearScale(domain: (0, top), range: (0, plotWidth))
        return isPercent ? scale : scale.niced(count: 4, wholeNumbers: true)
    }

    /// The height of one row's group of bars, with its gap.
    package var rowHeight: Double { Double(series.count) * barHeight + Double(series.count - 1) * 2 + 8 }

    /// The chart as an `<svg>` element.
    package func svg(caption: String) -> String {
        let font = Self.fontSize
        let scale = scale
        let texts = rows.map { LabelLayout.fit($0.label, maximumWidth: 240, fontSize: font) }
        let left = LabelLayout.rowLabelWidth(texts, fontSize: font, maximumWidth: 250) + 4
        let legendHeight = series.count > 1 ? 20.0 : 0
        let top = legendHeight + 20
        let width = left + plotWidth + 60
        let height = top + Double(rows.count) * rowHeight + 4
        var svg = "<svg class=\"bars\" data-rows=\"\(rows.count)\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\""
        svg += " width=\"\(Markup.number(width))\" height=\"\(Markup.number(height))\""
        svg += " viewBox=\"0 0 \(Markup.number(width)) \(Markup.number(height))\" aria-label=\"\(Markup.escape(caption))\">"
        if series.count > 1 {
            var x = left
            for entry in series {
                svg += "<rect class=\"legend-swatch\" x=\"\(Markup.number(x))\" y=\"4\" width=\"10\" height=\"10\" fill=\"\(entry.color.hex)\"/>"
                svg += "<text class=\"legend\" x=\"\(Markup.number(x + 14))\" y=\"13\">\(Markup.escape(entry.name))</text>"
                x += 24 + LabelLayout.width(of: entry.name, fontSize: font)
            }
        }
        for tick in scale.ticks(count: 4, wholeNumbers: !isPercent) {
            let x = left + scale(tick)
            svg += "<line class=\"grid\" x1=\"\(Markup.number(x))\" x2=\"\(Markup.number(x))\" y1=\"\(Markup.number(top - 4))\""
            svg += " y2=\"\(Markup.number(height - 4))\"/>"
            svg += "<text class=\"tick\" x=\"\(Markup.number(x))\" y=\"\(Markup.number(top - 8))\" text-anchor=\"middle\">"
            svg += Markup.tick(tick, percent: isPercent) + "</text>"
        }
        for (index, row) in rows.enumerated() {
            let y = top + Double(index) * rowHeight
            let groupHeight = rowHeight - 8
            svg += Markup.label(texts[index], full: row.label, attributes:
                "class=\"row-label\" x=\"\(Markup.number(left - 6))\" y=\"\(Markup.number(y + groupHeight / 2 + font * 0.35))\" text-anchor=\"end\"")
            for (seriesIndex, value) in row.values.enumerated() {
                let barY = y + Double(seriesIndex) * (barHeight + 2)
                let name = Markup.escape(series[seriesIndex].name)
                guard let value else {
                    svg += "<text class=\"value missing\" x=\"\(Markup.number(left + 4))\" y=\"\(Markup.number(barY + barHeight - 1.5))\">—</text>"
                    continue
                }
                let length = max(0, scale(value))
                let text = isPercent ? Markup.percent(value) : Markup.tick(value)
                svg += "<g><title>\(Markup.escape(row.label)) · \(name): \(text)</title>"
                svg += "<rect class=\"bar\" data-label=\"\(Markup.escape(row.label))\" data-series=\"\(name)\" data-value=\"\(value)\""
                svg += " x=\"\(Markup.number(left))\" y=\"\(Markup.number(barY))\" width=\"\(Markup.number(length))\""
                svg += " height=\"\(Markup.number(barHeight))\" fill=\"\(series[seriesIndex].color.hex)\"/></g>"
                svg += "<text class=\"value\" x=\"\(Markup.number(left + length + 4))\" y=\"\(Markup.number(barY + barHeight - 1.5))\">"
                svg += text + "</text>"
            }
        }
        return svg + "</svg>"
    }
}
