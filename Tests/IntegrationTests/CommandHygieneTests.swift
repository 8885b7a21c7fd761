import FMEngine
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// How `fm` treats its process: signals, its environment, an unwritable standard output, and inputs that cannot
/// be read twice. Each is a case a user meets without having done anything wrong in the command line itself.
@Suite("fm's process: signals, environment, output", .serialized, .timeLimit(.minutes(10)))
struct CommandHygieneTests {
    /// SIGQUIT (Ctrl-backslash) ends the command at once, as it ends any Unix tool; Swift's runtime would
    /// otherwise print a crash report and let the process run on.
    @Test func sigquitEndsTheCommandWithoutACrashReport() async throws {
        let process = Process()
        process.executableURL = TagCommandTests.fm
        process.arguments = ["serve", "--port", "0", "--model", "tiny"]
        let output = Pipe()
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("fm-quit-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let first = await TagCommandTests.firstLine(of: output.fileHandleForReading, within: .seconds(120))
        #expect(first?.hasPrefix("listening on ") == true, "\(first ?? "no line")")
        kill(process.processIdentifier, SIGQUIT)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(!process.isRunning, "fm serve still runs after SIGQUIT")
        guard !process.isRunning else { return }
        #expect(process.terminationReason == .exit && process.terminationStatus == 128 + SIGQUIT,
                "\(process.terminationReason.rawValue) \(process.terminationStatus)")
        let stderr = String(decoding: (try? Data(contentsOf: errorFile)) ?? Data(), as: UTF8.self)
        #expect(!stderr.contains("crashed") && !stderr.contains("Backtracing"), "\(stderr)")
    }

    /// A quality switch or logging switch `fm` cannot read stops every command before it starts (exit 64) with
    /// one message per variable and no usage line: the command line is not what is wrong.
    @Test func unreadableSwitchesInTheEnvironmentStopTheCommand() throws {
        for (variable, value, message) in [("FM_DISABLE", "exampels", "FM_DISABLE names 'exampels', which is not a switch"),
                                           ("FM_CALIBRATION_WEIGHT", "inf", "FM_CALIBRATION_WEIGHT=inf is not a finite number"),
                                           ("FM_LOG_CHOICES", "true", "FM_LOG_CHOICES=true is not 1 (on) or 0 (off)")] {
            let run = try ReportCommandTests.run(["cache", "info"], environment: [variable: value])
            #expect(run.status == 64 && run.stderr.contains(message) && !run.stderr.contains("Usage:"), "\(variable): \(run.stderr)")
        }
        let fine = try ReportCommandTests.run(["cache", "info"], environment: ["FM_LOG_CHOICES": "0", "FM_DISABLE": "calibration"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    /// Without XDG_CACHE_HOME the caches are under `$HOME/.cache`, as the shell and the install scripts have them;
    /// `fm cache info` only looks.
    @Test func theCacheFollowsHome() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("fm-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let run = try ReportCommandTests.run(["cache", "info"], environment: ["HOME": home.path, "XDG_CACHE_HOME": ""])
        #expect(run.status == 0 && run.stdout.contains(home.path + "/.cache/foundation-models/"), "\(run.stdout) \(run.stderr)")
        // Looking makes nothing: no cache file appears where there was none.
        #expect(!FileManager.default.fileExists(atPath: home.path + "/.cache/foundation-models/cache.sqlite"))
    }

    /// A server whose "listening on" line cannot be written (stdout full) would serve where nobody can find it
    /// (with `--port 0`): it stops with the reason instead.
    @Test func aServerThatCannotSayWhereItListensStops() throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let run = try ReportCommandTests.run(["serve", "--port", "0", "--model", "tiny"], standardOutput: full)
        #expect(run.status == 1 && run.stderr.contains("Cannot write standard output") && run.stderr.contains("stops"), "\(run.stderr)")
    }

    /// An address that is taken, or a host that names none, is said in words with the address (exit 1, and 64
    /// for the host, which is the command line's fault), not as the network library's error value.
    @Test func anAddressThatCannotBeListenedOnIsNamed() async throws {
        try await FMServe.with(arguments: ["--model", "tiny"]) { server in
            let taken = try ReportCommandTests.run(["serve", "--model", "tiny", "--port", "\(server.port)"])
            #expect(taken.status == 1 && taken.stderr.contains("Cannot listen on 127.0.0.1 port \(server.port): Address already in use."),
                    "\(taken.stderr)")
        }
        let nowhere = try ReportCommandTests.run(["serve", "--model", "tiny", "--host", "999.1.1.1", "--port", "0"])
        #expect(nowhere.status == 64 && nowhere.stderr.contains("Cannot listen on '999.1.1.1' port 0: it names no address"), "\(nowhere.stderr)")
    }

    /// A chat whose model does not load ends at the first message with that one error, rather than repeat it
    /// for every message.
    @Test func aChatWhoseModelDoesNotLoadEndsOnce() throws {
        let directory = try ReportCommandTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cut = try DefaultModel.cutCopy(in: directory)
        let run = try ReportCommandTests.run(["chat", "--model", cut.path], input: "hi\nhello\nagain\n")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "could not be loaded").count == 2, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.components(separatedBy: "> ").count == 2, "one prompt only: \(run.stdout)")
    }

    /// A pipe is read once: as both the texts and the examples, one of them would be empty.
    @Test func onePipeIsNotBothTheTextsAndTheExamples() throws {
        let run = try ReportCommandTests.run(["tag", "--model", "tiny", "--no-cache", "--examples", "/dev/stdin"],
                                             input: #"{"text":"win a prize","label":"spam"}"# + "\n")
        #expect(run.status == 64 && run.stderr.contains("cannot be both the texts to tag and the --examples file"), "\(run.stderr)")
    }

    /// Examples too long to fit beside a text cost it examples, not its answer: the least similar are left out
    /// until the prompt fits (and so for each calibration text), so a short text is still answered.
    @Test func examplesThatDoNotFitAreLeftOut() throws {
        let directory = try ReportCommandTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Six examples of about 1,150 tokens each: four (the default --shots) overflow a 4,096-token window, two fit.
        let filler = Array(repeating: "the invoice for the project update is attached to this message", count: 100).joined(separator: " ")
        let examples = directory.appendingPathComponent("examples.jsonl")
        let lines = (0..<6).map { index in
            let text = "Example \(index): " + filler
            let object: [String: String] = ["text": text, "label": index.isMultiple(of: 2) ? "ham" : "spam"]
            return String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: examples)
        let schema = directory.appendingPathComponent("spam.json")
        try Data(#"{"type":"object","properties":{"label":{"enum":["ham","spam"]}},"required":["label"]}"#.utf8).write(to: schema)
        let run = try ReportCommandTests.run(["tag", "--model", "tiny", "--no-cache", "--schema", schema.path, "--examples", examples.path,
                                              "please send the invoice for the project update"], environment: ["FM_LOG_CHOICES": "1"])
        #expect(run.status == 0 && run.stdout.contains(#""result":{"label":"#), "\(run.stdout) \(run.stderr)")
        #expect(!run.stdout.contains("context-overflow"), "\(run.stdout)")
        // Every calibration text was read too (with the examples that fit), not left out of the prior.
        let calibrationChoices = run.stderr.components(separatedBy: #""calibration":true"#).count - 1
        #expect(calibrationChoices == CalibrationSample.reference.count, "\(calibrationChoices) calibration choices logged")
    }

    /// `fm eval --runs` with `--no-cache` neither reads nor writes calibration tables, as every other run with
    /// `--no-cache`; without it, the tables are stored as usual.
    @Test func stabilityRunsWithoutTheCacheStoreNoCalibration() throws {
        let directory = try ReportCommandTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let gold = try ReportCommandTests.spamGold(in: directory)
        let tables = directory.appendingPathComponent("tables")
        func stored() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: tables.path)) ?? []).count { $0.hasSuffix(".json") } }
        let uncached = try ReportCommandTests.run(["eval", gold.path, "--runs", "2", "--model", "tiny", "--no-cache"],
                                                  environment: ["FM_CALIBRATION_CACHE": tables.path])
        #expect(uncached.status == 0, "\(uncached.stderr)")
        #expect(stored() == 0)
        let cached = try ReportCommandTests.run(["eval", gold.path, "--runs", "2", "--model", "tiny"],
                                                environment: ["FM_CALIBRATION_CACHE": tables.path])
        #expect(cached.status == 0, "\(cached.stderr)")
        #expect(stored() > 0)
    }
}
