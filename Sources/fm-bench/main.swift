// fm-bench: release-build benchmarks. Usage: `fm-bench <suite> [options]`. Each suite measures its
// baseline in the same run and reports ratios.
//
// Suites:
//   runtime    prefill/decode throughput through LanguageModelSession vs a raw llama.cpp C-API loop
//   decoding   constrained-decoding engine (schema compile, token masks) on the SmolLM2 and Gemma-3 vocabularies
//   tagging    texts tagged per second, one at a time versus --parallel batches
//   throughput our side of the side-by-side comparison with llama-server (scripts/throughput.sh runs both)
//   all        every suite (the default)
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let suite = arguments.first ?? "all"
let usage = "usage: fm-bench [runtime | decoding [--walks N] [--vocabulary smol|gemma|all] | tagging [--texts N] [--parallel N] [--file FILE [--tags]] [--show-flips] | throughput [--model NAME] [--texts N] [--parallel N] [--file FILE] [--requests FILE] | all]\n"

/// Exits with the usage and status 64 (a usage error) after `message`.
func usageError(_ message: String) -> Never {
    try? FileHandle.standardError.write(contentsOf: Data("fm-bench: \(message)\n\(usage)".utf8))
    exit(64)
}

if arguments.contains("-h") || arguments.contains("--help") {
    print(usage, terminator: "")
    exit(0)
}
// A mistyped or valueless option must not silently run a benchmark with its defaults.
let options: BenchOptions
do { options = try BenchOptions(suite: suite, arguments: Array(arguments.dropFirst())) } catch { usageError(error.description) }

do {
    switch suite {
    case "runtime":
        try await RuntimeBenchmarks.run()
    case "decoding":
        DecodingBenchmarks.run(options: options)
    case "tagging":
        try await TaggingBenchmarks.run(options: options)
    case "throughput":
        try await ThroughputBenchmark.run(options: options)
    case "all":
        print("== runtime")
        try await RuntimeBenchmarks.run()
        print("\n== decoding")
        DecodingBenchmarks.run(options: options)
        print("\n== tagging")
        try await TaggingBenchmarks.run(options: options)
    default:
        preconditionFailure("BenchOptions accepts only known suites")
    }
} catch {
    try? FileHandle.standardError.write(contentsOf: Data("fm-bench: \(error)\n".utf8))
    exit(1)
}
