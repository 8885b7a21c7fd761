import FMTagging
import Foundation
import FoundationModels

/// `fm-bench tagging`: texts tagged per second with the default `ContentTaggingResult` schema, one at a time
/// (a fresh session per text, as an app would) versus `--parallel` batches, in the same run.
///
/// The texts are `benchmarks/tagging-texts.txt`: 500 short public texts (SMS, questions, headlines,
/// comments) drawn evenly from the labelled development data.
enum TaggingBenchmarks {
    static func run(arguments: [String]) async throws {
        let count = intOption("--texts", in: arguments) ?? 500
        let parallel = intOption("--parallel", in: arguments) ?? 8
        let url = URL(fileURLWithPath: "benchmarks/tagging-texts.txt")
        let texts = Array(try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init).prefix(count))
        guard !texts.isEmpty else { throw BenchmarkFailure("no texts in \(url.path)") }
        let model = SystemLanguageModel(useCase: .contentTagging)
        guard model.isAvailable else { throw BenchmarkFailure("The default model is not installed; run `fm model install default`.") }
        let tagger = Tagger(configuration: TaggingConfiguration(model: model, schema: TaggingPreset.contentTagging.schema))

        // Warm-up: load the model, build the masks the schema's states need, fill the shared prefix.
        _ = await tagger.tag(Array(texts.prefix(parallel)), parallel: parallel)
        _ = await tagger.tag(Array(texts.prefix(2)), parallel: 1)

        let (sequentialSeconds, sequentialFailures) = await timed { await tagger.tag(texts, parallel: 1) }
        let (parallelSeconds, parallelFailures) = await timed { await tagger.tag(texts, parallel: parallel) }
        let sequentialRate = Double(texts.count) / sequentialSeconds
        let parallelRate = Double(texts.count) / parallelSeconds
        print("tagging \(texts.count) texts, ContentTaggingResult, greedy, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print(String(format: "  one at a time   %7.1f s  %6.2f texts/s  (%d errors)", sequentialSeconds, sequentialRate, sequentialFailures))
        print(String(format: "  --parallel %-3d  %7.1f s  %6.2f texts/s  (%d errors)", parallel, parallelSeconds, parallelRate, parallelFailures))
        print(String(format: "  speed-up        %.2fx", parallelRate / sequentialRate))
    }

    private static func timed(_ body: () async -> [Result<GeneratedContent, TaggingFailure>]) async -> (Double, Int) {
        let start = DispatchTime.now().uptimeNanoseconds
        let results = await body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (seconds, results.filter { if case .failure = $0 { true } else { false } }.count)
    }

    private static func intOption(_ name: String, in arguments: [String]) -> Int? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return Int(arguments[index + 1])
    }
}
