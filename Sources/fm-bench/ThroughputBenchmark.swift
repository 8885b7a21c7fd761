import FMTagging
import Foundation
import FoundationModels

/// `fm-bench throughput`: our side of the side-by-side throughput comparison with llama-server
/// (`scripts/throughput.sh` runs the anchor on the same texts in the same run).
///
/// Tags the first `--texts` lines of `benchmarks/tagging-texts.txt` (or of `--file`: plain lines, or a labelled
/// `.jsonl` file's texts) with the content-tagging schema, greedy:
/// one text at a time (each text's latency, as an app awaiting one answer sees it) and `--parallel` at once.
/// Writes, for the anchor, the exact chat messages our executor sends for each text and the schema as JSON
/// Schema (`--requests FILE`, JSONL), and prints one JSON object with the rates, latencies, peak memory and
/// the results, so the script can compare both sides' answers.
enum ThroughputBenchmark {
    static func run(options: BenchOptions) async throws {
        let count = options.count("--texts") ?? 48
        let parallel = options.count("--parallel") ?? 8
        let name = options.value("--model") ?? ModelCatalog.defaultName
        let source = options.value("--file") ?? "benchmarks/tagging-texts.txt"
        // A labelled file's lines are JSON records, as `tagging --file` reads them; other files hold one text a line.
        let texts = source.hasSuffix(".jsonl")
            ? Array(LabelledExample.parse(input: Array(try Data(contentsOf: URL(fileURLWithPath: source))))
                .compactMap { try? $0.record.text.get() }.prefix(count))
            : Array(try String(contentsOf: URL(fileURLWithPath: source), encoding: .utf8)
                .split(separator: "\n").map(String.init).prefix(count))
        guard !texts.isEmpty else { throw BenchmarkFailure("no texts in \(source)") }
        let model = SystemLanguageModel(modelURL: try ModelCatalog.fileURL(for: name), useCase: .contentTagging)
        guard model.isReady else { throw BenchmarkFailure("The model \(name) is not installed; run `fm model install \(name)`.") }
        let schema = TaggingPreset.contentTagging.schema
        let tagger = Tagger(configuration: TaggingConfiguration(model: model, schema: schema))

        if let path = options.value("--requests") {
            let schemaObject = try JSONSerialization.jsonObject(with: Data(schema.jsonSchemaString.utf8))
            var lines = ""
            for text in texts {
                let messages = model.renderedMessages(after: tagger.startingTranscript(for: text), prompt: text, schema: schema)
                let request: [String: Any] = ["messages": messages.map { ["role": $0.role, "content": $0.content] }, "schema": schemaObject]
                lines += String(decoding: try JSONSerialization.data(withJSONObject: request, options: [.sortedKeys]), as: UTF8.self) + "\n"
            }
            try lines.write(toFile: path, atomically: true, encoding: .utf8)
        }

        // Warm-up: load the model, build the masks the schema's states need, fill the shared prefix.
        _ = await tagger.tag(Array(texts.prefix(parallel)), parallel: parallel)
        _ = await tagger.tag(Array(texts.prefix(2)), parallel: 1)

        var latencies: [Double] = []
        var sequential: [Result<GeneratedContent, TaggingFailure>] = []
        let sequentialStart = DispatchTime.now().uptimeNanoseconds
        for text in texts {
            let start = DispatchTime.now().uptimeNanoseconds
            sequential.append(await tagger.tag(text))
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        let sequentialSeconds = Double(DispatchTime.now().uptimeNanoseconds - sequentialStart) / 1e9
        let parallelStart = DispatchTime.now().uptimeNanoseconds
        let batched = await tagger.tag(texts, parallel: parallel)
        let parallelSeconds = Double(DispatchTime.now().uptimeNanoseconds - parallelStart) / 1e9

        let report: [String: Any] = [
            "model": name,
            "texts": texts.count,
            "parallel": parallel,
            "sequential_texts_per_second": Double(texts.count) / sequentialSeconds,
            "parallel_texts_per_second": Double(texts.count) / parallelSeconds,
            "median_latency_seconds": median(latencies),
            "latencies_seconds": latencies,
            "errors": (sequential + batched).filter { if case .failure = $0 { true } else { false } }.count,
            "peak_rss_bytes": peakResidentBytes(),
            "results": sequential.map(outcome),
            "parallel_results": batched.map(outcome),
        ]
        print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
    }

    /// A result as compact JSON text, or `error CODE`.
    private static func outcome(_ result: Result<GeneratedContent, TaggingFailure>) -> String {
        switch result {
        case .success(let content): content.jsonString
        case .failure(let failure): "error \(failure.code)"
        }
    }

    /// The process's peak resident memory (`VmHWM`), or 0 where /proc is missing.
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              // `VmHWM:\t  98304 kB`: the number is padded to eight places, so a larger one has no space before it.
              let kilobytes = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return kilobytes * 1024
    }
}
