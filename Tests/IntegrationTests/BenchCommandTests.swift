import Foundation
import Testing

/// `fm-bench`'s command line: a mistyped or incomplete option stops it with a usage error instead of running a
/// benchmark under its defaults. None of these cases loads a model.
@Suite("fm-bench command line")
struct BenchCommandTests {
    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let bench = CommandRun.executable("fm-bench")
        try #require(FileManager.default.isExecutableFile(atPath: bench.path), "no fm-bench binary at \(bench.path)")
        return try CommandRun.run(bench, arguments)
    }

    @Test(arguments: [["--help"], ["throughput", "--help"], ["decoding", "-h"]])
    func helpPrintsTheUsageAndSucceeds(arguments: [String]) throws {
        let result = try Self.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("usage: fm-bench"))
    }

    @Test(arguments: [
        (["throughput", "--text", "5"], "unknown option '--text' for 'throughput'"),
        (["decoding", "--walks"], "--walks needs a value"),
        (["tagging", "--show-flips", "--tags", "--texts"], "--texts needs a value"),
        (["throughput", "--tags"], "unknown option '--tags' for 'throughput'"),
        (["tagging", "--parallel", "0"], "--parallel takes a positive whole number, not '0'"),
        (["throughput", "--texts", "many"], "--texts takes a positive whole number, not 'many'"),
        (["decoding", "--vocabulary", "qwen"], "--vocabulary takes smol, gemma or all, not 'qwen'"),
        (["runtime", "--model", "tiny"], "unknown option '--model' for 'runtime'"),
        (["speed"], "unknown suite 'speed'"),
    ])
    func badArgumentsAreAUsageError(arguments: [String], message: String) throws {
        let result = try Self.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message))
        #expect(result.stderr.contains("usage: fm-bench"))
        #expect(result.stdout.isEmpty, "no benchmark ran")
    }
}
