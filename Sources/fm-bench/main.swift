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
let usage = "usage: fm-bench [runtime | decoding [--walks N] [--vocabulary smol|gemma|all] | tagging [--texts N] [--parallel N] [--file FILE [--tags]] [--show-flips] | throughput [--model NAME] [--texts N] [--parallel N] [--file FILE] [--requests FILE] | all]\n"

/// Each suite's options that take a value, those whose value is a positive count, and each suite's flags.
let knownOptions: [String: Set<String>] = [
    "runtime": [], "all": ["--walks", "--vocabulary", "--texts", "--parallel", "--file"],
    "decoding": ["--walks", "--vocabulary"], "tagging": ["--texts", "--parallel", "--file"],
    "throughput": ["--model", "--texts", "--parallel", "--file", "--requests"],
]
let countOptions: Set<String> = ["--walks", "--texts", "--parallel"]
let knownFlags: [String: Set<String>] = ["tagging": ["--tags", "--show-flips"], "all": ["--tags", "--show-flips"]]

/// Exits with the usage and status 64 (a usage error) after `message`.
func usageError(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fm-bench: \(message)\n\(usage)".utf8))
    exit(64)
}

if arguments.contains("-h") || arguments.contains("--help") {
    print(usage, terminator: "")
    exit(0)
}
guard let allowed = knownOptions[suite] else { usageError("unknown suite '\(suite)'") }
// A mistyped or valueless option must not silently run a benchmark with its defaults.
var position = 0
while position < options.count {
    let name = options[position]
    if knownFlags[suite, default: []].contains(name) {
        position += 1
        continue
    }
    guard allowed.contains(name) else { usageError("unknown option '\(name)' for '\(suite)'") }
    guard position + 1 < options.count else { usageError("\(name) needs a value") }
    if countOptions.contains(name), (Int(options[position + 1]) ?? 0) < 1 {
        usageError("\(name) takes a positive whole number, not '\(options[position + 1])'")
    }
    if name == "--vocabulary", !["smol", "gemma", "all"].contains(options[position + 1]) {
        usageError("--vocabulary takes smol, gemma or all, not '\(options[position + 1])'")
    }
    position += 2
}

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
        usageError("unknown suite '\(suite)'")
    }
} catch {
    FileHandle.standardError.write(Data("fm-bench: \(error)\n".utf8))
    exit(1)
}
