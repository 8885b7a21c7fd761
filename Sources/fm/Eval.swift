import ArgumentParser
import FMTagging
import Foundation
import FoundationModels

extension FM {
    /// `fm eval`: accuracy of tagging against labelled JSONL.
    struct Eval: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Score tagging or classification against labelled JSONL.",
            discussion: """
                Each line: {"id","text","label": "x"} for one enum field, "label": {"field": "x", …} for \
                several, or "labels": [...] for multi-label or free tags. Without --preset or --schema, the \
                schema's enums are the file's own label sets.
                """
        )

        @Argument(help: "A labelled JSONL file.")
        var file: String

        @Option(name: .long, help: "The gold field (default: label or labels, whichever more lines have).")
        var labelKey: String?

        @Option(name: .long, parsing: .unconditional, help: "Score only the first N examples.")
        var limit: Int?

        @Flag(name: .long, help: "Print the report as JSON.")
        var json = false

        @Option(name: .long, help: "Score these results (JSONL lines with id and result, as `fm tag` writes) instead of running the model.")
        var predictions: String?

        @Flag(name: .long, help: "Print the JSON Schema the file is evaluated under, and exit.")
        var printSchema = false

        @Option(name: .long, help: "Also write a self-contained HTML report to this file.")
        var html: String?

        @Option(name: .long, help: ArgumentHelp(
            "Stability experiment: tag every text N times under .contentTagging and .general, each greedy and sampled.",
            discussion: "Sampled runs use --temperature (default 0.3) and, with --seed S, seed S+run. Nothing is cached. "
                + "With --json the experiment's report follows the evaluation's on a second line."))
        var runs: Int?

        @OptionGroup var tagging: TaggingOptions
        @OptionGroup var modelOptions: ModelOptions

        func validate() throws {
            if !FileManager.default.fileExists(atPath: file) { throw ValidationError("No file at \(file).") }
            // A pipe read whole as the labelled file leaves nothing for the examples (a regular file may be both).
            if let examples = tagging.examples, InputFile.isSameFile(examples, file), !InputFile.isRegularFile(file) {
                throw ValidationError("\(file) is a pipe, read once: it cannot be both the labelled file and the --examples file; save it to a file first.")
            }
            // The id and the text are what is scored, not a label: "has no text string" would follow.
            if let labelKey, labelKey.isEmpty || ["id", "text"].contains(labelKey) {
                throw ValidationError("--label-key names the field that holds each record's gold label; \(labelKey.isEmpty ? "an empty name is none" : "'\(labelKey)' is the record's \(labelKey)").")
            }
            if let predictions, !FileManager.default.fileExists(atPath: predictions) {
                throw ValidationError("No --predictions file at \(predictions).")
            }
            if let limit, limit <= 0 { throw ValidationError("--limit must be positive.") }
            try validateReports()
            try tagging.validateSeed(seedsRuns: runs != nil)
            // The stability experiment's sampled runs would ignore the votes its greedy runs use.
            if runs != nil, tagging.votes != nil { throw ValidationError("--votes joins greedy choices; --runs samples as well.") }
            try tagging.validateEndpoint(modelOptions)
            // Options that shape a run of the model, which scoring recorded results or printing the schema would
            // silently ignore.
            let runOptions = [("--model", modelOptions.model != nil), ("--examples", tagging.examples != nil),
                              ("--endpoint", tagging.endpoint != nil), ("--parallel", tagging.parallel != nil),
                              ("--max-tokens", tagging.maximumTokens != nil), ("--temperature", tagging.temperature != nil),
                              ("--seed", tagging.seed != nil), ("--instructions", tagging.instructions != nil),
                              ("--greedy", tagging.greedy), ("--shots", tagging.shots != nil), ("--votes", tagging.votes != nil),
                              ("--no-cache", tagging.noCache),
                              ("--guardrails", modelOptions.guardrails != .default)]
            if predictions != nil {
                if let (option, _) = runOptions.first(where: \.1) {
                    throw ValidationError("\(option) shapes a run of the model; --predictions scores results already made.")
                }
                // Recorded results are scored against the gold labels' shape; a schema only draws the HTML report.
                if html == nil, let (option, _) = [("--preset", tagging.preset != nil), ("--schema", tagging.schema != nil)].first(where: \.1) {
                    throw ValidationError("\(option) has no effect on scoring --predictions; it only shapes the --html report.")
                }
            }
            // --limit stays allowed: it shows that a limited run's schema is still the whole file's.
            if printSchema, let (option, _) = runOptions.first(where: \.1) {
                throw ValidationError("--print-schema prints the schema and exits; \(option) would have no effect.")
            }
        }

        func run() async throws {
            let (all, unlabelled) = LabelledExample.parseReportingUnlabelled(
                input: Array(try InputFile.read(file)), labelKey: labelKey)
            let reasons = Self.firstFew(unlabelled, separator: " ")
            guard !all.isEmpty else {
                throw CommandFailure("\(file) has no labelled examples." + (unlabelled.isEmpty ? "" : " " + reasons))
            }
            if !unlabelled.isEmpty {
                // Scored lines are fewer than the file's: say so rather than report over a silent subset.
                Console.note("warning: \(unlabelled.count) of \(all.count + unlabelled.count) lines are not scored: \(reasons)\n")
            }
            // The task is the whole file's: its label sets come from every example, also when --limit scores fewer,
            // so the first N are not classified among only the labels that happen to occur in them.
            let derived = EvaluationTask.schema(for: all)
            // Only a run of the model needs a label to choose; recorded predictions are scored as they are.
            if predictions == nil, tagging.preset == nil, tagging.schema == nil, derived.root.propertyNames.isEmpty {
                throw CommandFailure("""
                    Every \(labelKey.map { "'\($0)'" } ?? "gold") list in \(file) is empty, so there is no label to choose \
                    from: give the labels, or --schema or --preset to evaluate with.
                    """)
            }
            let schema = try tagging.generationSchema(fallback: derived)
            let examples = limit.map { Array(all.prefix($0)) } ?? all
            // A schema made from the gold labels fits them; one the user chose may not.
            // With --predictions the schema only draws the report; results are scored against the gold's shape.
            if predictions == nil, tagging.preset != nil || tagging.schema != nil {
                for warning in EvaluationTask.scoringWarnings(for: examples, schema: schema) { Console.note("warning: \(warning)\n") }
            }
            if printSchema {
                print(schema.jsonSchemaString)
                return
            }
            if let predictions {
                let scored = try Self.predictions(in: predictions, for: examples)
                let report = notingLinesNotScored(EvaluationReport(gold: examples.map(\.gold), predictions: scored),
                                                  unlabelled: unlabelled.count, labelled: all.count)
                try self.report(report)
                try writeHTML(examples: examples, predictions: scored, report: report, model: "results read from \(predictions)",
                              schema: schema, decoding: "as recorded")
                return
            }
            let model = try await tagging.model(modelOptions)
            var configuration = TaggingConfiguration(
                model: model,
                schema: schema,
                instructions: tagging.instructions,
                options: tagging.generationOptions,
                exampleIndex: try tagging.exampleIndex(schema: schema, labelKey: labelKey),
                // The job's own texts (all of them, whatever is skipped) estimate the model's label prior.
                calibrationTexts: TaggingConfiguration.sample(of: all.compactMap { try? $0.record.text.get() }, for: schema)
            )
            configuration.remoteEngines = tagging.remoteEngines
            let cache = tagging.cache()
            if let cache { await configuration.remoteEngines?.identifyServedModels(cache: cache) }
            configuration = await configuration.describingLabels(cache: cache, status: ProgressLine.status)
            var progress = ProgressLine(total: examples.count)
            let runner = tagging.runner(configuration: configuration, cache: cache, progress: progress)
            var predictions: [LabelledExample.Gold?] = []
            var failures: [String] = []
            let scoring = ScoredFields(schema: schema)
            try await runner.run(examples.map(\.record)) { record, outcome in
                let gold = examples[predictions.count].gold
                // Every text would fail alike, each trying the load again: one message instead.
                if case .failure(let failure) = outcome, failure.stopsJob {
                    throw CommandFailure(failure.message)
                }
                switch outcome {
                case .failure(let failure):
                    predictions.append(nil)
                    failures.append(failure.message)
                case .success(let result):
                    predictions.append(EvaluationTask.prediction(shapedLike: gold, in: result, scoring: scoring))
                }
                progress.advance()
            }
            progress.finish()
            // Nothing but failures would score as a model that gets everything wrong (0 %), and a script reading the
            // report would record that as the model's quality.
            if failures.count == examples.count, !examples.isEmpty {
                let all = examples.count == 1 ? "The one text" : "Every one of the \(examples.count) texts"
                throw CommandFailure("\(all) failed, so there is nothing to score: \(Self.firstFew(failures, separator: " "))")
            }
            if !failures.isEmpty {
                // A failed record counts as wrong: say why, so a low score is not read as the model's answers.
                Console.note("warning: \(failures.count) of \(examples.count) texts failed and are scored as wrong: \(Self.firstFew(failures, separator: " "))\n")
            }
            let report = notingLinesNotScored(EvaluationReport(gold: examples.map(\.gold), predictions: predictions),
                                              unlabelled: unlabelled.count, labelled: all.count)
            try self.report(report)
            try await writeReports(examples: examples, predictions: predictions, report: report, configuration: configuration)
        }

        /// The report with the lines of the file it leaves out, so a saved report does not read as the whole file's.
        private func notingLinesNotScored(_ report: EvaluationReport, unlabelled: Int, labelled: Int) -> EvaluationReport {
            var report = report
            if unlabelled > 0 { report.unlabelled = unlabelled }
            if labelled > report.count { report.pastLimit = labelled - report.count }
            return report
        }

        private func report(_ report: EvaluationReport) throws {
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                print(report.tableText)
            }
        }
    }
}

extension FM.Eval {
    /// The first three of `items` joined by `separator`, then an ellipsis when there are more: a warning names
    /// a few cases rather than every one.
    static func firstFew(_ items: [String], separator: String) -> String {
        items.prefix(3).joined(separator: separator) + (items.count > 3 ? separator + "…" : "")
    }

    /// The predictions in a results file, matched to the examples by id and text (a missing or failed record is
    /// `nil`). An id that several lines share (two files concatenated) pairs each example with the first line left
    /// that carries its text, or else one that carries none (as `fm tag --resume` counts them); a line of another
    /// text is another input's result and is not scored.
    static func predictions(in path: String, for examples: [LabelledExample]) throws -> [LabelledExample.Gold?] {
        let data = Array(try InputFile.read(path))
        // A failed record's error line holds its place (as a missing result), so the next result with its id
        // pairs with the next example. Lines are queued by id and text, so pairing stays linear when every line
        // shares one id.
        typealias Line = (result: GeneratedContent?, error: String, text: String?)
        var results: [String: [String?: ArraySlice<Line>]] = [:]
        var remaining: [String: Int] = [:]
        var unreadable: [String] = []
        var notUTF8: [String] = []
        for (number, line) in TaggingRecord.lines(in: data) {
            // Read with U+FFFD in place of its bytes, a line could score a label the model never wrote.
            guard let text = String(validating: line, as: UTF8.self) else {
                notUTF8.append(String(number))
                continue
            }
            // An escaped lone surrogate would be read as U+FFFD too: such a line is unreadable, not a prediction.
            guard let content = try? GeneratedContent(jsonRefusingLoneSurrogates: text), content.isComplete,
                  case .structure(let properties, _) = content.kind, var id = properties["id"]?.scalarText,
                  properties["result"] != nil || properties["error"] != nil else {
                if !text.allSatisfy(\.isWhitespace) { unreadable.append(String(number)) }
                continue
            }
            // A large integer id is matched as written, as `TaggingRecord` reads it.
            if case .number = properties["id"]?.kind, let written = JSONLiteral.integer(ofKey: "id", in: text) { id = String(written) }
            // An error line's message, for the refusal below when no example has a result.
            let error = properties["error"]
            let message: String
            if case .structure(let fields, _)? = error?.kind, let reason = fields["message"]?.scalarText { message = reason } else {
                message = error?.jsonString ?? ""
            }
            let written: String? = if case .string(let text)? = properties["text"]?.kind { text } else { nil }
            // A predicted integer label past 2^53 − 1 is named by its text, as the gold one is (in a field or a list too).
            let result = properties["result"].map { JSONLiteral.member("result", parsedAs: $0, asWrittenIn: text) }
            results[id, default: [:]][written, default: []].append((result, message, written))
            remaining[id, default: 0] += 1
        }
        let unmatched = Set(results.keys).subtracting(examples.map(\.record.id)).sorted()
        if !unmatched.isEmpty {
            // Usually a results file of another input or of --limit's other part: say so, since the report
            // counts only the missing side (as failed records).
            let shown = firstFew(unmatched, separator: ", ")
            let lines = unmatched.reduce(0) { $0 + (remaining[$1] ?? 0) }
            let counted = lines == 1 ? "1 line in \(path) matches" : "\(lines) lines in \(path) match"
            Console.note("warning: \(counted) no scored line (ids \(shown))\n")
        }
        func warn(lines numbers: [String], are what: String) {
            guard !numbers.isEmpty else { return }
            let counted = numbers.count == 1 ? "1 line of \(path) is" : "\(numbers.count) lines of \(path) are"
            Console.note("warning: \(counted) \(what) (line \(firstFew(numbers, separator: ", ")))\n")
        }
        warn(lines: notUTF8, are: "not UTF-8, so not read")
        warn(lines: unreadable, are: "not an fm tag output line with an id and a result or error")
        let answered = Set(results.keys)
        let missing = examples.map(\.record.id).filter { !answered.contains($0) }
        // Scoring nothing but failures would look like a model that gets everything wrong.
        if missing.count == examples.count, !examples.isEmpty {
            throw CommandFailure("""
                No line of \(path) has a scored example's id and a result or error: it is not fm tag output of this \
                file's texts (it may be the labelled file itself).
                """)
        }
        if !missing.isEmpty {
            let counted = missing.count == 1 ? "1 scored example has" : "\(missing.count) scored examples have"
            Console.note("warning: \(counted) no line in \(path) (ids \(firstFew(missing, separator: ", "))); counted as failed\n")
        }
        var scored = 0
        var reasons: [String] = []
        var otherTexts: [String] = []
        // Results whose fields are not named as fm writes them: which field was scored instead, by example id.
        var otherFields: [String: [String]] = [:]
        let predictions = examples.map { example -> LabelledExample.Gold? in
            let id = example.record.id
            guard let left = remaining[id], left > 0 else { return nil }
            let text = try? example.record.text.get()
            guard let line = results[id]?[text]?.popFirst() ?? results[id]?[String?.none]?.popFirst() else {
                otherTexts.append(id)
                return nil
            }
            remaining[id] = left - 1
            guard let result = line.result else {
                reasons.append(line.error)
                return nil
            }
            scored += 1
            // A file of another tool's making may order or name its fields otherwise: the named field is read
            // wherever it stands, another one only in its place, and the report says so.
            let scoring = ScoredFields(result: result)
            let fields: [String: GeneratedContent]? = if case .structure(let properties, _) = result.kind { properties } else { nil }
            switch example.gold {
            case .single where fields != nil:
                if let field = scoring.label, fields?[field]?.scalarText == nil {
                    otherFields["a `\(field)` that is not one value; counted as missing answers", default: []].append(id)
                } else if scoring.label != "label" {
                    otherFields[scoring.label.map { "no `label`; scored its first field of one value, `\($0)`" }
                        ?? "no field of one value; counted as missing answers", default: []].append(id)
                }
            case .set:
                if let field = scoring.list, case .array? = fields?[field]?.kind {
                    if field != "labels", field != "tags" {
                        otherFields["no list `labels` or `tags`; scored its first list, `\(field)`", default: []].append(id)
                    }
                } else {
                    otherFields[scoring.list.map { "a `\($0)` that is not a list; scored as empty" } ?? "no list; scored as empty",
                                default: []].append(id)
                }
            default: break
            }
            return EvaluationTask.prediction(shapedLike: example.gold, in: result, scoring: scoring)
        }
        for (what, ids) in otherFields.sorted(by: { $0.key < $1.key }) {
            let counted = ids.count == 1 ? "1 result in \(path) has" : "\(ids.count) results in \(path) have"
            Console.note("warning: \(counted) \(what) (ids \(firstFew(ids, separator: ", ")))\n")
        }
        if !otherTexts.isEmpty {
            // Ids alone match another input's output (plain lines are numbered 1, 2, …).
            let counted = otherTexts.count == 1 ? "1 scored example's line" : "\(otherTexts.count) scored examples' lines"
            if scored == 0, reasons.isEmpty {
                throw CommandFailure("""
                    The lines of \(path) with the scored examples' ids carry other texts (ids \(firstFew(otherTexts, separator: ", "))): \
                    it is fm tag output of another input.
                    """)
            }
            Console.note("warning: \(counted) in \(path) \(otherTexts.count == 1 ? "carries" : "carry") another text (ids \(firstFew(otherTexts, separator: ", "))); counted as failed\n")
        }
        // Lines left over for ids whose examples all have their line: a second answer to the same text (two runs
        // concatenated) is not scored, and the report should not look as if it were.
        let examined = Set(examples.map(\.record.id)).subtracting(otherTexts)
        let surplus = remaining.filter { examined.contains($0.key) && $0.value > 0 }.keys.sorted()
        if !surplus.isEmpty {
            let counted = surplus.count == 1 ? "1 id has" : "\(surplus.count) ids have"
            Console.note("warning: \(counted) more lines in \(path) than scored records with that id (ids \(firstFew(surplus, separator: ", "))); the extra lines are not scored\n")
        }
        // Error lines alone (a server that was down for the whole run) would score as a model that gets everything
        // wrong.
        if scored == 0, !examples.isEmpty {
            throw CommandFailure("""
                No scored example has a result line in \(path) (only error lines, or no line), so there is nothing to \
                score: \(firstFew(reasons, separator: " "))
                """)
        }
        return predictions
    }
}
