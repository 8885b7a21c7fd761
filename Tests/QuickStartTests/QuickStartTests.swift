import Foundation
import Testing

/// The README's Quick start, followed as a new user would: `make install` in the checkout (done by `make test`
/// before the tests), then a new package beside it, made of the README's files, built with plain `swift build`
/// and run with `swift run`.
///
/// The package's commands get a fresh login's environment: nothing the Makefile or the test runner sets
/// (`PKG_CONFIG_PATH`, `FM_*`) reaches them, so llama.cpp and the model must be found where a dependent
/// finds them by default.
@Suite("README Quick start", .timeLimit(.minutes(30)))
struct QuickStartTests {
    /// The root of this checkout.
    static let checkout = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The environment of a fresh login shell, as far as building and running need one.
    static var loginEnvironment: [String: String] {
        let inherited = ProcessInfo.processInfo.environment
        let kept = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "XDG_CACHE_HOME"]
        return inherited.filter { kept.contains($0.key) }
    }

    @Test func quickStartPackageBuildsAndPrintsTags() async throws {
        let readme = try String(contentsOf: Self.checkout.appendingPathComponent("README.md"), encoding: .utf8)
        let quickStart = ReadmeQuickStart(readme: readme)
        let paths = quickStart.files.map(\.path)
        try #require(paths.contains("Package.swift"), "the Quick start shows no `Package.swift`: \(paths)")
        try #require(paths.contains { $0.hasSuffix("main.swift") }, "the Quick start shows no `main.swift`: \(paths)")
        try #require(quickStart.commands.first == "make install", "the Quick start begins: \(quickStart.commands)")
        try #require(quickStart.commands.last == "swift run", "the Quick start ends with: \(quickStart.commands)")

        // The README's manifest depends on `../foundation-models-linux`: put the package beside a link of that
        // name to this checkout, whatever the checkout's own directory is called.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("quick-start-\(UUID().uuidString)")
        let package = root.appendingPathComponent("TagDemo")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("foundation-models-linux"), withDestinationURL: Self.checkout)
        for file in quickStart.files {
            let url = package.appendingPathComponent(file.path)
            let directory = url.deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(file.contents.utf8).write(to: url)
        }

        for command in quickStart.commands {
            let arguments = command.split(separator: " ").map(String.init)
            switch arguments.first {
            case "make":
                // `make test` runs `make install` before the tests (a prerequisite); running it here would build
                // this checkout while its tests run. Without it, the build below fails with shim.h's message.
                continue
            case "swift":
                // Build first, so that a failed build and a failed run read differently.
                if arguments == ["swift", "run"] {
                    let build = try await Self.run(["swift", "build"], in: package, timeout: .seconds(25 * 60))
                    try #require(!build.timedOut, "`swift build` took more than 25 minutes:\n\(build.tail)")
                    try #require(build.status == 0, "`swift build` of the Quick start package failed:\n\(build.tail)")
                }
                let result = try await Self.run(arguments, in: package, timeout: .seconds(10 * 60))
                try #require(!result.timedOut, "`\(command)` took more than 10 minutes:\n\(result.tail)")
                try #require(result.status == 0, "`\(command)` in the Quick start package failed:\n\(result.tail)")
                if arguments == ["swift", "run"] { try Self.expectTags(in: result.output) }
            default:
                Issue.record("The Quick start has a command this test does not know where to run: `\(command)`")
            }
        }
    }

    /// Runs a command with nothing but ``loginEnvironment``.
    static func run(_ arguments: [String], in directory: URL, timeout: Duration) async throws -> Command.Result {
        let command = Command(arguments: arguments, directory: directory, environment: loginEnvironment)
        return try await command.run(timeout: timeout)
    }

    /// Finds the line `print(tags.topics)` wrote, such as `["picnic", "beach"]`, and checks it holds one or two
    /// tags (the `@Guide`'s `.maximumCount(2)`), none of them blank.
    static func expectTags(in output: String) throws {
        let printed = output.split(separator: "\n").last { $0.hasPrefix("[\"") && $0.hasSuffix("\"]") }
        let line = try #require(printed, "`swift run` printed no list of tags:\n\(output.suffix(2000))")
        let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8))
        let tags = try #require(parsed as? [String], "not a list of strings: \(line)")
        #expect((1...2).contains(tags.count), "\(tags)")
        #expect(tags.allSatisfy { !$0.trimmingCharacters(in: .whitespaces).isEmpty }, "\(tags)")
    }
}
