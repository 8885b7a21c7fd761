import ArgumentParser
import FMReports
import FMTagging
import Foundation
import FoundationModels

extension FM.Eval {
    /// Checks `--html` and `--runs`.
    func validateReports() throws {
        if let runs, !(2...100).contains(runs) { throw ValidationError("--runs must be between 2 and 100.") }
        if runs != nil, let temperature = tagging.temperature, temperature <= 0 {
            throw ValidationError("--runs samples at --temperature, which must then be positive.")
        }
        if runs != nil, predictions != nil { throw ValidationError("--runs runs the model; it cannot score --predictions.") }
        // --print-schema prints and exits: a report it would not write is refused rather than skipped.
        if printSchema, let (option, _) = [("--html", html != nil), ("--json", json), ("--predictions", predictions != nil),
                                           ("--runs", runs != nil)].first(where: \.1) {
            throw ValidationError("--print-schema prints the schema and exits; it writes no report (drop \(option)).")
        }
        // The experiment compares the local model's use cases; a server would get the same request for each.
        if runs != nil, tagging.endpoint != nil { throw ValidationError("--runs compares the local model's use cases; it cannot run on --endpoint.") }
        if let html {
            try ReportFile.validate(html, option: "--html",
                                    inputs: [("labelled file", file), ("--predictions file", predictions), ("--examples file", tagging.examples),
                                             ("--schema file", tagging.schema)])
        }
    }

    /// Runs the stability experiment when asked, prints it, and writes the HTML report when asked.
    func writeReports(examples: [LabelledExample], predictions: [LabelledExample.Gold?], report: EvaluationReport,
                      configuration: TaggingConfiguration) async throws {
        var stability: StabilityReport?
        if let runs {
            var experiment = StabilityExperiment(
                base: configuration, runs: runs, temperature: tagging.temperature ?? StabilityExperiment.defaultTemperature,
                seed: tagging.seed, parallel: tagging.parallel ?? 1)
            experiment.storesCalibration = !tagging.noCache
            var progress = ProgressLine(total: examples.count * runs * experiment.conditions.count)
            let result = try await experiment.run(examples, progress: { progress.advance() }, calibrationProgress: progress.calibration)
            progress.finish()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(result), as: UTF8.self))
            } else {
                print("\n" + result.tableText)
            }
            stability = result
        }
        // With --endpoint the servers answered, not the local model the configuration still names.
        let model = configuration.remoteEngines?.identity ?? configuration.model.modelURL.path
        try writeHTML(examples: examples, predictions: predictions, report: report, model: model,
                      schema: configuration.schema, decoding: Self.describe(configuration.options), stability: stability)
    }

    /// Writes the HTML report when `--html` asks for one.
    func writeHTML(examples: [LabelledExample], predictions: [LabelledExample.Gold?], report: EvaluationReport, model: String,
                   schema: GenerationSchema, decoding: String, stability: StabilityReport? = nil) throws {
        guard let html else { return }
        let summary = EvaluationPage.Summary(dataFile: file, model: model, schema: schema.jsonSchemaString, decoding: decoding)
        let page = EvaluationPage(summary: summary, examples: examples, predictions: predictions, report: report, stability: stability)
        try ReportFile.write(page.html, to: html)
    }

    /// How options decode, in words.
    static func describe(_ options: GenerationOptions) -> String {
        guard let temperature = options.temperature, temperature > 0, options.samplingMode != .greedy else { return "greedy" }
        return "sampled at temperature \(temperature)"
    }
}
