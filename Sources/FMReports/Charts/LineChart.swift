/// Lines over evenly spaced categories (months), one per series, with a point per value.
package struct LineChart: Sendable {
    /// The x-axis categories, left to right.
    package var categories: [String]
    /// Each series' name and one value per category.
    package var series: [(name: String, values: [Double])]
    /// The width of the plotting area.
    package var plotWidth = 640.0
    /// The height of the plotting area.
    package var plotHeight = 200.0

    /// Label font size in pixels.
    package static let fontSize = 11.0

    /// Creates a chart.
    package init(categories: [String], series: [(name: String, values: [Double])]) {
        precondition(series.allSatisfy { $0.values.count == categories.count }, "one value per category in every series")
        self.categories = categories
        self.series = series
    }

    /// The value axis, from 0 to a round number at or above the largest value, drawn upwards.
    package var scale: LinearScale {
        let largest = series.flatMap(\.values).max() ?? 0
        return LinearScale(domain: (0, max(largest, 1)), range: (plotHeight, 0)).niced(count: 4, wholeNumbers: true)
    }

    /// The chart as an `<svg>` element.
    package func svg(caption: String) -> String {
        let font = Self.fontSize
        let left = 44.0
        let legendWidths = series.map { 24 + LabelLayout.width(of: $0.name, fontSize: font) }
        let legendLines = LabelLayout.legendLines(legendWidths, width: plotWidth)
        let legendHeight = Double((legendLines.last ?? -1) + 1) * 18
        let top = legendHeight + 12
        let band = categories.isEmpty ? plotWidth : plotWidth / Double(categories.count)
        let stride = LabelLayout.labelStride(categories, band: band, fontSize: font)
        let width = left + plotWidth + 12
        let height = top + plotHeight + 28
        let scale = scale
        func x(_ index: Int) -> Double { left + (Double(index) + 0.5) * band }
        func y(_ value: Double) -> Double { top + scale(value) }

        var svg = "<svg class=\"lines\" data-series=\"\(series.count)\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\""
        svg += " width=\"\(Markup.number(width))\" height=\"\(Markup.number(height))\""
        svg += " viewBox=\"0 0 \(Markup.number(width)) \(Markup.number(height))\" aria-label=\"\(Markup.escape(caption))\">"
        var legendX = left
        var currentLine = 0
        for (index, entry) in series.enumerated() {
            if legendLines[index] != currentLine {
                currentLine = legendLines[index]
                legendX = left
            }
            let legendY = Double(currentLine) * 18 + 4
            svg += "<rect class=\"legend-swatch\" x=\"\(Markup.number(legendX))\" y=\"\(Markup.number(legendY))\" width=\"10\""
            svg += " height=\"10\" fill=\"\(ColorRamp.series(index).hex)\"/>"
            svg += "<text class=\"legend\" data-series=\"\(Markup.escape(entry.name))\" x=\"\(Markup.number(legendX + 14))\""
            svg += " y=\"\(Markup.number(legendY + 9))\">\(Markup.escape(entry.name))</text>"
            legendX += legendWidths[index]
        }
        for tick in scale.ticks(count: 4, wholeNumbers: true) {
            svg += "<line class=\"grid\" x1=\"\(Markup.number(left))\" x2=\"\(Markup.number(left + plotWidth))\""
            svg += " y1=\"\(Markup.number(y(tick)))\" y2=\"\(Markup.number(y(tick)))\"/>"
            svg += "<text class=\"tick\" x=\"\(Markup.number(left - 6))\" y=\"\(Markup.number(y(tick) + 4))\" text-anchor=\"end\">"
            svg += Markup.tick(tick) + "</text>"
        }
        for (index, category) in categories.enumerated() where index % stride == 0 {
            svg += "<text class=\"tick x-label\" x=\"\(Markup.number(x(index)))\" y=\"\(Markup.number(top + plotHeight + 16))\""
            svg += " text-anchor=\"middle\">\(Markup.escape(category))</text>"
        }
        for (index, entry) in series.enumerated() {
            let color = ColorRamp.series(index).hex
            let points = entry.values.indices.map { "\(Markup.number(x($0))),\(Markup.number(y(entry.values[$0])))" }
            svg += "<polyline class=\"series\" data-series=\"\(Markup.escape(entry.name))\" fill=\"none\" stroke=\"\(color)\""
            svg += " stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>"
            for (position, value) in entry.values.enumerated() {
                svg += "<g><title>\(Markup.escape(categories[position])) · \(Markup.escape(entry.name)): \(Markup.tick(value))</title>"
                svg += "<circle class=\"point\" cx=\"\(Markup.number(x(position)))\" cy=\"\(Markup.number(y(value)))\" r=\"2.5\""
                svg += " fill=\"\(color)\"/></g>"
            }
        }
        return svg + "</svg>"
    }
}
