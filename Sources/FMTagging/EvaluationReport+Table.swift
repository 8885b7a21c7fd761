import Foundation

extension EvaluationReport {
    /// A human-readable report: a score table, then each field's confusion matrix (top labels only).
    public var tableText: String {
        func percent(_ value: Double) -> String { String(format: "%5.1f%%", value * 100) }
        var lines = ["examples: \(count)   failed: \(failures)"]
        let missing = fields.reduce(0) { $0 + $1.missing }
        if missing > 0 { lines[0] += "   fields missing from results: \(missing)" }
        if !fields.isEmpty {
            lines.append("field                 accuracy  macro-F1")
            for field in fields {
                lines.append(field.field.padded(toCharacters: 20) + "   " + percent(field.accuracy) + "   " + percent(field.macroF1))
            }
        }
        if let overallAccuracy { lines.append("all fields correct:  " + percent(overallAccuracy)) }
        if let set {
            lines.append("tags: precision " + percent(set.precision) + "  recall " + percent(set.recall) + "  F1 " + percent(set.f1))
        }
        for field in fields {
            let labels = field.confusion.keys.sorted()
            guard labels.count <= 12 else {
                lines.append("\(field.field): \(labels.count) labels; confusion matrix in --json")
                continue
            }
            let predicted = Set(field.confusion.values.flatMap(\.keys)).union(labels).sorted()
            let width = max(8, (predicted + labels).map(\.count).max() ?? 8) + 1
            func cell(_ text: String) -> String {
                String(text.prefix(width - 1)).padded(toCharacters: width)
            }
            lines.append("")
            lines.append("\(field.field) confusion (rows gold, columns predicted):")
            lines.append(cell("") + predicted.map(cell).joined())
            for label in labels {
                lines.append(cell(label) + predicted.map { cell(String(field.confusion[label]?[$0] ?? 0)) }.joined())
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// The text cut or padded with spaces to `length` Characters. Unlike `padding(toLength:withPad:startingAt:)`,
    /// which counts UTF-16 units, this keeps columns of emoji or decomposed accents aligned and graphemes whole.
    func padded(toCharacters length: Int) -> String {
        let characters = self.count
        return characters >= length ? String(prefix(length)) : self + String(repeating: " ", count: length - characters)
    }
}
