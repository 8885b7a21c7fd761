import ArgumentParser
import FMReports
import FMTagging
import Foundation

extension FM {
    /// `fm stats`: aggregate `fm tag` output.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Most frequent tags per field, co-occurring tags, and records per month from `fm tag` output.",
            discussion: "Tags are grouped case-insensitively, with hyphens as spaces and singular and plural forms together, each group under its most frequent spelling."
        )

        @Argument(help: "`fm tag` output files; - is stdin (the default).")
        var files: [String] = []

        @Option(name: .long, parsing: .unconditional, help: "How many entries to list per table.")
        var top = 10

        @Option(name: .long, help: "Also write a self-contained HTML report (frequencies, co-occurrence, monthly trends) to this file.")
        var html: String?

        func validate() throws {
            if top <= 0 { throw ValidationError("--top must be positive.") }
            for file in files where file != "-" && !FileManager.default.fileExists(atPath: file) { throw ValidationError("No file at \(file).") }
            if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be read once.") }
            // One file named twice (`a.jsonl ./a.jsonl`, or `- < a.jsonl` beside `a.jsonl`) would count its records twice.
            let paths = files.map { $0 == "-" ? "/dev/stdin" : $0 }.filter { InputFile.isRegularFile($0) }
            for (index, path) in paths.enumerated() {
                if let other = paths[..<index].first(where: { InputFile.isSameFile($0, path) }) {
                    let named = { (path: String) in path == "/dev/stdin" ? "standard input" : path }
                    throw ValidationError("\(named(other)) and \(named(path)) are one file; its records would be counted twice.")
                }
            }
            if let html {
                // Standard input read from the report's file (`fm stats --html x < x`) is an input too. Only a regular
                // file: a terminal is one device behind /dev/stdin and /dev/stdout alike.
                let readsStandardInput = (files.isEmpty || files.contains("-")) && InputFile.isRegularFile("/dev/stdin")
                let inputs = files.filter { $0 != "-" }.map { ("input file", Optional($0)) }
                    + [("standard input", readsStandardInput ? "/dev/stdin" : nil)]
                try ReportFile.validate(html, option: "--html", inputs: inputs)
            }
        }

        func run() async throws {
            var statistics = TagStatistics()
            let inputs = files.isEmpty ? [try InputFile.readStandardInput(expecting: "fm tag output")]
                : try files.map { $0 == "-" ? try InputFile.readStandardInput(expecting: "fm tag output") : try InputFile.read($0) }
            var notUTF8 = 0
            for data in inputs {
                // Split on bytes: in a Swift String "\r\n" is one character, so a CRLF file would be one line.
                for (_, line) in TaggingRecord.lines(in: Array(data)) {
                    // Read with U+FFFD in place of its bytes, a line would count tags no record holds.
                    guard let text = String(validating: line, as: UTF8.self) else { notUTF8 += 1; continue }
                    statistics.add(line: text)
                }
            }
            if notUTF8 > 0 {
                Console.note("warning: \(notUTF8 == 1 ? "1 line is" : "\(notUTF8) lines are") not UTF-8, so not counted.\n")
            }
            if statistics.unreadableLines > 0 {
                let lines = statistics.unreadableLines == 1 ? "1 line is not fm tag output"
                    : "\(statistics.unreadableLines) lines are not fm tag output"
                let message = "\(lines) (a JSON object with a result or an error); fm stats reads the lines fm tag writes."
                // Nothing but other text is a wrong file, not a report with zero records.
                guard statistics.records > 0 else { throw CommandFailure("No records: " + message) }
                Console.note("warning: \(message) They are not counted.\n")
            }
            // An empty input (an fm tag run that wrote nothing yet, the wrong file) is no report of zero records.
            guard statistics.records > 0 else { throw CommandFailure("No records: the input has no lines of fm tag output.") }
            if statistics.undatedRecords > 0 {
                let records = statistics.undatedRecords == 1 ? "1 record has a date" : "\(statistics.undatedRecords) records have a date"
                Console.note("warning: \(records) that does not begin with a year and month (2024-05…); it is in no month's count.\n")
            }
            if statistics.unpairedRecords > 0 {
                let records = statistics.unpairedRecords == 1 ? "1 record has" : "\(statistics.unpairedRecords) records have"
                Console.note("warning: \(records) more than \(TagStatistics.pairedTagLimit) tags; their tags are counted, but not paired in the co-occurring tags.\n")
            }
            print(statistics.text(limit: top))
            if let html { try ReportFile.write(StatisticsPage(statistics: statistics, sources: files.map { $0 == "-" ? "standard input" : $0 }, top: top).html, to: html) }
        }
    }
}
