import FoundationModels

/// Aggregates `fm tag` output: the most frequent tags per field, co-occurring tag pairs, and records per month.
///
/// Tags that mean the same are grouped by ``normalize(_:)``: lowercase, hyphens and underscores as spaces, and a
/// trailing plural `s` dropped from each word longer than three letters that does not end in `ss`
/// ("Beaches" → "beache" is avoided by also dropping `es` after `ch`, `sh`, `x`). Nothing semantic is merged.
public struct TagStatistics: Sendable {
    /// Tag counts per field name.
    public private(set) var tagCounts: [String: [String: Int]] = [:]
    /// Counts of tag pairs within one record (across all fields), keyed `"a + b"` with `a < b`.
    public private(set) var pairCounts: [String: Int] = [:]
    /// Records per month (`yyyy-mm`) for records with a `date` field.
    public private(set) var monthCounts: [String: Int] = [:]
    /// Per field, per month (`yyyy-mm`), how many of that month's records carry each tag.
    public private(set) var monthTagCounts: [String: [String: [String: Int]]] = [:]
    /// How many records carry each tag in some list field (the tags ``pairCounts`` pairs up).
    public private(set) var listTagCounts: [String: Int] = [:]
    /// Pair counts by first tag, then second tag, stored both ways round.
    private var pairs: [String: [String: Int]] = [:]
    /// Records read.
    public private(set) var records = 0
    /// Records with an error instead of a result.
    public private(set) var errors = 0
    /// Lines that are not JSON objects, so not `fm tag` output (blank lines are not counted).
    public private(set) var unreadableLines = 0
    /// Records whose `date` does not begin with a year and month (`2024-05…`), so they are in no month's count.
    public private(set) var undatedRecords = 0

    /// Creates empty statistics.
    public init() {}

    /// The grouping form of a tag.
    public static func normalize(_ tag: String) -> String {
        EvaluationReport.normalizeTag(tag).split(separator: " ").map { word -> String in
            var word = String(word)
            guard word.count > 3, word.hasSuffix("s"), !word.hasSuffix("ss"), !word.hasSuffix("us"), !word.hasSuffix("is") else { return word }
            if word.hasSuffix("ies"), word.count > 4 { return String(word.dropLast(3)) + "y" }
            if word.hasSuffix("ches") || word.hasSuffix("shes") || word.hasSuffix("xes") { return String(word.dropLast(2)) }
            word.removeLast()
            return word
        }.joined(separator: " ")
    }

    /// Adds one output line; lines that are not `fm tag` output (a JSON object with a `result` or an `error`) are
    /// counted in ``unreadableLines`` and otherwise ignored.
    public mutating func add(line: String) {
        guard !line.allSatisfy(\.isWhitespace) else { return }
        // A line cut off by a killed job parses as a prefix; it is not a record.
        guard let content = try? GeneratedContent(json: line), content.isComplete, case .structure(let properties, _) = content.kind,
              properties["result"] != nil || properties["error"] != nil else {
            unreadableLines += 1
            return
        }
        records += 1
        var month: String?
        if let date = properties["date"] {
            if case .string(let text) = date.kind, Self.isYearAndMonth(text.utf8.prefix(7)) {
                let prefix = String(text.prefix(7))
                month = prefix
                monthCounts[prefix, default: 0] += 1
            } else {
                undatedRecords += 1
            }
        }
        guard let result = properties["result"] else {
            errors += 1
            return
        }
        // A schema whose root is a list or a single value (`fm tag --schema` allows both) counts under `result`.
        let (fields, keys): ([String: GeneratedContent], [String])
        if case .structure(let members, let order) = result.kind { (fields, keys) = (members, order) } else {
            (fields, keys) = (["result": result], ["result"])
        }
        var all: Set<String> = []
        for key in keys {
            guard let value = fields[key] else { continue }
            var tags: [String] = []
            switch value.kind {
            case .array(let elements): tags = elements.compactMap(\.scalarText)
            default:
                // A string, Bool or number (a rating); a nested object or null has no value to count.
                guard let text = value.scalarText else { continue }
                tags = [text]
            }
            for tag in Set(tags.map(Self.normalize)) where !tag.isEmpty {
                tagCounts[key, default: [:]][tag, default: 0] += 1
                if let month { monthTagCounts[key, default: [:]][month, default: [:]][tag, default: 0] += 1 }
                if case .array = value.kind { all.insert(tag) }
            }
        }
        let sorted = all.sorted()
        for i in sorted.indices { for j in sorted.indices where j > i { pairCounts["\(sorted[i]) + \(sorted[j])", default: 0] += 1 } }
        for tag in all {
            listTagCounts[tag, default: 0] += 1
            for other in all where other != tag { pairs[tag, default: [:]][other, default: 0] += 1 }
        }
    }

    /// How many records carry both tags in their list fields; for a tag with itself, how many carry it.
    public func cooccurrences(_ first: String, _ second: String) -> Int {
        first == second ? listTagCounts[first] ?? 0 : pairs[first]?[second] ?? 0
    }

    /// Whether `bytes` are `YYYY-MM`.
    private static func isYearAndMonth(_ bytes: some Sequence<UInt8>) -> Bool {
        let digit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
        let characters = Array(bytes)
        return characters.count == 7 && characters[4] == 0x2D && characters[0..<4].allSatisfy(digit)
            && characters[5..<7].allSatisfy(digit) && (1...12).contains(Int(characters[5] - 0x30) * 10 + Int(characters[6] - 0x30))
    }

    /// The `limit` most frequent entries of a count table, ties by name.
    public static func top(_ counts: [String: Int], limit: Int) -> [(String, Int)] {
        Array(counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(limit).map { ($0.key, $0.value) })
    }

    /// A readable report.
    public func text(limit: Int) -> String {
        var lines = ["records: \(records)   errors: \(errors)"]
        for field in tagCounts.keys.sorted() {
            lines.append("")
            lines.append("\(field):")
            for (tag, count) in Self.top(tagCounts[field] ?? [:], limit: limit) { lines.append("  \(count)\t\(tag)") }
        }
        if !pairCounts.isEmpty {
            lines.append("")
            lines.append("co-occurring tags:")
            for (pair, count) in Self.top(pairCounts, limit: limit) { lines.append("  \(count)\t\(pair)") }
        }
        if !monthCounts.isEmpty {
            lines.append("")
            lines.append("records per month:")
            for month in monthCounts.keys.sorted() { lines.append("  \(month)\t\(monthCounts[month] ?? 0)") }
        }
        return lines.joined(separator: "\n")
    }
}
