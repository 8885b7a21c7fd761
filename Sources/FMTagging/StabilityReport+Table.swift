import Foundation

extension StabilityReport {
    /// The most unstable inputs the text lists one by one.
    static let largestTextListing = 20

    /// A human-readable summary: one row per condition, then how many inputs had 1, 2, … distinct answers.
    public var tableText: String {
        func percent(_ value: Double) -> String { String(format: "%5.1f%%", value * 100) }
        let width = max(26, (conditions.map(\.condition.name.count).max() ?? 0) + 2)
        func pad(_ text: String, _ length: Int) -> String { text.padded(toCharacters: length) }
        var lines = [
            "stability: \(runs) runs per condition over \(inputs.count) inputs (distinct answers per input)",
            pad("condition", width) + "single answer  mean distinct  " + pad(scoreName + " (mean)", 16) + "failed",
        ]
        for result in conditions {
            lines.append(
                pad(result.condition.name, width) + pad(percent(result.singleAnswerShare), 15)
                    + pad(String(format: "%13.2f", result.meanDistinctAnswers), 15)
                    + pad(percent(result.meanScore), 16) + String(result.failures))
        }
        lines.append("")
        let columns = conditions.map { $0.histogram(runs: runs).count }.max() ?? runs
        lines.append(pad("inputs with k answers", width) + (1...max(columns, 1)).map { pad("k=\($0)", 7) }.joined())
        for result in conditions {
            let histogram = result.histogram(runs: columns)
            lines.append(pad(result.condition.name, width) + histogram.map { pad(String($0), 7) }.joined())
        }
        let unstable = unstableInputs
        if !unstable.isEmpty {
            lines.append("")
            lines.append("distinct answers of the inputs with more than one (columns in the order above):")
            let idWidth = min(24, max(4, unstable.map(\.id.count).max() ?? 4) + 2)
            for input in unstable.prefix(Self.largestTextListing) {
                lines.append("  " + pad(input.id, idWidth) + input.answers.map { pad(String(Set($0).count), 4) }.joined())
            }
            if unstable.count > Self.largestTextListing {
                lines.append("  … \(unstable.count - Self.largestTextListing) more (every input is in --json and --html)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
