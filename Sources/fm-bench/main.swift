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
let options = Array(arguments.dropFirst())
do {
    switch suite {
    case "runtime":
        try await RuntimeBenchmarks.run()
    case "decoding":
        DecodingBenchmarks.run(arguments: options)
    case "tagging":
        try await TaggingBenchmarks.run(arguments: options)
    case "throughput":
        try await ThroughputBenchmark.run(arguments: options)
    case "all":
        print("== runtime")
        try await RuntimeBenchmarks.run()
        print("\n== decoding")
        DecodingBenchmarks.run(arguments: options)
        print("\n== tagging")
        try await TaggingBenchmarks.run(arguments: options)
    default:
        FileHandle.standardError.write(Data("usage: fm-bench [runtime | decoding [--walks N] [--vocabulary smol|gemma|all] | tagging [--texts N] [--parallel N] | throughput [--model NAME] [--texts N] [--parallel N] [--requests FILE] | all]\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("fm-bench: \(error)\n".utf8))
    exit(1)
}
