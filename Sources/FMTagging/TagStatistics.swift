import FoundationModels

/// Aggregates `fm tag` output: the most frequent tags per field, co-occurring tag pairs, and records per month.
///
/// Tags that mean the same are grouped: case, hyphens and underscores (as spaces) and the singular or plural form
/// of each word do not matter ("Beaches", "beach"; "movie", "movies"; "outdoor-activities", "outdoor activity").
/// Each group is named by its most frequent spelling, lowercased, so a name is always a tag as some record wrote
/// it. Nothing semantic is merged.
public struct TagStatistics: Sendable {
    /// Records per month (`yyyy-mm`) for records with a `date` field.
    public private(set) var monthCounts: [String: Int] = [:]
    /// Records read.
    public private(set) var records = 0
    /// Records with an error instead of a result.
    public private(set) var errors = 0
    /// Lines that are not JSON objects, so not `fm tag` output (blank lines are not counted).
    public private(set) var unreadableLines = 0
    /// Records whose `date` does not begin with a year and month (`2024-05…`), so they are in no month's count.
    public private(set) var undatedRecords = 0
    /// Records with more than ``pairedTagLimit`` tags in their list fields, left out of the co-occurring pairs (their
    /// tags are counted).
    public private(set) var unpairedRecords = 0

    /// The most tags of one record that are paired up: pairs grow with the square of a record's tags, and a record
    /// of thousands (no schema's answer, a file of something else) would take gigabytes.
    public static let pairedTagLimit = 256

    // The counts below are keyed by ``normalize(_:)``'s grouping key, which is not shown: a group's name is
    // chosen from `spellings` once all records are in.
    private var keyedTagCounts: [String: [String: Int]] = [:]
    private var keyedMonthTagCounts: [String: [String: [String: Int]]] = [:]
    private var keyedListTagCounts: [String: Int] = [:]
    /// Pair counts by first tag, then second tag, stored both ways round.
    private var pairs: [String: [String: Int]] = [:]
    /// Per grouping key, how often each spelling (``EvaluationReport/normalizeTag(_:)``) occurred.
    private var spellings: [String: [String: Int]] = [:]

    /// Creates empty statistics.
    public init() {}

    /// Per field, how many records carry each tag.
    public var tagCounts: [String: [String: Int]] { keyedTagCounts.mapValues(named) }
    /// Per field, per month (`yyyy-mm`), how many of that month's records carry each tag.
    public var monthTagCounts: [String: [String: [String: Int]]] { keyedMonthTagCounts.mapValues { $0.mapValues(named) } }
    /// How many records carry each tag in some list field (the tags ``cooccurrences(_:_:)`` pairs up).
    public var listTagCounts: [String: Int] { named(keyedListTagCounts) }

    /// The most frequent pairs of tags that records carry together in their list fields, each pair once with its
    /// names in order, most frequent first (ties by name).
    public func topPairs(limit: Int) -> [(first: String, second: String, count: Int)] {
        let names = Dictionary(uniqueKeysWithValues: pairs.keys.map { ($0, name(of: $0)) })
        var all: [(first: String, second: String, count: Int)] = []
        for (key, others) in pairs {
            for (other, count) in others {
                guard let name = names[key], let otherName = names[other], name < otherName else { continue }
                all.append((name, otherName, count))
            }
        }
        all.sort { ($1.count, $0.first, $0.second) < ($0.count, $1.first, $1.second) }
        return Array(all.prefix(limit))
    }

    /// The grouping key of a tag: ``EvaluationReport/normalizeTag(_:)``, then each word's singular and plural
    /// spellings folded together. A key is for comparing and need not be a word ("activity" → "activitie").
    public static func normalize(_ tag: String) -> String {
        EvaluationReport.normalizeTag(tag).split(separator: " ").map { groupingKey(word: String($0)) }.joined(separator: " ")
    }

    /// Words whose trailing `s` is not a plural's, each of which would otherwise meet another word.
    private static let singularWordsEndingInS: Set<String> = [
        "news", "aids", "mars", "physics", "mathematics", "economics", "politics", "ethics",
    ]

    private static func groupingKey(word: String) -> String {
        var word = word
        // A plural `s`: not in `ss` (glass), `us` (campus) or `is` (analysis), nor on short words (gas, bus, yes)
        // or numbers (1990s).
        if word.count > 3, word.hasSuffix("s"), !word.hasSuffix("ss"), !word.hasSuffix("us"), !word.hasSuffix("is"),
           !word.contains(where: \.isNumber), !singularWordsEndingInS.contains(word) {
            word.removeLast()
        }
        // The stems that differ between a singular and its plural: activity/activitie, beach/beache.
        if word.count > 2, word.hasSuffix("y") {
            word.removeLast()
            word += "ie"
        } else if word.count > 3, word.hasSuffix("e"),
                  ["che", "she", "xe", "oe", "sse", "zze"].contains(where: word.hasSuffix) {
            // headache/headache(s), box/boxe, class/classe, tomato/tomatoe: one key with or without `e`.
            word.removeLast()
        }
        return word
    }

    /// The name of a group: its most frequent spelling, ties to the shorter, then the first in order.
    private func name(of key: String) -> String {
        guard let spelled = spellings[key] else { return key }
        return spelled.min { ($1.value, $0.key.count, $0.key) < ($0.value, $1.key.count, $1.key) }?.key ?? key
    }

    private func named(_ counts: [String: Int]) -> [String: Int] {
        Dictionary(counts.map { (name(of: $0.key), $0.value) }, uniquingKeysWith: +)
    }

    /// Adds one output line; lines that are not `fm tag` output (a JSON object with a `result` or an `error`) are
    /// counted in ``unreadableLines`` and otherwise ignored.
    public mutating func add(line: String) {
        guard !line.allSatisfy(\.isWhitespace) else { return }
        // A line cut off by a killed job parses as a prefix; it is not a record. Nor is one with an escaped lone
        // surrogate, which would count a tag (U+FFFD in its place) that no record holds.
        guard let content = try? GeneratedContent(jsonRefusingLoneSurrogates: line), content.isComplete,
              case .structure(let properties, _) = content.kind,
              properties["result"] != nil || properties["error"] != nil else {
            unreadableLines += 1
            return
        }
        records += 1
        var month: String?
        if let date = properties["date"] {
            if case .string(let text) = date.kind, Self.isYearAndMonth(text.utf8.prefix(7)) {
                // The seven bytes checked, not seven Characters: a combining mark after them would join the last.
                let prefix = String(decoding: text.utf8.prefix(7), as: UTF8.self)
                month = prefix
                monthCounts[prefix, default: 0] += 1
            } else {
                undatedRecords += 1
            }
        }
        guard let parsed = properties["result"] else {
            errors += 1
            return
        }
        // An integer past 2^53 − 1 is counted as written: read as a Double, two such values would meet in a third
        // that no record holds.
        let result = JSONLiteral.member("result", parsedAs: parsed, asWrittenIn: line)
        // A schema whose root is a list or a single value (`fm tag --schema` allows both) counts under `result`.
        var fields: [(key: String, value: GeneratedContent)] = []
        switch result.kind {
        case .structure: Self.collect(result, path: "", into: &fields)
        case .array: Self.collect(result, path: "result", into: &fields)
        default: fields = [("result", result)]
        }
        var all: Set<String> = []
        // Two members can reach one dotted name (`"meta.topic"` beside `"meta": {"topic"}`): a record counts once
        // for each of its tags under that name.
        var groupedByField: [String: Set<String>] = [:]
        for (key, value) in fields {
            var tags: [String] = []
            switch value.kind {
            case .array(let elements): tags = elements.compactMap(\.scalarText)
            default:
                // A string, Bool or number (a rating); a nested object or null has no value to count.
                guard let text = value.scalarText else { continue }
                tags = [text]
            }
            for tag in tags {
                let spelling = EvaluationReport.normalizeTag(tag)
                let group = Self.normalize(tag)
                guard !group.isEmpty else { continue }
                spellings[group, default: [:]][spelling, default: 0] += 1
                groupedByField[key, default: []].insert(group)
                if case .array = value.kind { all.insert(group) }
            }
        }
        for (key, grouped) in groupedByField {
            for group in grouped {
                keyedTagCounts[key, default: [:]][group, default: 0] += 1
                if let month { keyedMonthTagCounts[key, default: [:]][month, default: [:]][group, default: 0] += 1 }
            }
        }
        let paired = all.count <= Self.pairedTagLimit
        if !paired { unpairedRecords += 1 }
        for group in all {
            keyedListTagCounts[group, default: 0] += 1
            guard paired else { continue }
            for other in all where other != group { pairs[group, default: [:]][other, default: 0] += 1 }
        }
    }

    /// The countable fields of `value`: a structure's members under their names, a nested structure's under
    /// dotted ones (`meta.topic`), and a list of structures as one list per member (`items.name`), so a nested
    /// schema's answers are counted rather than dropped. Nulls have nothing to count.
    private static func collect(_ value: GeneratedContent, path: String, into fields: inout [(key: String, value: GeneratedContent)]) {
        func joined(_ key: String) -> String { path.isEmpty ? key : path + "." + key }
        switch value.kind {
        case .structure(let members, let order):
            for key in order { if let member = members[key] { collect(member, path: joined(key), into: &fields) } }
        case .array(let elements):
            var memberOrder: [String] = []
            var memberValues: [String: [GeneratedContent]] = [:]
            var scalars: [GeneratedContent] = []
            // Lists within lists, at any depth, are one list: their values and objects are counted, not dropped.
            for element in flattened(elements) {
                switch element.kind {
                case .structure(let members, let order):
                    for key in order {
                        guard let member = members[key] else { continue }
                        if memberValues[key] == nil { memberOrder.append(key) }
                        // A member that is itself a list adds its elements to the member's one list.
                        if case .array(let inner) = member.kind { memberValues[key, default: []] += inner } else { memberValues[key, default: []].append(member) }
                    }
                default: scalars.append(element)
                }
            }
            if memberOrder.isEmpty || !scalars.isEmpty { fields.append((path, GeneratedContent(kind: .array(scalars)))) }
            for key in memberOrder { collect(GeneratedContent(kind: .array(memberValues[key] ?? [])), path: joined(key), into: &fields) }
        case .null:
            return
        default:
            fields.append((path, value))
        }
    }

    /// The elements of a list with every list among them replaced by its own elements, at any depth.
    private static func flattened(_ elements: [GeneratedContent]) -> [GeneratedContent] {
        elements.flatMap { element -> [GeneratedContent] in
            if case .array(let inner) = element.kind { flattened(inner) } else { [element] }
        }
    }

    /// How many records carry both tags (any spelling of their groups) in their list fields; for a tag with
    /// itself, how many carry it.
    public func cooccurrences(_ first: String, _ second: String) -> Int {
        let (first, second) = (Self.normalize(first), Self.normalize(second))
        return first == second ? keyedListTagCounts[first] ?? 0 : pairs[first]?[second] ?? 0
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
        let tagCounts = self.tagCounts
        for field in tagCounts.keys.sorted() {
            lines.append("")
            // Line breaks, tabs, terminal escapes and direction controls in a name are written as escapes: raw,
            // they would forge rows or recolour the terminal.
            lines.append("\(field.shownInColumn):")
            for (tag, count) in Self.top(tagCounts[field] ?? [:], limit: limit) { lines.append("  \(count)\t\(tag.shownInColumn)") }
        }
        let pairs = topPairs(limit: limit)
        if !pairs.isEmpty {
            lines.append("")
            lines.append("co-occurring tags:")
            for pair in pairs { lines.append("  \(pair.count)\t\(pair.first.shownInColumn) + \(pair.second.shownInColumn)") }
        }
        if !monthCounts.isEmpty {
            lines.append("")
            lines.append("records per month:")
            for month in monthCounts.keys.sorted() { lines.append("  \(month)\t\(monthCounts[month] ?? 0)") }
        }
        return lines.joined(separator: "\n")
    }
}
