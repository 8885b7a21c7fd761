import Foundation

// fm-bench SUITE: release-build benchmarks; each suite measures its baseline in the same run.
let suites = ["runtime"]
let requested = CommandLine.arguments.dropFirst().first ?? "all"
do {
    if requested == "runtime" || requested == "all" {
        print("== runtime")
        try await RuntimeBenchmarks.run()
    }
    if !suites.contains(requested) && requested != "all" {
        print("unknown suite \(requested); available: \(suites.joined(separator: ", ")), all")
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("fm-bench: \(error)\n".utf8))
    exit(1)
}
