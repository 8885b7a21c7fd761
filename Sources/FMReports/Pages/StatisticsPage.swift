public import FMTagging
public import Foundation

/// The HTML report of `fm stats`: tag frequencies per field, a co-occurrence heatmap of the most frequent list
/// tags, and per-month trend lines when records carry a `date`. Tags are grouped exactly as in the text output
/// (``TagStatistics/normalize(_:)``).
public struct StatisticsPage: Sendable {
    /// The statistics.
    public var statistics: TagStatistics
    /// The files read (empty for standard input).
    public var sources: [String]
    /// How many tags each frequency chart lists.
    public var top: Int
    /// When the page was made.
    public var date: Date

    /// The most tags the co-occurrence heatmap shows.
    public static let largestHeatmap = 25
    /// How many tags each trend chart follows.
    public static let trendSeries = 5

    /// Creates a page.
    public init(statistics: TagStatistics, sources: [String], top: Int = 10, date: Date = Date()) {
        self.statistics = statistics
        self.sources = sources
        self.top = top
        self.date = date
    }

    /// The whole HTML document.
    public var html: String {
        let name = sources.isEmpty ? "standard input" : sources.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", ")
        var page = HTMLPage(title: "fm stats — " + name)
        let stamp = ISO8601DateFormatter.string(from: date, timeZone: .current, formatOptions: [.withInternetDateTime])
        let months = Self.months(Array(statistics.monthCounts.keys))
        var summary: [(name: String, value: String)] = [
            ("Input", Markup.escape(sources.isEmpty ? "standard input" : sources.joined(separator: ", "))),
            ("Records", "<span id=\"record-count\">\(statistics.records)</span>"),
            ("Errors", "<span id=\"error-count\">\(statistics.errors)</span>"),
            ("Fields", Markup.escape(statistics.tagCounts.keys.sorted().joined(separator: ", "))),
        ]
        if let first = months.first, let last = months.last {
            summary.append(("Months", "\(Markup.escape(first)) to \(Markup.escape(last))"))
        }
        page.append("<header><h1>Tag statistics of \(Markup.escape(name))</h1><p class=\"subtitle\">fm stats · \(Markup.escape(stamp))</p>"
            + HTMLPage.summary(summary)
            + "<p class=\"note\">Tags are grouped case-insensitively, with hyphens and underscores as spaces and singular and plural forms together, each group under its most frequent spelling.</p></header>\n")
        page.append(frequencySection)
        if let cooccurrence = cooccurrenceSection { page.append(cooccurrence) }
        if !months.isEmpty { page.append(trendSection(months: months)) }
        return page.document
    }

    private var frequencySection: String {
        var content = "<div class=\"charts\">"
        // Computed from the grouped counts on each read: read once.
        let tagCounts = statistics.tagCounts
        for (index, field) in tagCounts.keys.sorted().enumerated() {
            let counts = TagStatistics.top(tagCounts[field] ?? [:], limit: top)
            var chart = BarChart(series: [("records", ColorRamp.series(index))],
                                 rows: counts.map { BarChart.Row(label: $0.0, values: [Double($0.1)]) }, isPercent: false)
            chart.plotWidth = 260
            content += HTMLPage.figure(chart.svg(caption: "Most frequent \(field)"),
                                       caption: "\(field): the \(counts.count) most frequent of \(tagCounts[field]?.count ?? 0) tags, by records carrying each.",
                                       classes: "frequency")
        }
        if tagCounts.isEmpty { content += "<p class=\"note\">No tagged records.</p>" }
        return HTMLPage.section("frequency", title: "Tag frequency", content: content + "</div>")
    }

    /// The tags of the co-occurrence heatmap: the most frequent list tags, in order of frequency.
    package var heatmapTags: [String] {
        TagStatistics.top(statistics.listTagCounts, limit: min(max(top, 2), Self.largestHeatmap)).map(\.0)
    }

    private var cooccurrenceSection: String? {
        let tags = heatmapTags
        guard tags.count >= 2 else { return nil }
        let counts = tags.map { first in tags.map { statistics.cooccurrences(first, $0) } }
        let heatmap = Heatmap(labels: tags, counts: counts, rowTitle: "tag", columnTitle: "with tag", coloring: .cooccurrence)
        let content = HTMLPage.figure(
            heatmap.svg(caption: "Co-occurrence of the most frequent tags"),
            caption: "Records carrying both tags, for the \(tags.count) most frequent tags of list fields; the diagonal counts records with the tag."
                + unpairedNote,
            classes: "cooccurrence")
        return HTMLPage.section("cooccurrence", title: "Co-occurring tags", content: content)
    }

    /// What the off-diagonal cells leave out: records with too many tags to pair (the diagonal counts them).
    package var unpairedNote: String {
        switch statistics.unpairedRecords {
        case 0: ""
        case 1: " One record has more than \(TagStatistics.pairedTagLimit) tags; it is counted on the diagonal but not paired."
        case let count: " \(count) records have more than \(TagStatistics.pairedTagLimit) tags; they are counted on the diagonal but not paired."
        }
    }

    private func trendSection(months: [String]) -> String {
        var content = ""
        let records = LineChart(categories: months, series: [("records", months.map { Double(statistics.monthCounts[$0] ?? 0) })])
        content += HTMLPage.figure(records.svg(caption: "Records per month"), caption: "Records per month.", classes: "trend records")
        let monthTagCounts = statistics.monthTagCounts
        for field in monthTagCounts.keys.sorted() {
            let perMonth = monthTagCounts[field] ?? [:]
            var totals: [String: Int] = [:]
            for counts in perMonth.values { for (tag, count) in counts { totals[tag, default: 0] += count } }
            let tags = TagStatistics.top(totals, limit: Self.trendSeries).map(\.0)
            guard !tags.isEmpty else { continue }
            let chart = LineChart(categories: months, series: tags.map { tag in (tag, months.map { Double(perMonth[$0]?[tag] ?? 0) }) })
            content += "<h3>\(Markup.escape(field))</h3>" + HTMLPage.figure(
                chart.svg(caption: "Monthly trend of the most frequent \(field)"),
                caption: "Records per month carrying each of the \(tags.count) most frequent \(field) (records with a date only).",
                classes: "trend")
        }
        return HTMLPage.section("trends", title: "Trends per month", content: content)
    }

    /// Every month from the earliest to the latest `yyyy-mm` key, gaps filled, then the keys that are not
    /// `yyyy-mm` (a date written another way, "unknown"), sorted, after them. Months that would span more than a
    /// century are kept as they are, sorted.
    package static func months(_ keys: [String]) -> [String] {
        var others: [String] = []
        let parsed = keys.compactMap { key -> (Int, Int)? in
            let parts = key.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int(parts[0]), let month = Int(parts[1]),
                  (1...12).contains(month) else {
                others.append(key)
                return nil
            }
            return (year, month)
        }
        guard let first = parsed.min(by: <), let last = parsed.max(by: <),
              (last.0 - first.0) * 12 + last.1 - first.1 < 1200 else { return keys.sorted() }
        var months: [String] = []
        var (year, month) = first
        while (year, month) <= last {
            months.append(String(format: "%04d-%02d", year, month))
            month += 1
            if month > 12 { month = 1; year += 1 }
        }
        return months + others.sorted()
    }
}
