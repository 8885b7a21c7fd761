import Foundation

extension EvaluationReport {
    /// A human-readable report: a score table, then each field's confusion matrix (top labels only).
    public var tableText: String {
        func percent(_ value: Double) -> String { String(format: "%5.1f%%", value * 100) }
        var lines = ["examples: \(count)   failed: \(failures)"]
        if !fields.isEmpty {
            lines.append("field                 accuracy  macro-F1")
            for field in fields {
                lines.append(field.field.padding(toLength: 20, withPad: " ", startingAt: 0) + "   " + percent(field.accuracy) + "   " + percent(field.macroF1))
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
                String(text.prefix(width - 1)).padding(toLength: width, withPad: " ", startingAt: 0)
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
