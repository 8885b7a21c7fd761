import FMTagging
import Foundation
import FoundationModels

/// `fm-bench tagging`: texts tagged per second with the default `ContentTaggingResult` schema, one at a time
/// (a fresh session per text, as an app would) versus `--parallel` batches, in the same run, and how many
/// greedy results differ between the two (the batch's arithmetic can break a near-tie the other way).
///
/// The texts are `benchmarks/tagging-texts.txt`: 500 short public texts (SMS, questions, headlines,
/// comments) drawn evenly from the labelled development data. `--file data.jsonl` tags a labelled file's
/// texts instead, with a schema of its label sets (as `fm eval` builds it) unless `--tags` asks for the
/// content-tagging schema.
enum TaggingBenchmarks {
    static func run(options: BenchOptions) async throws {
        let count = options.count("--texts") ?? 500
        let parallel = options.count("--parallel") ?? 8
        var texts: [String]
        var schema = TaggingPreset.contentTagging.schema
        var source = "benchmarks/tagging-texts.txt"
        if let file = options.value("--file") {
            source = file
            let examples = LabelledExample.parse(input: Array(try Data(contentsOf: URL(fileURLWithPath: source))))
            texts = examples.compactMap { try? $0.record.text.get() }
            if !options.contains("--tags") { schema = EvaluationTask.schema(for: examples) }
        } else {
            texts = try String(contentsOf: URL(fileURLWithPath: source), encoding: .utf8).split(separator: "\n").map(String.init)
        }
        texts = Array(texts.prefix(count))
        guard !texts.isEmpty else { throw BenchmarkFailure("no texts in \(source)") }
        let model = SystemLanguageModel(useCase: .contentTagging)
        guard model.isReady else { throw BenchmarkFailure("The default model is not installed; run `fm model install default`.") }
        let tagger = Tagger(configuration: TaggingConfiguration(model: model, schema: schema))

        // Warm-up: load the model, build the masks the schema's states need, fill the shared prefix.
        _ = await tagger.tag(Array(texts.prefix(parallel)), parallel: parallel)
        _ = await tagger.tag(Array(texts.prefix(2)), parallel: 1)

        let (sequentialSeconds, sequential) = await timed { await tagger.tag(texts, parallel: 1) }
        let (parallelSeconds, batched) = await timed { await tagger.tag(texts, parallel: parallel) }
        let sequentialRate = Double(texts.count) / sequentialSeconds
        let parallelRate = Double(texts.count) / parallelSeconds
        let flips = zip(texts, zip(sequential, batched)).filter { _, pair in outcome(pair.0) != outcome(pair.1) }
        print("tagging \(texts.count) texts from \(source), \(schema.root.typeName ?? "schema"), greedy, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print(String(format: "  one at a time   %7.1f s  %6.2f texts/s  (%d errors)", sequentialSeconds, sequentialRate, failures(sequential)))
        print(String(format: "  --parallel %-3d  %7.1f s  %6.2f texts/s  (%d errors)", parallel, parallelSeconds, parallelRate, failures(batched)))
        print(String(format: "  speed-up        %.2fx", parallelRate / sequentialRate))
        print(String(format: "  results that differ  %d of %d (%.1f%%)", flips.count, texts.count, 100 * Double(flips.count) / Double(texts.count)))
        for (text, pair) in flips.prefix(options.contains("--show-flips") ? flips.count : 0) {
            print("    \(text.prefix(60))\n      one at a time: \(outcome(pair.0))\n      --parallel:    \(outcome(pair.1))")
        }
    }

    private static func outcome(_ result: Result<GeneratedContent, TaggingFailure>) -> String {
        switch result {
        case .success(let content): content.jsonString
        case .failure(let failure): "error \(failure.code)"
        }
    }

    private static func failures(_ results: [Result<GeneratedContent, TaggingFailure>]) -> Int {
        results.filter { if case .failure = $0 { true } else { false } }.count
    }

    private static func timed(
        _ body: () async -> [Result<GeneratedContent, TaggingFailure>]
    ) async -> (Double, [Result<GeneratedContent, TaggingFailure>]) {
        let start = DispatchTime.now().uptimeNanoseconds
        let results = await body()
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, results)
    }
}
