public import Foundation

/// What a report page shows, as measured in the browser: its charts' cells, labels and bars, whether labels
/// collide or are cut off by their chart's edge, and its tables.
public struct PageFacts: Sendable, Decodable {
    /// A heatmap.
    public struct Heatmap: Sendable, Decodable {
        /// The number of classes the chart says it has (`data-classes`).
        public var classes: Int
        /// The `rect.cell` elements.
        public var cells: Int
        /// The row labels' full texts, top to bottom.
        public var rowLabels: [String]
        /// The column labels' full texts, left to right (without an extra column).
        public var columnLabels: [String]
        /// The cell counts, row by row.
        public var counts: [Int]
        /// Pairs of row labels whose boxes intersect.
        public var overlappingRowLabels: Int
        /// Pairs of column labels whose boxes intersect (counted only for horizontal labels).
        public var overlappingColumnLabels: Int
        /// Labels whose box leaves the chart.
        public var labelsOutside: Int
        /// Counts written wider than their cell.
        public var countsWiderThanCells: Int
    }

    /// A bar chart.
    public struct Bars: Sendable, Decodable {
        /// The row labels' full texts.
        public var labels: [String]
        /// The `rect.bar` elements.
        public var bars: Int
        /// Pairs of row labels whose boxes intersect.
        public var overlappingLabels: Int
        /// Labels whose box leaves the chart.
        public var labelsOutside: Int
    }

    /// A line chart.
    public struct Lines: Sendable, Decodable {
        /// The series names.
        public var series: [String]
        /// The points drawn.
        public var points: Int
        /// The x-axis labels written.
        public var xLabels: [String]
        /// Pairs of x-axis labels whose boxes intersect.
        public var overlappingXLabels: Int
    }

    /// The document title.
    public var title: String
    /// The ids of the page's sections, in order.
    public var sections: [String]
    /// The heatmaps, in page order.
    public var heatmaps: [Heatmap]
    /// The bar charts, in page order.
    public var bars: [Bars]
    /// The line charts, in page order.
    public var lines: [Lines]
    /// Rows of the misclassified-examples table.
    public var misclassifiedRows: Int
    /// Rows of the stability table.
    public var stabilityRows: Int
    /// The text of elements with an id (counts and such), by id.
    public var values: [String: String]
    /// `<script>` elements (the pages need none) and elements loading anything (`src`, `href` on links).
    public var scriptsAndLoads: Int
    /// The widest quoted text in a table (`span.text`), in CSS pixels; 0 without one.
    public var widestText: Double
    /// The narrowest quoted text in a table (`span.text`), in CSS pixels; 0 without one.
    public var narrowestText: Double

    /// The expression that measures a page; evaluate it with ``HeadlessBrowser/render(_:evaluating:width:)``.
    public static let expression = """
        (() => {
          const box = e => e.getBoundingClientRect();
          const overlaps = els => {
            const b = els.map(box); let n = 0;
            for (let i = 0; i < b.length; i++) for (let j = i + 1; j < b.length; j++)
              if (b[i].left < b[j].right - 0.5 && b[j].left < b[i].right - 0.5 && b[i].top < b[j].bottom - 0.5 && b[j].top < b[i].bottom - 0.5) n++;
            return n;
          };
          const outside = (svg, els) => {
            const s = box(svg);
            return els.filter(e => { const b = box(e); return b.left < s.left - 1 || b.right > s.right + 1 || b.top < s.top - 1 || b.bottom > s.bottom + 1; }).length;
          };
          const all = (root, selector) => [...root.querySelectorAll(selector)];
          const rotated = e => (e.getAttribute('transform') || '').includes('rotate');
          const values = {};
          for (const e of all(document, '[id]')) if (!e.matches('section')) values[e.id] = e.textContent;
          return {
            title: document.title,
            sections: all(document, 'section').map(s => s.id),
            heatmaps: all(document, 'svg.heatmap').map(svg => {
              const rows = all(svg, 'text.row-label'), columns = all(svg, 'text.column-label:not(.extra)');
              return {
                classes: Number(svg.dataset.classes), cells: all(svg, 'rect.cell').length,
                rowLabels: rows.map(e => e.dataset.label), columnLabels: columns.map(e => e.dataset.label),
                counts: all(svg, 'rect.cell').map(e => Number(e.dataset.count)),
                overlappingRowLabels: overlaps(rows),
                overlappingColumnLabels: columns.some(rotated) ? 0 : overlaps(columns),
                labelsOutside: outside(svg, rows.concat(all(svg, 'text.column-label'))),
                countsWiderThanCells: all(svg, 'text.count').filter(t => box(t).width > box(t.parentNode.querySelector('rect')).width).length
              };
            }),
            bars: all(document, 'svg.bars').map(svg => {
              const labels = all(svg, 'text.row-label');
              return { labels: labels.map(e => e.dataset.label), bars: all(svg, 'rect.bar').length,
                       overlappingLabels: overlaps(labels), labelsOutside: outside(svg, labels) };
            }),
            lines: all(document, 'svg.lines').map(svg => {
              const x = all(svg, 'text.x-label');
              return { series: all(svg, 'polyline.series').map(e => e.dataset.series), points: all(svg, 'circle.point').length,
                       xLabels: x.map(e => e.textContent), overlappingXLabels: overlaps(x) };
            }),
            misclassifiedRows: all(document, 'table.misclassified tbody tr').length,
            stabilityRows: all(document, 'table.stability tbody tr').length,
            values,
            scriptsAndLoads: all(document, 'script, [src], link[href], object, iframe, embed').length,
            widestText: Math.max(0, ...all(document, 'span.text').map(e => box(e).width)),
            narrowestText: all(document, 'span.text').length ? Math.min(...all(document, 'span.text').map(e => box(e).width)) : 0
          };
        })()
        """

    /// Reads the facts from the expression's value.
    public init(_ value: JSONValue) throws {
        self = try JSONDecoder().decode(PageFacts.self, from: JSONEncoder().encode(value))
    }
}

extension HeadlessBrowser {
    /// Where screenshots are saved: `$FM_SCREENSHOT_DIR`, else `.build/report-screenshots` in the package.
    public static var screenshotDirectory: URL {
        if let path = ProcessInfo.processInfo.environment["FM_SCREENSHOT_DIR"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/report-screenshots")
    }

    /// Saves a screenshot under ``screenshotDirectory`` and returns its location.
    @discardableResult
    public static func save(screenshot: Data, name: String) throws -> URL {
        try FileManager.default.createDirectory(at: screenshotDirectory, withIntermediateDirectories: true)
        let url = screenshotDirectory.appendingPathComponent(name + ".png")
        try screenshot.write(to: url)
        return url
    }

    /// The width and height in a PNG's header, or `nil` when the data is not a PNG.
    public static func pngSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], bytes[12..<16] == [0x49, 0x48, 0x44, 0x52] else {
            return nil
        }
        func integer(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (integer(16), integer(20))
    }
}
