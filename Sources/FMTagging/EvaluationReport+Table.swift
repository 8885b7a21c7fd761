import Foundation

extension EvaluationReport {
    /// A human-readable report: a score table, then each field's confusion matrix (top labels only).
    public var tableText: String {
        func percent(_ value: Double) -> String { String(format: "%5.1f%%", value * 100) }
        var lines = ["examples: \(count)   failed: \(failures)"]
        let missing = fields.reduce(0) { $0 + $1.missing }
        if missing > 0 { lines[0] += "   fields missing from results: \(missing)" }
        if let unlabelled { lines[0] += "   lines without a gold answer, not scored: \(unlabelled)" }
        if let pastLimit { lines[0] += "   labelled lines past the limit, not scored: \(pastLimit)" }
        if !fields.isEmpty {
            // Whole names: two fields that begin alike must not look like one.
            let names = fields.map(\.field.shownInColumn)
            let width = max(20, names.map(\.count).max() ?? 0)
            lines.append("field".padded(toCharacters: width) + "  accuracy  macro-F1")
            for (field, name) in zip(fields, names) {
                lines.append(name.padded(toCharacters: width) + "   " + percent(field.accuracy) + "   " + percent(field.macroF1))
            }
        }
        if let overallAccuracy { lines.append("all fields correct:  " + percent(overallAccuracy)) }
        if let set {
            lines.append("tags: precision " + percent(set.precision) + "  recall " + percent(set.recall) + "  F1 " + percent(set.f1))
        }
        for field in fields {
            let labels = field.confusion.keys.sorted()
            // Columns are every label gold or predicted (and failures, missing fields): a dozen labels fit a terminal.
            let predicted = Set(field.confusion.values.flatMap(\.keys)).union(labels).sorted()
            guard field.labels.count <= 12 else {
                lines.append("\(field.field.shownInColumn): \(field.labels.count) labels; confusion matrix in --json")
                continue
            }
            let width = min(Self.widestConfusionCell, max(8, predicted.map(\.shownInColumn.count).max() ?? 8)) + 1
            func cell(_ text: String) -> String {
                let shown = text.shownInColumn
                return (shown.count < width ? shown : String(shown.prefix(width - 2)) + "…").padded(toCharacters: width)
            }
            lines.append("")
            lines.append("\(field.field.shownInColumn) confusion (rows gold, columns predicted):")
            lines.append(cell("") + predicted.map(cell).joined())
            for label in labels {
                lines.append(cell(label) + predicted.map { cell(String(field.confusion[label]?[$0] ?? 0)) }.joined())
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The most Characters a confusion matrix cell shows; a longer label is cut with an ellipsis.
    static let widestConfusionCell = 24
}

extension String {
    /// The text with line breaks, other control characters and bidirectional controls written as escapes
    /// (`\n`, `\u{202E}`): one of them in a label would break a table's line or reverse the cells after it.
    var shownInColumn: String {
        var shown = ""
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0x0A: shown += "\\n"
            case 0x0D: shown += "\\r"
            case 0x09: shown += "\\t"
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                shown += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    /// The text cut or padded with spaces to `length` Characters. Unlike `padding(toLength:withPad:startingAt:)`,
    /// which counts UTF-16 units, this keeps columns of emoji or decomposed accents aligned and graphemes whole.
    func padded(toCharacters length: Int) -> String {
        let characters = self.count
        return characters >= length ? String(prefix(length)) : self + String(repeating: " ", count: length - characters)
    }
}
