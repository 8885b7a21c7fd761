// fm-bench: release-build benchmarks. Usage: `fm-bench <suite> [options]`.
//
// Suites:
//   decoding   constrained-decoding engine (schema compile, token masks) on the SmolLM2 and Gemma-3 vocabularies
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "decoding":
    DecodingBenchmarks.run(arguments: Array(arguments.dropFirst()))
default:
    FileHandle.standardError.write(Data("usage: fm-bench decoding [--walks N] [--vocabulary smol|gemma|all]\n".utf8))
    exit(64)
}
