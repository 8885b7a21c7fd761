import Foundation
import FoundationModels
import HeadlessBrowser
import Testing

/// `fm eval --html --runs` and `fm stats --html` end to end: the real default model tags, the real `fm` binary
/// writes the pages, and headless Chromium renders them.
@Suite("HTML reports of fm eval and fm stats with the real default model", .serialized, .timeLimit(.minutes(20)))
struct ReportCommandTests {
    /// Runs `fm` with `arguments`, `input` on stdin (none: an empty stdin) and, when given, stdout going to
    /// `standardOutput` instead of being read back. With `mergingStandardError`, stderr goes into stdout's pipe,
    /// as `2>&1`, so `stdout` shows the order of both.
    static func run(_ arguments: [String], input: String = "", standardInput: FileHandle? = nil, standardOutput: FileHandle? = nil,
                    mergingStandardError: Bool = false, executable: URL = TagCommandTests.fm,
                    environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let inputPipe = Pipe()
        process.standardInput = standardInput ?? inputPipe
        let output = Pipe()
        // Standard error goes to a file, so neither stream can fill up while the other is read.
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("fm-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let errors = try FileHandle(forWritingTo: errorFile)
        process.standardOutput = standardOutput ?? output
        process.standardError = mergingStandardError ? output : errors
        try process.run()
        if standardInput == nil { try inputPipe.fileHandleForWriting.write(contentsOf: Data(input.utf8)) }
        try inputPipe.fileHandleForWriting.close()
        let stdout = standardOutput == nil ? output.fileHandleForReading.readDataToEndOfFile() : Data()
        process.waitUntilExit()
        try errors.close()
        let stderr = (try? Data(contentsOf: errorFile)) ?? Data()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    /// A labelled file of two texts, one `spam` and one `ham`, in `directory`.
    static func spamGold(in directory: URL) throws -> URL {
        let gold = directory.appendingPathComponent("gold.jsonl")
        try Data(#"{"id":"1","text":"win a prize now","label":"spam"}\#n{"id":"2","text":"see you at lunch","label":"ham"}\#n"#.utf8)
            .write(to: gold)
        return gold
    }

    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-report-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func render(_ file: URL, name: String) async throws -> (PageFacts, HeadlessBrowser.Rendering) {
        let browser = try HeadlessBrowser()
        do {
            let rendering = try await browser.render(file, evaluating: PageFacts.expression)
            await browser.close()
            try HeadlessBrowser.save(screenshot: rendering.screenshot, name: name)
            #expect(rendering.consoleErrors.isEmpty, "\(rendering.consoleErrors)")
            #expect(rendering.requests.isEmpty, "\(rendering.requests)")
            #expect(HeadlessBrowser.pngSize(rendering.screenshot) != nil)
            return (try PageFacts(rendering.value), rendering)
        } catch {
            await browser.close()
            throw error
        }
    }

    @Test func badReportOptionsFailBeforeTheModelRuns() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.jsonl")
        try Data(#"{"id":"a","text":"hello","label":"ham"}"#.utf8).write(to: input)
        let cases: [([String], String)] = [
            (["eval", input.path, "--runs", "1"], "--runs must be between 2 and 100"),
            (["eval", input.path, "--runs", "3", "--temperature", "0"], "--temperature"),
            (["eval", input.path, "--html", directory.path + "/missing/report.html"], "no directory"),
            (["eval", input.path, "--html", directory.path], "is a directory"),
            (["eval", input.path, "--runs", "2", "--endpoint", "http://127.0.0.1:9"], "--endpoint"),
            (["stats", input.path, "--html", directory.path + "/missing/stats.html"], "no directory"),
            (["eval", input.path, "--runs", "2", "--predictions", input.path], "--predictions"),
            (["eval", input.path, "--print-schema", "--html", directory.path + "/report.html"], "drop --html"),
            // Every part of --endpoint is a server; a typo is not dropped in silence.
            (["tag", "--endpoint", "http://127.0.0.1:9,127.0.0.1:10", "hello"], "'127.0.0.1:10' is not an http(s) URL"),
            (["tag", "--endpoint", "http://127.0.0.1:9,", "hello"], "'' is not an http(s) URL"),
            (["tag", "--endpoint", "http://127.0.0.1:0", "hello"], "names port 0; a port is 1 to 65535"),
            (["tag", "--endpoint", "http://127.0.0.1:99999", "hello"], "names port 99999; a port is 1 to 65535"),
            // Credentials in the URL would not be sent (requests carry a bearer token).
            (["tag", "--endpoint", "http://alice:s3cret@127.0.0.1:9", "hello"], "127.0.0.1 is given with a user or password"),
            // A negative number reaches the option's own check instead of reading as a missing value.
            (["tag", "--temperature", "-1", "hello"], "--temperature must not be negative"),
            // `inf` and `nan` parse as numbers; they are refused before a run rather than trapping after it.
            (["eval", input.path, "--runs", "2", "--temperature", "inf"], "--temperature must be a finite number"),
            (["tag", "--temperature", "nan", "hello"], "--temperature must be a finite number"),
            (["respond", "--temperature", "inf", "hello"], "--temperature must be a finite number"),
            (["respond", "--max-tokens", "-5", "hello"], "--max-tokens must be positive"),
            (["tag", "--parallel", "-2", "hello"], "--parallel must be between 1 and 64"),
            (["eval", input.path, "--limit", "-1"], "--limit must be positive"),
            (["tag", "--max-tokens", "0", "hello"], "--max-tokens must be positive"),
            // Options that would be silently ignored are refused, naming what they need.
            (["tag", "--shots", "2", "hello"], "--shots chooses among --examples"),
            (["tag", "--examples", "-", "hello"], "`-` (standard input) is not accepted there"),
            (["tag", "--seed", "3", "hello"], "--seed seeds sampling"),
            (["tag", "--concurrency", "2", "hello"], "--concurrency applies to --endpoint"),
            (["tag", "--endpoint", "http://127.0.0.1:9", "--parallel", "2", "hello"], "with --endpoint, set --concurrency"),
            (["eval", input.path, "--predictions", input.path, "--model", "tiny"], "--model shapes a run"),
            (["eval", input.path, "--predictions", input.path, "--preset", "email"], "--preset has no effect on scoring --predictions"),
            (["eval", input.path, "--print-schema", "--no-cache"], "--no-cache would have no effect"),
            (["eval", input.path, "--print-schema", "--model", "tiny"], "--model would have no effect"),
            // Past a week the server's nanosecond count would overflow.
            (["serve", "--idle-timeout", "10000000000"], "--idle-timeout must be between 1 and 604800 seconds"),
            (["chat", "--resume", input.path, "--instructions", "Be brief."], "drop --instructions"),
            (["chat", "--save", directory.path + "/missing/chat.json"], "--save: no directory"),
            // Writing the output over the input would destroy the texts being tagged.
            (["tag", "--file", input.path, "--output", directory.path + "/./in.jsonl"], "is the --file input"),
            // ArgumentParser keeps the last of a repeated option: the first file would go untagged in silence.
            (["tag", "--file", input.path, "--file", input.path], "--file is given more than once"),
            (["tag", "-o", directory.path + "/a.jsonl", "--output=" + directory.path + "/b.jsonl", "hello"], "--output is given more than once"),
            (["eval", input.path, "--preset", "email", "--preset", "safety"], "--preset is given more than once"),
            // An empty path reads as the working directory, and a trailing slash names a directory.
            (["eval", input.path, "--html", ""], "--html needs a file name"),
            // `-` is a standard stream elsewhere; as a report's path it would be a file named "-".
            (["eval", input.path, "--html", "-"], "--html needs a file name; - (standard output) is not one here"),
            (["stats", input.path, "--html", "-"], "--html needs a file name; - (standard output) is not one here"),
            (["stats", input.path, directory.path + "/./in.jsonl"], "are one file; its records would be counted twice"),
            (["eval", input.path, "--predictions", directory.path + "/none.jsonl"], "No --predictions file at"),
            (["eval", input.path, "--label-key", "text"], "'text' is the record's text"),
            (["eval", input.path, "--label-key", ""], "an empty name is none"),
            (["tag", "--output", directory.path + "/missing/", "hello"], "is a directory; give a file name"),
            // Instructions that fill the context window alone would fail every record alike.
            (["tag", "--instructions", String(repeating: "Be concise. ", count: 3_000), "hello"], "and the model's context window holds"),
            (["eval", input.path, "--instructions", String(repeating: "Be concise. ", count: 3_000)], "and the model's context window holds"),
            // fm info generates nothing, so it has no --guardrails (nor lists one in its help).
            (["info", "--guardrails", "off"], "Unknown option '--guardrails'"),
        ]
        for (arguments, message) in cases {
            let result = try Self.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        // An empty key is no key: every record would fail alike.
        let emptyKey = try Self.run(["tag", "--endpoint", "http://127.0.0.1:9", "--api-key-env", "FM_TEST_EMPTY_KEY", "hello"],
                                    environment: ["FM_TEST_EMPTY_KEY": ""])
        #expect(emptyKey.status == 64 && emptyKey.stderr.contains("FM_TEST_EMPTY_KEY (--api-key-env) is empty"), "\(emptyKey.stderr)")
        // An argument that is not UTF-8 (a Swift String cannot hold one, so the shell writes its bytes) is refused
        // as such, not read with U+FFFD in place of its bytes.
        for arguments in [#"tag "$(printf 'caf\351 au lait')""#, #"stats "$(printf '/tmp/caf\351.jsonl')""#] {
            let shell = try Self.run(["-c", #"exec "$0" "# + arguments, TagCommandTests.fm.path], executable: URL(fileURLWithPath: "/bin/sh"))
            #expect(shell.status == 64 && shell.stderr.contains("Argument 2 (") && shell.stderr.contains("is not UTF-8"), "\(arguments): \(shell.stderr)")
        }
        // Standard input read from the output file is the input too: a job stopped early would leave it cut. A
        // terminal's or /dev/null's device is no file to protect.
        let before = try Data(contentsOf: input)
        let fromOutput = try Self.run(["-c", #"exec "$0" tag --output "$1" < "$1""#, TagCommandTests.fm.path, input.path],
                                      executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(fromOutput.status == 64 && fromOutput.stderr.contains("is the standard input"), "\(fromOutput.stderr)")
        #expect(try Data(contentsOf: input) == before)
        // Standard output appended to the input would be read back as more records, without end.
        for arguments in [#"tag --file "$1" >> "$1""#, #"tag < "$1" >> "$1""#] {
            let loop = try Self.run(["-c", #"exec "$0" "# + arguments, TagCommandTests.fm.path, input.path],
                                    executable: URL(fileURLWithPath: "/bin/sh"))
            #expect(loop.status == 64 && loop.stderr.contains("Standard output is sent to the"), "\(arguments): \(loop.stderr)")
            #expect(try Data(contentsOf: input) == before)
        }
        let fromNothing = try Self.run(["-c", #"exec "$0" tag --output /dev/null < /dev/null"#, TagCommandTests.fm.path],
                                       executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(!fromNothing.stderr.contains("is the standard input"), "\(fromNothing.stderr)")
        // The same for the statistics page: `fm stats --html x < x` (or with `-`) would replace its own input.
        for arguments in [#"stats --html "$1" < "$1""#, #"stats - --html "$1" < "$1""#] {
            let overwrite = try Self.run(["-c", #"exec "$0" "# + arguments, TagCommandTests.fm.path, input.path],
                                         executable: URL(fileURLWithPath: "/bin/sh"))
            #expect(overwrite.status == 64 && overwrite.stderr.contains("--html \(input.path) is the standard input"), "\(arguments): \(overwrite.stderr)")
            #expect(try Data(contentsOf: input) == before)
        }
    }

    @Test func limitedEvaluationKeepsTheWholeFilesLabelSet() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("gold.jsonl")
        try Data("""
            {"id":"1","text":"win a prize now","label":"spam"}
            {"id":"2","text":"see you at lunch","label":"ham"}
            {"id":"3","text":"call me back","label":"unsure"}

            """.utf8).write(to: input)
        let result = try Self.run(["eval", input.path, "--limit", "1", "--print-schema"])
        #expect(result.status == 0, "\(result.stderr)")
        let schema = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let label = (schema?["properties"] as? [String: Any])?["label"] as? [String: Any]
        #expect((label?["enum"] as? [String]).map(Set.init) == ["ham", "spam", "unsure"], "\(result.stdout)")
    }

    /// An evaluation with `--votes` runs on the real model, where neighbours that agree decide each answer, and it
    /// says when the examples cannot tell their labels apart.
    @Test func evalWithVotesRunsAndSaysWhenTheyCannotHelp() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let separable = directory.appendingPathComponent("separable.jsonl")
        try Data("""
            {"text":"WIN a free prize, call now to claim","label":"spam"}
            {"text":"Claim your free prize now, call today","label":"spam"}
            {"text":"Free entry to win a prize, text WIN now","label":"spam"}
            {"text":"Running late, see you at the station","label":"ham"}
            {"text":"See you at the station after work","label":"ham"}
            {"text":"Sorry, running late again, see you soon","label":"ham"}

            """.utf8).write(to: separable)
        let voted = try Self.run(["eval", separable.path, "--examples", separable.path, "--votes", "2", "--model", "tiny", "--no-cache", "--json"])
        #expect(voted.status == 0, "\(voted.stderr)")
        #expect(voted.stdout.contains(#""count":6"#), "\(voted.stdout)")
        // Each text's two neighbours share its label, and at the measured weight of one half unanimous votes
        // decide a two-way choice: every answer is right, whatever the model prefers.
        #expect(voted.stdout.contains(#""accuracy":1"#), "\(voted.stdout)")
        #expect(!voted.stderr.contains("--votes has no effect"), "\(voted.stderr)")
        // Labels that follow no word: every example's neighbours vote for the other label.
        let mixed = directory.appendingPathComponent("mixed.jsonl")
        try Data("""
            {"text":"free prize now","label":"spam"}
            {"text":"free prize today","label":"ham"}
            {"text":"see you at the station","label":"spam"}
            {"text":"see you at the station soon","label":"ham"}

            """.utf8).write(to: mixed)
        let useless = try Self.run(["eval", mixed.path, "--examples", mixed.path, "--votes", "1", "--model", "tiny", "--no-cache"])
        #expect(useless.status == 0, "\(useless.stderr)")
        #expect(useless.stderr.contains("--votes has no effect"), "\(useless.stderr)")
        // A schema with no choice has nothing to vote on: refused, rather than run with the examples unused.
        let free = directory.appendingPathComponent("free.json")
        try Data(#"{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}"#.utf8).write(to: free)
        let nothing = try Self.run(["tag", "--schema", free.path, "--examples", separable.path, "--votes", "2", "--model", "tiny", "--no-cache", "hello"])
        #expect(nothing.status == 64 && nothing.stderr.contains("--votes moves the answers of an object's enumeration and Bool fields"), "\(nothing.stderr)")
    }

    /// A labelled file or a results file given as a pipe (`fm eval <(grep … gold.jsonl)`, a named pipe) is read like
    /// a plain file; a directory fails with the reason and a nonzero status, not a crash.
    @Test func inputFilesMayBePipes() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let gold = directory.appendingPathComponent("gold.jsonl")
        try Data("""
            {"id":"1","text":"win a prize now","label":"spam"}
            {"id":"2","text":"see you at lunch","label":"ham"}

            """.utf8).write(to: gold)
        let pipe = directory.appendingPathComponent("gold.pipe")
        try #require(mkfifo(pipe.path, 0o600) == 0)
        // The writer blocks in open(2) until fm opens the pipe for reading.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", #"cat "$0" > "$1""#, gold.path, pipe.path]
        try writer.run()
        let schema = try Self.run(["eval", pipe.path, "--print-schema"])
        // An fm that never opened the pipe would leave the writer blocked: end it rather than wait forever.
        if writer.isRunning, schema.status != 0 { writer.terminate() }
        writer.waitUntilExit()
        #expect(schema.status == 0, "\(schema.stderr)")
        #expect(schema.stdout.contains(#""enum":["ham","spam"]"#), "\(schema.stdout)")

        let folder = try Self.run(["eval", directory.path, "--print-schema"])
        #expect(folder.status == 1, "\(folder.stderr)")
        #expect(folder.stderr.contains("Cannot read \(directory.path): Is a directory"), "\(folder.stderr)")
    }

    /// `fm stats` counts what it reads: lines that are not `fm tag` output are reported, and a file of nothing
    /// else is an error, not a report of zero records.
    @Test func statsSaysWhichLinesAreNotTagOutput() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mixed = directory.appendingPathComponent("mixed.jsonl")
        try Data("""
            {"id":"1","result":{"topics":["picnic"]}}
            Today we had a lovely picnic.

            {"id":"2","error":{"code":"empty-text","message":"Line 2 has no text."}}

            """.utf8).write(to: mixed)
        let partly = try Self.run(["stats", mixed.path])
        #expect(partly.status == 0, "\(partly.stderr)")
        #expect(partly.stdout.contains("records: 2   errors: 1"), "\(partly.stdout)")
        #expect(partly.stderr.contains("warning: 1 line is not fm tag output"), "\(partly.stderr)")
        // A line that is not UTF-8 (Latin-1's "é" in a tag) is said and left out, not counted with U+FFFD in it.
        var latin1 = try Data(contentsOf: mixed)
        latin1 += Data(#"{"id":"3","result":{"topics":["caf"#.utf8) + Data([0xE9]) + Data(#""]}}"#.utf8 + [0x0A])
        try latin1.write(to: mixed)
        let mangled = try Self.run(["stats", mixed.path])
        #expect(mangled.status == 0 && mangled.stdout.contains("records: 2   errors: 1"), "\(mangled.stdout)")
        #expect(mangled.stderr.contains("warning: 1 line is not UTF-8, so not counted."), "\(mangled.stderr)")

        let texts = directory.appendingPathComponent("texts.txt")
        try Data("one text\nanother text\n".utf8).write(to: texts)
        let none = try Self.run(["stats", texts.path])
        #expect(none.status == 1, "\(none.stdout)")
        #expect(none.stderr.contains("No records: 2 lines are not fm tag output"), "\(none.stderr)")

        // fm tag's input is JSON too, but not its output.
        let input = directory.appendingPathComponent("input.jsonl")
        try Data(#"{"id":"1","text":"A picnic."}"#.utf8 + [0x0A]).write(to: input)
        let inputStats = try Self.run(["stats", input.path])
        #expect(inputStats.status == 1 && inputStats.stderr.contains("No records: 1 line is not fm tag output"), "\(inputStats.stderr)")

        // Lines ending in CRLF are lines all the same.
        let crlf = directory.appendingPathComponent("crlf.jsonl")
        try Data(#"{"id":"1","result":{"topics":["picnic"]}}\#r\#n{"id":"2","result":{"topics":["beach"]}}\#r\#n"#.utf8).write(to: crlf)
        let crlfStats = try Self.run(["stats", crlf.path])
        #expect(crlfStats.status == 0 && crlfStats.stdout.contains("records: 2   errors: 0"), "\(crlfStats.stdout)\(crlfStats.stderr)")

        // - is standard input, beside files too; it can be read once.
        let piped = try Self.run(["stats", crlf.path, "-"], input: #"{"id":"3","result":{"topics":["picnic"]}}"# + "\n")
        #expect(piped.status == 0 && piped.stdout.contains("records: 3   errors: 0"), "\(piped.stdout)\(piped.stderr)")
        let twice = try Self.run(["stats", "-", "-"], input: "")
        #expect(twice.status == 64 && twice.stderr.contains("Standard input (-) can be read once."), "\(twice.stderr)")

        // Nothing at all is no report either.
        let nothing = try Self.run(["stats"], input: "")
        #expect(nothing.status == 1 && nothing.stderr.contains("No records: the input has no lines of fm tag output"), "\(nothing.stderr)")
        // A pipe is read without a word; a terminal is told what to type (below).
        #expect(!nothing.stderr.contains("from the terminal"), "\(nothing.stderr)")
    }

    /// A command that reads standard input from a terminal says so, rather than waiting without a word. The
    /// terminal is a real one: `script` (util-linux) runs fm on a pseudo-terminal and types our input into it.
    @Test func aTerminalIsToldWhatToType() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", #"exec "$FM_UNDER_TEST" stats"#, "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging(["FM_UNDER_TEST": TagCommandTests.fm.path]) { $1 }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // A record, then Ctrl-D (end of input on a terminal).
        try input.fileHandleForWriting.write(contentsOf: Data(#"{"id":"1","result":{"topics":["picnic"]}}"#.utf8 + [0x0A, 0x04]))
        // A command that does not take Ctrl-D as the end would wait for ever: it fails the test instead.
        let deadline = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: deadline)
        defer { deadline.cancel() }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(printed)")
        #expect(printed.contains("Reading fm tag output from the terminal; end with Ctrl-D."), "\(printed)")
        #expect(printed.contains("records: 1   errors: 0"), "\(printed)")
    }

    /// A file whose every labels list is empty has no label to choose from: that is said before any work, not
    /// left to fail on each text as a schema with an enum of no values.
    @Test func labelListsThatAreAllEmptyAreNamed() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty.jsonl")
        try Data(#"{"text":"a picnic","labels":[]}\#n{"text":"a beach","labels":[]}\#n"#.utf8).write(to: empty)
        let result = try Self.run(["eval", empty.path, "--print-schema"])
        #expect(result.status == 1 && result.stderr.contains("Every gold list in \(empty.path) is empty"), "\(result.stderr)")
        // Recorded predictions are scored as they are: no label needs choosing.
        let predictions = directory.appendingPathComponent("predictions.jsonl")
        try Data(#"{"id":"1","result":{"labels":["beach"]}}\#n{"id":"2","result":{"labels":["beach"]}}\#n"#.utf8).write(to: predictions)
        let scored = try Self.run(["eval", empty.path, "--predictions", predictions.path])
        #expect(!scored.stderr.contains("no label to choose from"), "\(scored.stderr)")
        let topics = directory.appendingPathComponent("topics.jsonl")
        try Data(#"{"text":"a picnic","topics":[]}\#n"#.utf8).write(to: topics)
        let keyed = try Self.run(["eval", topics.path, "--print-schema", "--label-key", "topics"])
        #expect(keyed.status == 1 && keyed.stderr.contains("Every 'topics' list in \(topics.path) is empty"), "\(keyed.stderr)")
        // One label among them is enough for a schema.
        try Data(#"{"text":"a picnic","labels":[]}\#n{"text":"a beach","labels":["beach"]}\#n"#.utf8).write(to: empty)
        let one = try Self.run(["eval", empty.path, "--print-schema"])
        #expect(one.status == 0 && one.stdout.contains(#""enum":["beach"]"#), "\(one.stdout)\(one.stderr)")
    }

    /// A run in which every text failed (each is blank) scores nothing: exit 1 with the reason, not a report of
    /// 0 % that a script would record as the model's quality. A server that is down stops the run at once.
    @Test func anEvaluationWhoseEveryTextFailedIsAnError() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let blank = directory.appendingPathComponent("blank.jsonl")
        try Data(#"{"id":"1","text":"","label":"spam"}\#n{"id":"2","text":" ","label":"ham"}\#n"#.utf8).write(to: blank)
        let result = try Self.run(["eval", blank.path, "--no-cache"])
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("Every one of the 2 texts failed, so there is nothing to score"), "\(result.stderr)")
        #expect(!result.stdout.contains("accuracy"), "\(result.stdout)")
        let down = try Self.run(["eval", try Self.spamGold(in: directory).path, "--endpoint", "http://127.0.0.1:9", "--no-cache"])
        #expect(down.status == 1 && down.stderr.contains("could not be reached"), "\(down.stdout) \(down.stderr)")
        #expect(!down.stdout.contains("accuracy"), "\(down.stdout)")
    }

    /// Standard input that cannot be read (here a directory) ends the command with the reason, not a trap.
    @Test func unreadableStandardInputIsAnError() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for command in [["stats"], ["tag", "--no-cache"]] {
            let handle = try #require(FileHandle(forReadingAtPath: directory.path))
            defer { try? handle.close() }
            let result = try Self.run(command, standardInput: handle)
            #expect(result.status == 1 && result.stderr.contains("Cannot read standard input: Is a directory"),
                    "\(command): \(result.status) \(result.stderr)")
        }
    }

    /// What a user's schema or examples cannot do is said before the work: gold labels the chosen schema can
    /// never write, a schema file that is not UTF-8, and example lines that were left out.
    @Test func schemasAndExamplesThatDoNotFitAreNamed() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let gold = try Self.spamGold(in: directory)
        let printed = try Self.run(["eval", gold.path, "--preset", "moderation", "--print-schema"])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stderr.contains("2 of 2 examples have a gold value that the field `flag` cannot write (ham, spam)"), "\(printed.stderr)")
        let latin1 = directory.appendingPathComponent("latin1.json")
        try Data(Array(#"{"type":"object","properties":{"mood":{"type":"string","enum":["caf"#.utf8) + [0xE9]
                 + Array(#"","tea"]}},"required":["mood"]}"#.utf8)).write(to: latin1)
        let notUTF8 = try Self.run(["tag", "--schema", latin1.path, "I love tea"])
        #expect(notUTF8.status == 64, "\(notUTF8.stderr)")
        #expect(notUTF8.stderr.contains("is not UTF-8 text"), "\(notUTF8.stderr)")
        // A label in the wrong case and a line without a text are named; the example that fits is used. The
        // server is down, so the job stops before the text's line and no model runs.
        let examples = directory.appendingPathComponent("examples.jsonl")
        try Data("""
            {"text":"My card was charged twice.","label":{"topic":"billing","urgency":"high","tone":"frustrated","hasPriorAttempts":false}}
            {"text":"The app crashes.","label":{"topic":"TechnicalIssue","urgency":"high","tone":"neutral","hasPriorAttempts":false}}
            {"label":{"topic":"billing","urgency":"low","tone":"neutral","hasPriorAttempts":false}}

            """.utf8).write(to: examples)
        let tagged = try Self.run(["tag", "--preset", "support-ticket", "--examples", examples.path, "--shots", "3",
                                   "--endpoint", "http://127.0.0.1:9", "My invoice is wrong."])
        #expect(tagged.status == 1 && tagged.stderr.contains("could not be reached"), "\(tagged.stderr)")
        #expect(tagged.stderr.contains("warning: 2 of 3 lines of \(examples.path) are not used as examples"), "\(tagged.stderr)")
        #expect(tagged.stderr.contains("(line 2, 3)"), "\(tagged.stderr)")
        #expect(tagged.stderr.contains("warning: --shots 3, but \(examples.path) has 1 usable example; each text gets at most 1 (one fewer for a text that is among them)."), "\(tagged.stderr)")
    }

    /// An empty prompt, an output fm tag cannot write and a file that is not a saved chat are refused with a
    /// message.
    @Test func commandsRefuseInputsAndOutputsTheyCannotUse() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = try Self.run(["respond", "  "])
        #expect(empty.status == 64, "\(empty.stderr)")
        #expect(empty.stderr.contains("The prompt is empty"), "\(empty.stderr)")

        // An --output fm tag cannot write is refused with the reason, not Foundation's error dump.
        let missing = try Self.run(["tag", "--output", directory.appendingPathComponent("none/out.jsonl").path, "a text"])
        #expect(missing.status == 64, "\(missing.stderr)")
        #expect(missing.stderr.contains("--output: no directory"), "\(missing.stderr)")
        let folder = try Self.run(["tag", "--output", directory.path, "a text"])
        #expect(folder.status == 64, "\(folder.stderr)")
        #expect(folder.stderr.contains("--output: \(directory.path) is a directory"), "\(folder.stderr)")

        let notAChat = directory.appendingPathComponent("chat.json")
        try Data(#"{"messages":[]}"#.utf8).write(to: notAChat)
        let resumed = try Self.run(["chat", "--resume", notAChat.path])
        #expect(resumed.status == 1, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("\(notAChat.path) is not a chat saved with --save: it has no \"entries\""), "\(resumed.stderr)")
        // A list where the transcript's object belongs has no member path to name.
        try Data("[]".utf8).write(to: notAChat)
        let list = try Self.run(["chat", "--resume", notAChat.path])
        #expect(list.status == 1 && list.stderr.contains("--save: Expected to decode"), "\(list.stderr)")
    }

    /// Options that would be ignored, and outputs that would overwrite an input, are refused before any model
    /// time is spent.
    @Test func optionsThatWouldBeIgnoredOrOverwriteAnInputAreRefused() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let gold = directory.appendingPathComponent("gold.jsonl")
        try Data(#"{"id":"1","text":"win a prize now","label":"spam"}\#n"#.utf8).write(to: gold)
        let results = directory.appendingPathComponent("results.jsonl")
        try Data(#"{"id":"1","text":"win a prize now","result":{"label":"spam"}}\#n"#.utf8).write(to: results)
        let refusals: [([String], String)] = [
            (["eval", gold.path, "--html", gold.path], "--html \(gold.path) is the labelled file"),
            (["eval", gold.path, "--predictions", results.path, "--html", directory.path + "/./results.jsonl"], "is the --predictions file"),
            (["stats", results.path, "--html", results.path], "is the input file"),
            (["tag", "--examples", gold.path, "--output", gold.path, "a text"], "is the --examples file"),
            (["tag", "--endpoint", "http://127.0.0.1:9", "--model", "tiny", "a text"], "--model chooses the local model"),
            (["tag", "--votes", "2", "a text"], "--votes chooses among --examples"),
            (["tag", "--examples", gold.path, "--votes", "0", "a text"], "--votes must be between 1 and 32"),
            (["tag", "--examples", gold.path, "--votes", "2", "--endpoint", "http://127.0.0.1:9", "a text"], "--votes joins the local engine's choices"),
            (["tag", "--examples", gold.path, "--votes", "2", "--temperature", "0.7", "a text"], "--votes joins greedy choices"),
            (["eval", gold.path, "--examples", gold.path, "--votes", "2", "--runs", "3"], "--runs samples as well"),
            (["eval", gold.path, "--predictions", results.path, "--votes", "2", "--examples", gold.path], "shapes a run of the model"),
            (["respond", "--greedy", "--seed", "5", "hi"], "--seed seeds random sampling"),
            (["eval", gold.path, "--predictions", results.path, "--instructions", "Be strict."], "--instructions shapes a run"),
            (["eval", gold.path, "--predictions", results.path, "--guardrails", "off"], "--guardrails shapes a run"),
            (["tag", "--resume", "--output", "/dev/stdout", "a text"], "--output /dev/stdout is a pipe or a device"),
        ]
        for (arguments, message) in refusals {
            let run = try Self.run(arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
        // A results file saved with a byte-order mark is read like any other.
        try Data([0xEF, 0xBB, 0xBF] + Array(#"{"id":"1","text":"win a prize now","result":{"label":"spam"}}\#n"#.utf8)).write(to: results)
        let marked = try Self.run(["eval", gold.path, "--predictions", results.path, "--json"])
        #expect(marked.status == 0, "\(marked.stderr)")
        #expect(!marked.stderr.contains("failed"), "\(marked.stderr)")
        #expect(marked.stdout.contains(#""accuracy":1"#), "\(marked.stdout)")
        // Nothing was overwritten.
        #expect(try String(contentsOf: gold, encoding: .utf8).contains("win a prize now"))
        #expect(try String(contentsOf: results, encoding: .utf8).contains(#""result""#))
    }

    /// Output that cannot be written (a full disk) ends the command with a message and status 1, whether it is
    /// streamed, printed, written as JSONL or help text; output to a pipe or a device path works.
    @Test func unwritableOutputFailsAndDevicesAreOutputs() throws {
        let full = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        defer { try? full.close() }
        for arguments in [["model", "list"], ["respond", "--stream", "--max-tokens", "4", "Say hi."], ["tag", "A text."],
                          ["--help"], ["help", "tag"]] {
            let run = try Self.run(arguments, standardOutput: full)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("No space left on device"), "\(arguments): \(run.stderr)")
        }
        // `--output /dev/stdout` goes to the pipe the caller reads.
        let piped = try Self.run(["tag", "--output", "/dev/stdout", "Today we had a lovely picnic with friends at the beach."])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.contains(#""result""#), "\(piped.stdout)")
        // Into a file stdout already writes to (`{ echo header; fm tag -o /dev/stdout …; } > file`), the lines
        // follow what is there instead of truncating it.
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("out.jsonl")
        try Data("header\n".utf8).write(to: file)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        let appended = try Self.run(["tag", "--output", "/dev/stdout", "A picnic at the beach."], standardOutput: handle)
        try handle.close()
        #expect(appended.status == 0, "\(appended.stderr)")
        let written = try String(contentsOf: file, encoding: .utf8)
        #expect(written.hasPrefix("header\n{") && written.contains(#""result""#), "\(written)")

        // `--html /dev/stdout` into such a file follows the printed summary, rather than writing over the file
        // from its start.
        let tags = directory.appendingPathComponent("tags.jsonl")
        try Data(#"{"id":"1","text":"A picnic.","result":{"topics":["picnic"]}}"#.utf8 + [0x0A]).write(to: tags)
        let report = directory.appendingPathComponent("stats.txt")
        try Data("header\n".utf8).write(to: report)
        let reportHandle = try FileHandle(forWritingTo: report)
        try reportHandle.seekToEnd()
        let stats = try Self.run(["stats", tags.path, "--html", "/dev/stdout"], standardOutput: reportHandle)
        try reportHandle.close()
        #expect(stats.status == 0, "\(stats.stderr)")
        let page = try String(contentsOf: report, encoding: .utf8)
        let summary = try #require(page.range(of: "picnic"), "\(page)")
        let html = try #require(page.range(of: "<!DOCTYPE html>"), "\(page)")
        #expect(page.hasPrefix("header\n") && summary.lowerBound < html.lowerBound && page.hasSuffix("</html>\n"), "\(page)")
    }

    /// `-o /dev/stdout --resume` with stdout sent to a file resumes that file, so the file's job record decides
    /// whether the settings match, as it does for `-o file`.
    @Test func aResumeThroughStandardOutputReadsTheFilesJobRecord() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.jsonl")
        try Data(#"{"id":"a","text":"apple pie"}\#n{"id":"b","text":"banana"}\#n"#.utf8).write(to: input)
        let output = directory.appendingPathComponent("out.jsonl")
        let finished = #"{"id":"a","text":"apple pie","result":{"topics":["food"],"actions":[],"objects":[],"emotions":[]}}\#n"#
        try Data(finished.utf8).write(to: output)
        try Data("settings of another job".utf8).write(to: directory.appendingPathComponent(".out.jsonl.fm-job"))
        let handle = try FileHandle(forWritingTo: output)
        try handle.seekToEnd()
        let resumed = try Self.run(["tag", "--file", input.path, "--output", "/dev/stdout", "--resume"], standardOutput: handle)
        try handle.close()
        #expect(resumed.status == 1, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("started with other settings"), "\(resumed.stderr)")
        #expect(try String(contentsOf: output, encoding: .utf8) == finished)
    }

    /// `-o /dev/stdout --resume` writes through stdout's own open file, so what the caller writes to it next
    /// (`{ fm tag … -o /dev/stdout --resume; echo done; } 1<> out.jsonl`) follows the job's lines rather than
    /// overwriting the first of them.
    @Test func aResumeThroughStandardOutputLeavesTheCallersOffsetAfterItsLines() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.jsonl")
        try Data(#"{"id":"a","text":"apple pie"}\#n{"id":"b","text":"banana bread"}\#n"#.utf8).write(to: input)
        let output = directory.appendingPathComponent("out.jsonl")
        let finished = #"{"id":"a","text":"apple pie","result":{"topics":["food"],"actions":[],"objects":[],"emotions":[]}}"#
        try Data((finished + "\n").utf8).write(to: output)
        // Opened at its start, as the shell's `1<>` opens it.
        let handle = try FileHandle(forWritingTo: output)
        let resumed = try Self.run(["tag", "--file", input.path, "--output", "/dev/stdout", "--resume"], standardOutput: handle)
        // The job's lock went with it, although the caller still holds the file open.
        let again = try Self.run(["tag", "--file", input.path, "--output", output.path, "--resume"])
        try handle.write(contentsOf: Data("done\n".utf8))
        try handle.close()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(again.status == 0 && !again.stderr.contains("another fm tag"), "\(again.stderr)")
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 3 && lines.first == finished && lines.last == "done", "\(lines)")
        #expect(lines.count == 3 && lines[1].hasPrefix(#"{"id":"b","text":"banana bread","result":"#), "\(lines)")
    }

    /// A text that reached `--max-tokens` comes back as a whole response in Apple's API; `fm respond` and
    /// `fm chat` say that it may be cut short.
    @Test func respondAndChatSayWhenTheTokenLimitWasReached() throws {
        let respond = try Self.run(["respond", "Count from 1 to 500, separated by spaces.", "--greedy", "--max-tokens", "5"])
        #expect(respond.status == 0 && respond.stderr.contains("reached the --max-tokens limit of 5 tokens"), "\(respond)")
        let chat = try Self.run(["chat", "--no-tools", "--greedy", "--max-tokens", "5"], input: "Count from 1 to 500, separated by spaces.\n")
        #expect(chat.status == 0 && chat.stdout.contains("[the reply reached the --max-tokens limit of 5 tokens"), "\(chat)")
        let unlimited = try Self.run(["respond", "Say yes.", "--greedy", "--max-tokens", "500"])
        #expect(unlimited.status == 0 && !unlimited.stderr.contains("--max-tokens limit"), "\(unlimited)")
    }

    /// `fm chat` refuses a message that is not UTF-8 instead of sending it with U+FFFD in place of its bytes, and
    /// without tools its default instructions do not mention them.
    @Test func chatRefusesMessagesThatAreNotUTF8() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("chat.txt")
        try Data(Array("Repeat: caf".utf8) + [0xE9, 0x0D, 0x0A] + Array("/transcript\n".utf8)).write(to: input)
        let run = try Self.run(["chat", "--no-tools", "--greedy"], standardInput: try FileHandle(forReadingFrom: input))
        #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("Error: The message is not valid UTF-8. It was not sent."), "\(run.stdout)")
        #expect(run.stdout.contains("Instructions: You are a helpful assistant.\n"), "\(run.stdout)")
        #expect(!run.stdout.contains("Prompt:"), "nothing was sent: \(run.stdout)")
    }

    /// `fm chat` with no model fails at once instead of answering every message with an error and exiting 0; a
    /// chat that no longer fits the context window drops its earliest turns and answers, and `--save` keeps them.
    @Test func chatChecksTheModelAndOutgrowsItsContextWindow() throws {
        let missing = try Self.run(["chat"], input: "hello\n", environment: ["FM_MODEL_PATH": "/nonexistent/model.gguf"])
        #expect(missing.status != 0, "\(missing.stdout)")
        #expect(!missing.stdout.contains("Chatting with"), "\(missing.stdout)")

        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // About 40 turns of 150 words each: well past a 4,096-token window.
        let filler = Array(repeating: "The river runs past the old mill and the green hills.", count: 15).joined(separator: " ")
        var entries: [Transcript.Entry] = [.instructions(Transcript.Instructions(
            segments: [.text(.init(content: "You are a helpful assistant."))], toolDefinitions: []))]
        for turn in 0..<40 {
            entries.append(.prompt(Transcript.Prompt(segments: [.text(.init(content: "Turn \(turn). \(filler)"))])))
            entries.append(.response(Transcript.Response(segments: [.text(.init(content: "Noted, turn \(turn)."))])))
        }
        let saved = directory.appendingPathComponent("long.json")
        try JSONEncoder().encode(Transcript(entries: entries)).write(to: saved)
        let chat = try Self.run(["chat", "--no-tools", "--greedy", "--max-tokens", "8", "--resume", saved.path, "--save", saved.path],
                                input: "Say hi.\n")
        #expect(chat.status == 0, "\(chat.stderr)")
        #expect(chat.stdout.contains("no longer fit the context window: dropped the"), "\(chat.stdout)")
        #expect(!chat.stdout.contains("Error:"), "\(chat.stdout)")
        // The saved chat is the whole conversation: the turns the model no longer reads, then the new one.
        let kept = Array(try JSONDecoder().decode(Transcript.self, from: Data(contentsOf: saved)))
        #expect(kept.count == entries.count + 2, "\(kept.count) entries")
        #expect(zip(kept, entries).allSatisfy { $0.description == $1.description }, "the earlier turns changed")
        guard case .instructions = kept.first else { Issue.record("the instructions were dropped"); return }
        guard case .response = kept.last else { Issue.record("the new reply was not saved"); return }
        guard case .prompt(let asked) = kept[kept.count - 2] else { Issue.record("the new message was not saved"); return }
        #expect(asked.description.contains("Say hi."), "\(asked)")

        // A chat read from a pipe is a script: a message that failed shows in the exit status, after the others.
        let tooLong = String(repeating: "river ", count: 40_000)
        let failed = try Self.run(["chat", "--no-tools", "--greedy", "--max-tokens", "4"], input: "\(tooLong)\nSay hi.\n")
        #expect(failed.status == 1 && failed.stderr.contains("1 message of the chat failed"), "\(failed.status) \(failed.stderr)")
        #expect(failed.stdout.contains("does not fit the model's context window"), "\(failed.stdout.suffix(300))")
    }

    /// A reply that runs into the end of the window mid-stream, in a chat with earlier turns to drop, is ended
    /// and marked as cut before it is asked again, instead of the retry running on from the cut text.
    @Test func chatMarksAReplyCutByTheContextWindowBeforeAskingAgain() async throws {
        let model = SystemLanguageModel.default
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sentence = "The river runs past the old mill and the green hills."
        func transcript(_ sentences: Int, padding: Int = 0) -> [Transcript.Entry] {
            var entries: [Transcript.Entry] = [.instructions(Transcript.Instructions(
                segments: [.text(.init(content: "You are a helpful assistant."))], toolDefinitions: []))]
            for turn in 0..<4 {
                let filler = Array(repeating: sentence, count: sentences).joined(separator: " ")
                    + (turn == 3 ? String(repeating: " a", count: padding) : "")
                entries.append(.prompt(Transcript.Prompt(segments: [.text(.init(content: "Turn \(turn). \(filler)"))])))
                entries.append(.response(Transcript.Response(segments: [.text(.init(content: "Noted, turn \(turn)."))])))
            }
            return entries
        }
        // 80 tokens left: the message fits, and a reply counting to 300 runs out of room after a few numbers.
        let target = model.contextSize - 80
        let perSentence = try await model.tokenCount(for: transcript(11)) - model.tokenCount(for: transcript(10))
        let sentences = (target - model.contextSize / 8) / perSentence
        var padding = 0
        while try await model.tokenCount(for: transcript(sentences, padding: padding)) < target { padding += 1 }
        try #require(try await model.tokenCount(for: transcript(sentences, padding: padding)) == target)
        let saved = directory.appendingPathComponent("near.json")
        try JSONEncoder().encode(Transcript(entries: transcript(sentences, padding: padding))).write(to: saved)

        // The limit ends the retry, which has room to count on; the first reply runs out of room before it.
        let chat = try Self.run(["chat", "--no-tools", "--greedy", "--max-tokens", "200", "--resume", saved.path],
                                input: "Write the numbers from 1 to 300 separated by commas.\n", mergingStandardError: true)
        #expect(chat.status == 0 && !chat.stdout.contains("Error:"), "\(chat.stdout)")
        let parts = chat.stdout.components(separatedBy: "[the reply was cut off: the conversation no longer fit the context window; answering again without the ")
        try #require(parts.count == 2, "\(chat.stdout)")
        // The cut text, on a line of its own, and after the note the retried reply.
        let cut = parts[0].components(separatedBy: "> ").last ?? ""
        #expect(cut.hasSuffix("\n") && !cut.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(chat.stdout)")
        let retried = parts[1].drop { $0 != "\n" }.components(separatedBy: "> ").first ?? ""
        #expect(!retried.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(chat.stdout)")
    }

    /// `fm chat` says what did not fit the context window: a reply that ran out of room after a message that fit
    /// is not blamed on the message, and instructions that fill the window alone are refused at the start instead
    /// of failing every message.
    @Test func chatSaysWhatDidNotFitTheContextWindow() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let message = String(repeating: "lorem ipsum dolor sit amet ", count: 395) + " Write the numbers from 1 to 300 separated by commas.\n"
        let cut = try Self.run(["chat", "--no-tools", "--greedy"], input: message)
        #expect(cut.status == 1, "\(cut.stderr)")
        #expect(cut.stdout.contains("Error: the reply did not fit the model's context window after the message; the text above"), "\(cut.stdout.suffix(300))")
        #expect(!cut.stdout.contains("does not fit"), "\(cut.stdout.suffix(300))")

        let huge = String(repeating: "Be nice. ", count: 5000)
        let refused = try Self.run(["chat", "--no-tools", "--instructions", huge], input: "Hi\n")
        #expect(refused.status == 64 && refused.stderr.contains("--instructions take "), "\(refused.stderr.prefix(300))")
        #expect(refused.stderr.contains("and the model's context window holds"), "\(refused.stderr.prefix(300))")
        #expect(!refused.stdout.contains("Chatting with"), "\(refused.stdout.prefix(300))")
        // Saved with such instructions, the chat cannot go on: a failure, not an option to change.
        let saved = directory.appendingPathComponent("huge.json")
        try JSONEncoder().encode(Transcript(entries: [.instructions(Transcript.Instructions(
            segments: [.text(.init(content: huge))], toolDefinitions: []))])).write(to: saved)
        let resumed = try Self.run(["chat", "--no-tools", "--resume", saved.path], input: "Hi\n")
        #expect(resumed.status == 1 && resumed.stderr.contains("The instructions saved in \(saved.path) take "), "\(resumed.stderr.prefix(300))")
        #expect(!resumed.stdout.contains("Chatting with"), "\(resumed.stdout.prefix(300))")
    }

    /// A resumed chat describes its own tools to the model, not those of the chat that saved the transcript.
    @Test func resumedChatDescribesItsOwnTools() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let withTools = directory.appendingPathComponent("tools.json")
        let withoutTools = directory.appendingPathComponent("none.json")
        // An empty chat saves its instructions, with the tool definitions of its tools.
        #expect(try Self.run(["chat", "--save", withTools.path]).status == 0)
        #expect(try Self.run(["chat", "--no-tools", "--save", withoutTools.path]).status == 0)
        let logging = ["FM_LOG_PROMPTS": "1"]
        let dropped = try Self.run(["chat", "--no-tools", "--greedy", "--max-tokens", "2", "--resume", withTools.path],
                                   input: "Hi\n", environment: logging)
        #expect(dropped.stderr.contains("--- prompt") && !dropped.stderr.contains("getWeather"), "\(dropped.stderr)")
        let added = try Self.run(["chat", "--greedy", "--max-tokens", "2", "--resume", withoutTools.path], input: "Hi\n", environment: logging)
        #expect(added.stdout.contains("(tool: getWeather)"), "\(added.stdout)")
        #expect(added.stderr.contains("- getWeather: Get the current weather"), "\(added.stderr)")
    }

    /// An answer that runs into the end of the context window is printed before the error, as `--stream` prints
    /// it, instead of being lost with it.
    @Test func respondPrintsAnAnswerCutByTheContextWindow() async throws {
        let model = SystemLanguageModel.default
        func tokens(_ text: String) async throws -> Int {
            try await model.tokenCount(for: [.prompt(Transcript.Prompt(segments: [.text(.init(content: text))]))])
        }
        let sentence = "Tell me a long story about a lighthouse keeper and the sea."
        func sentences(_ count: Int) -> String { Array(repeating: sentence, count: count).joined(separator: " ") }
        let perSentence = try await tokens(sentences(11)) - tokens(sentences(10))
        // The prompt leaves the answer five tokens after the assistant's role marker (three tokens on `tiny`), then
        // four and three: a model may end a whole answer within so few (exit 0, no error), and fewer give it less
        // room, so one of them must be cut. Sentences come near the size, one-token words make it exact.
        var cut = false
        for spare in [5, 4, 3] where !cut {
            let target = model.contextSize - 3 - spare
            var prompt = sentences(target / perSentence - 2)
            while try await tokens(prompt) < target { prompt += " a" }
            try #require(try await tokens(prompt) == target)
            // Both streams into one pipe: the error has to come after the text it speaks of.
            let respond = try Self.run(["respond", "--greedy", prompt], mergingStandardError: true)
            let combined = respond.stdout
            guard respond.status == 1 else {
                #expect(respond.status == 0 && !combined.contains("Error: "), "\(combined)")
                continue
            }
            cut = true
            let parts = combined.components(separatedBy: "Error: ")
            try #require(parts.count == 2, "\(combined)")
            #expect(!parts[0].trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && parts[0].hasSuffix("\n"), "\(combined)")
            #expect(parts[1].contains("reached the end of the context window"), "\(combined)")
            #expect(parts[1].contains("The text above is what was generated before that."), "\(combined)")
        }
        #expect(cut, "no answer ran into the end of the window")
    }

    /// Lines without a gold answer are not scored silently: `fm eval` says how many and why, and a file with none
    /// fails with the reason.
    @Test func evalSaysWhichLinesItCannotScore() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("gold.jsonl")
        try Data("""
            {"id":"1","text":"win a prize now","label":"spam"}
            {"id":"2","text":"see you at lunch"}
            {"id":"3","text":"call me back","label":"ham"}
            not json at all

            """.utf8).write(to: input)
        let partial = try Self.run(["eval", input.path, "--print-schema"])
        #expect(partial.status == 0, "\(partial.stderr)")
        #expect(partial.stderr.contains("warning: 2 of 4 lines are not scored: Record 2 has no \"label\" string"), "\(partial.stderr)")
        let results = directory.appendingPathComponent("results.jsonl")
        try Data(#"{"id":"1","result":{"label":"spam"}}\#n{"id":"9","result":{"label":"ham"}}\#ngarbage\#n"#.utf8).write(to: results)
        let scored = try Self.run(["eval", input.path, "--predictions", results.path])
        #expect(scored.status == 0, "\(scored.stderr)")
        #expect(scored.stderr.contains("warning: 1 line in \(results.path) matches no scored line (ids 9)"), "\(scored.stderr)")
        // The report says what it leaves out, in its text and its JSON.
        #expect(scored.stdout.contains("lines without a gold answer, not scored: 2"), "\(scored.stdout)")
        let limited = try Self.run(["eval", input.path, "--predictions", results.path, "--limit", "1", "--json"])
        #expect(limited.stdout.contains(#""pastLimit":1"#) && limited.stdout.contains(#""unlabelled":2"#), "\(limited.stdout)")
        // Lines are counted, not ids.
        let repeated = directory.appendingPathComponent("repeated.jsonl")
        try Data((#"{"id":"1","result":{"label":"spam"}}\#n"# + String(repeating: #"{"id":"9","result":{"label":"ham"}}\#n"#, count: 3)).utf8)
            .write(to: repeated)
        let counted = try Self.run(["eval", input.path, "--predictions", repeated.path])
        #expect(counted.stderr.contains("warning: 3 lines in \(repeated.path) match no scored line (ids 9)"), "\(counted.stderr)")
        #expect(scored.stderr.contains("warning: 1 line of \(results.path) is not an fm tag output line"), "\(scored.stderr)")
        #expect(scored.stderr.contains("warning: 1 scored example has no line in \(results.path) (ids 3); counted as failed"), "\(scored.stderr)")
        #expect(scored.stdout.contains("examples: 2   failed: 1"), "\(scored.stdout)")
        // A result line that is not UTF-8 (here Latin-1's "é") is not read with U+FFFD in its bytes' place: said,
        // and its example counted as failed like any other without a readable line.
        var latin1 = Data(#"{"id":"1","result":{"label":"spam"}}\#n{"id":"3","result":{"label":"h"#.utf8)
        latin1 += Data([0xE9]) + Data(#"m"}}\#n"#.utf8)
        try latin1.write(to: results)
        let mangled = try Self.run(["eval", input.path, "--predictions", results.path])
        #expect(mangled.status == 0, "\(mangled.stderr)")
        #expect(mangled.stderr.contains("warning: 1 line of \(results.path) is not UTF-8, so not read (line 2)"), "\(mangled.stderr)")
        #expect(mangled.stdout.contains("examples: 2   failed: 1"), "\(mangled.stdout)")
        // Nor is an escaped lone surrogate read as U+FFFD: that line is not a prediction either.
        try Data(#"{"id":"1","result":{"label":"spam"}}\#n{"id":"3","result":{"label":"h\ud800m"}}\#n"#.utf8).write(to: results)
        let surrogate = try Self.run(["eval", input.path, "--predictions", results.path])
        #expect(surrogate.status == 0, "\(surrogate.stderr)")
        #expect(surrogate.stderr.contains("warning: 1 line of \(results.path) is not an fm tag output line"), "\(surrogate.stderr)")
        #expect(surrogate.stdout.contains("examples: 2   failed: 1"), "\(surrogate.stdout)")
        // The labelled file itself (or another input's output) answers no example: refused, not scored as all failed.
        let itself = try Self.run(["eval", input.path, "--predictions", input.path])
        #expect(itself.status == 1 && itself.stderr.contains("it is not fm tag output of this file's texts"), "\(itself.stderr)")
        // Two lines sharing an id (files concatenated): the n-th result goes with the n-th line, not the last.
        let twice = directory.appendingPathComponent("twice.jsonl")
        try Data("""
            {"id":"1","text":"win a prize now","label":"spam"}
            {"id":"1","text":"see you at lunch","label":"ham"}

            """.utf8).write(to: twice)
        try Data(#"{"id":"1","result":{"label":"spam"}}\#n{"id":"1","result":{"label":"ham"}}\#n"#.utf8).write(to: results)
        let paired = try Self.run(["eval", twice.path, "--predictions", results.path, "--json"])
        #expect(paired.status == 0, "\(paired.stderr)")
        #expect(paired.stdout.contains(#""accuracy":1"#), "\(paired.stdout)")
        #expect(!paired.stderr.contains("more lines"), "\(paired.stderr)")
        // A third line for the id answers no record: said, since only the first two are scored.
        try Data(#"{"id":"1","result":{"label":"spam"}}\#n{"id":"1","result":{"label":"ham"}}\#n{"id":"1","result":{"label":"ham"}}\#n"#.utf8).write(to: results)
        let surplus = try Self.run(["eval", twice.path, "--predictions", results.path, "--json"])
        #expect(surplus.status == 0 && surplus.stdout.contains(#""accuracy":1"#), "\(surplus.stderr)")
        #expect(surplus.stderr.contains("warning: 1 id has more lines in \(results.path) than scored records with that id (ids 1); the extra lines are not scored"), "\(surplus.stderr)")
        // A failed line holds its place: the first example failed, the second is paired with the second line.
        try Data(#"{"id":"1","error":{"code":"x","message":"y"}}\#n{"id":"1","result":{"label":"ham"}}\#n"#.utf8).write(to: results)
        let failed = try Self.run(["eval", twice.path, "--predictions", results.path, "--json"])
        #expect(failed.status == 0, "\(failed.stderr)")
        #expect(failed.stdout.contains(#""accuracy":0.5"#), "\(failed.stdout)")
        // Lines that carry their texts are paired by text too: in either order, and another input's line is not
        // scored (all of them: refused).
        try Data(#"{"id":"1","text":"see you at lunch","result":{"label":"ham"}}\#n{"id":"1","text":"win a prize now","result":{"label":"spam"}}\#n"#.utf8)
            .write(to: results)
        let swapped = try Self.run(["eval", twice.path, "--predictions", results.path, "--json"])
        #expect(swapped.status == 0 && swapped.stdout.contains(#""accuracy":1"#), "\(swapped.stderr) \(swapped.stdout)")
        try Data(#"{"id":"1","text":"another text","result":{"label":"spam"}}\#n{"id":"3","text":"call me back","result":{"label":"ham"}}\#n"#.utf8)
            .write(to: results)
        let other = try Self.run(["eval", input.path, "--predictions", results.path])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stderr.contains("warning: 1 scored example's line in \(results.path) carries another text (ids 1); counted as failed"), "\(other.stderr)")
        #expect(other.stdout.contains("examples: 2   failed: 1"), "\(other.stdout)")
        try Data(#"{"id":"1","text":"another text","result":{"label":"spam"}}\#n"#.utf8).write(to: results)
        let foreign = try Self.run(["eval", input.path, "--predictions", results.path])
        #expect(foreign.status == 1 && foreign.stderr.contains("it is fm tag output of another input"), "\(foreign.stderr)")
        // Error lines alone (the anchor's server down for the whole run) are no score of 0 %: refused with the reasons.
        try Data(#"{"id":"1","error":{"code":"x","message":"server down"}}\#n{"id":"1","error":{"code":"x","message":"server down"}}\#n"#.utf8)
            .write(to: results)
        let allFailed = try Self.run(["eval", twice.path, "--predictions", results.path, "--json"])
        #expect(allFailed.status == 1, "\(allFailed.stdout)")
        #expect(allFailed.stderr.contains("No scored example has a result line"), "\(allFailed.stderr)")
        #expect(allFailed.stderr.contains("so there is nothing to score: server down"), "\(allFailed.stderr)")
        // Numeric ids past a Double's exact range, differing in the last digit, pair with their own results
        // (written as numbers by another tool, or as strings by `fm tag`).
        let large = directory.appendingPathComponent("large.jsonl")
        try Data("""
            {"id":1234567890123456789,"text":"win a prize now","label":"spam"}
            {"id":1234567890123456788,"text":"see you at lunch","label":"ham"}

            """.utf8).write(to: large)
        for ids in [("1234567890123456788", "1234567890123456789"), (#""1234567890123456788""#, #""1234567890123456789""#)] {
            try Data(#"{"id":\#(ids.0),"result":{"label":"ham"}}\#n{"id":\#(ids.1),"result":{"label":"spam"}}\#n"#.utf8).write(to: results)
            let byID = try Self.run(["eval", large.path, "--predictions", results.path, "--json"])
            #expect(byID.status == 0 && !byID.stderr.contains("matches no scored line"), "\(byID.stderr)")
            #expect(byID.stdout.contains(#""accuracy":1"#), "\(ids): \(byID.stdout)")
        }
        // Integer labels past a Double's exact range are named as written on both sides, as one label or as fields.
        let numbered = directory.appendingPathComponent("numbered.jsonl")
        for (gold, predicted) in [(#""label":12345678901234567890"#, #"{"label":12345678901234567890}"#),
                                  (#""label":12345678901234567890"#, #"{"label":"12345678901234567890"}"#),
                                  (#""label":{"a":9007199254740993,"b":"x"}"#, #"{"a":9007199254740993,"b":"x"}"#)] {
            try Data(#"{"id":"1","text":"t1",\#(gold)}\#n{"id":"2","text":"t2",\#(gold.replacingOccurrences(of: "3", with: "2"))}\#n"#.utf8)
                .write(to: numbered)
            let second = predicted.replacingOccurrences(of: "3", with: "2")
            try Data(#"{"id":"1","result":\#(predicted)}\#n{"id":"2","result":\#(second)}\#n"#.utf8).write(to: results)
            let scored = try Self.run(["eval", numbered.path, "--predictions", results.path, "--json"])
            #expect(scored.status == 0 && scored.stdout.contains(#""accuracy":1"#), "\(gold): \(scored.stdout) \(scored.stderr)")
        }
        let none = directory.appendingPathComponent("none.jsonl")
        try Data("{broken\n".utf8).write(to: none)
        let empty = try Self.run(["eval", none.path, "--print-schema"])
        #expect(empty.status == 1, "\(empty.stderr)")
        #expect(empty.stderr.contains("has no labelled examples. Line 1 is not a JSON object fm can read: Expected a property name"), "\(empty.stderr)")
    }

    /// Results from another tool may list their fields in another order or name them otherwise. The list
    /// `labels` (or `tags`) and the field `label` are scored wherever they stand; another field only in their
    /// absence, and a warning names it, so a misspelt field does not pass as a wrong or right answer unseen.
    @Test func evalScoresRecordedResultsByTheirFieldsNames() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sets = directory.appendingPathComponent("sets.jsonl")
        try Data(#"{"id":"1","text":"t1","labels":["a","b"]}\#n{"id":"2","text":"t2","labels":["b"]}\#n"#.utf8).write(to: sets)
        let results = directory.appendingPathComponent("results.jsonl")
        try Data(#"{"id":"1","result":{"other":["x"],"labels":["a","b"]}}\#n{"id":"2","result":{"labels":["b"]}}\#n"#.utf8).write(to: results)
        let named = try Self.run(["eval", sets.path, "--predictions", results.path, "--json"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout.contains(#""f1":1,"#), "\(named.stdout)")
        #expect(!named.stderr.contains("warning"), "\(named.stderr)")

        try Data(#"{"id":"1","result":{"topics":["a","b"]}}\#n{"id":"2","result":{"labels":"b"}}\#n"#.utf8).write(to: results)
        let others = try Self.run(["eval", sets.path, "--predictions", results.path])
        #expect(others.status == 0, "\(others.stderr)")
        #expect(others.stderr.contains("warning: 1 result in \(results.path) has no list `labels` or `tags`; scored its first list, `topics` (ids 1)"), "\(others.stderr)")
        #expect(others.stderr.contains("warning: 1 result in \(results.path) has a `labels` that is not a list; scored as empty (ids 2)"), "\(others.stderr)")

        let single = directory.appendingPathComponent("single.jsonl")
        try Data(#"{"id":"1","text":"t1","label":"a"}\#n{"id":"2","text":"t2","label":"b"}\#n"#.utf8).write(to: single)
        try Data(#"{"id":"1","result":{"reason":"looks like b","label":"a"}}\#n{"id":"2","result":{"labl":"b"}}\#n"#.utf8).write(to: results)
        let labels = try Self.run(["eval", single.path, "--predictions", results.path, "--json"])
        #expect(labels.status == 0 && labels.stdout.contains(#""accuracy":1"#), "\(labels.stdout) \(labels.stderr)")
        #expect(labels.stderr.contains("warning: 1 result in \(results.path) has no `label`; scored its first field of one value, `labl` (ids 2)"), "\(labels.stderr)")
        try Data(#"{"id":"1","result":{"label":"a"}}\#n{"id":"2","result":{"tags":["b"]}}\#n"#.utf8).write(to: results)
        let none = try Self.run(["eval", single.path, "--predictions", results.path, "--json"])
        #expect(none.stdout.contains(#""accuracy":0.5"#), "\(none.stdout)")
        #expect(none.stderr.contains("warning: 1 result in \(results.path) has no field of one value; counted as missing answers (ids 2)"), "\(none.stderr)")
    }

    /// A rating gold (`"label": 5`) is scored as the label "5", and a record that fails to generate is scored as
    /// wrong with the reason on standard error, not as if the model had answered badly.
    @Test func evalScoresNumberGoldsAndSaysWhyRecordsFailed() throws {
        _ = DefaultModel.model
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("ratings.jsonl")
        try Data("""
            {"id":"1","text":"Loved every minute of it, would stay again.","label":5}
            {"id":"2","text":"  ","label":1}
            {"id":"3","text":"Dirty room and a rude front desk.","label":1}

            """.utf8).write(to: input)
        let schema = try Self.run(["eval", input.path, "--print-schema"])
        #expect(schema.stdout.contains(#""enum":["1","5"]"#), "\(schema.stdout)")
        let result = try Self.run(["eval", input.path, "--json", "--no-cache"])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: 1 of 3 texts failed and are scored as wrong: Record 2 has an empty text."),
                "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["count"] as? Int == 3)
        #expect(report["failures"] as? Int == 1)
    }

    @Test func evalReportsRecordedPredictions() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("gold.jsonl")
        try Data("""
            {"id":"1","text":"one","label":{"topic":"billing","urgent":"true"}}
            {"id":"2","text":"two","label":{"topic":"login","urgent":"false"}}
            {"id":"3","text":"three","label":{"topic":"bug","urgent":"false"}}

            """.utf8).write(to: input)
        let results = directory.appendingPathComponent("results.jsonl")
        try Data("""
            {"id":"1","text":"one","result":{"topic":"billing","urgent":true}}
            {"id":"2","text":"two","result":{"topic":"bug","urgent":false}}

            """.utf8).write(to: results)
        let html = directory.appendingPathComponent("report.html")
        let result = try Self.run(["eval", input.path, "--predictions", results.path, "--html", html.path])
        try #require(result.status == 0, "\(result.stderr)")
        let (facts, _) = try await Self.render(html, name: "cli-eval-predictions")
        #expect(facts.sections == ["scores", "field-0", "field-1", "misclassified"])
        #expect(facts.heatmaps.map(\.rowLabels) == [["billing", "bug", "login"], ["false", "true"]])
        #expect(facts.heatmaps.map(\.cells) == [9, 4])
        #expect(facts.values["failure-count"] == "1", "record 3 has no result")
        #expect(facts.misclassifiedRows == 2)
    }

    @Test func evalWritesAReportWithTheStabilityExperiment() async throws {
        _ = DefaultModel.model
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("sms.jsonl")
        try Data("""
            {"id":"a","text":"WINNER!! You have won a free cruise. Call 09061701461 now to claim your prize.","label":"spam"}
            {"id":"b","text":"Are we still meeting for lunch at noon tomorrow?","label":"ham"}

            """.utf8).write(to: input)
        let html = directory.appendingPathComponent("report.html")
        let result = try Self.run(["eval", input.path, "--runs", "2", "--seed", "7", "--html", html.path, "--json", "--no-cache"])
        try #require(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        try #require(lines.count == 2, "the evaluation, then the stability experiment: \(result.stdout)")
        let stability = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(stability["runs"] as? Int == 2)
        let conditions = try #require(stability["conditions"] as? [[String: Any]])
        #expect(conditions.count == 4)
        for condition in conditions {
            let distinct = try #require(condition["distinctAnswers"] as? [Int])
            #expect(distinct.count == 2)
            #expect(distinct.allSatisfy { (1...2).contains($0) }, "two runs give one or two answers: \(distinct)")
        }
        #expect(Set(conditions.compactMap { ($0["condition"] as? [String: Any])?["useCase"] as? String }) == ["contentTagging", "general"])

        let (facts, _) = try await Self.render(html, name: "cli-eval")
        #expect(facts.sections == ["scores", "field-0", "stability", "misclassified"])
        let heatmap = try #require(facts.heatmaps.first)
        #expect(heatmap.rowLabels == ["ham", "spam"], "the schema's labels are the data's")
        #expect(heatmap.cells == 4)
        #expect(heatmap.counts.reduce(0, +) + Int(facts.values["failure-count"] ?? "0")! == 2)
        #expect(facts.stabilityRows == 4)
        #expect(facts.values["example-count"] == "2")
    }

    @Test func statsWritesAReportWithTheTextOutputsTags() async throws {
        _ = DefaultModel.model
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("news.jsonl")
        try Data("""
            {"id":"1","date":"2021-03-02","text":"The city council approved a new budget for public parks and playgrounds."}
            {"id":"2","date":"2021-03-20","text":"Our football team won the championship after a dramatic penalty shootout."}
            {"id":"3","date":"2021-05-11","text":"A new study links daily walking to better sleep and lower stress."}

            """.utf8).write(to: input)
        // One list field keeps the model's work (and the test) short.
        let schema = directory.appendingPathComponent("topics.json")
        try Data(#"{"type":"object","properties":{"topics":{"type":"array","items":{"type":"string"},"maxItems":3}},"required":["topics"]}"#.utf8)
            .write(to: schema)
        let tags = directory.appendingPathComponent("tags.jsonl")
        let tagged = try Self.run(["tag", "--file", input.path, "--schema", schema.path, "--output", tags.path, "--no-cache"])
        try #require(tagged.status == 0, "\(tagged.stderr)")
        let html = directory.appendingPathComponent("stats.html")
        let stats = try Self.run(["stats", tags.path, "--html", html.path, "--top", "20"])
        try #require(stats.status == 0, "\(stats.stderr)")
        // The tags the text output lists, per line `  <count>\t<tag>`.
        let textTags = Set(stats.stdout.split(separator: "\n").compactMap { line -> String? in
            let parts = line.split(separator: "\t", maxSplits: 1)
            return parts.count == 2 && !parts[1].contains(" + ") ? String(parts[1]) : nil
        })

        let (facts, _) = try await Self.render(html, name: "cli-stats")
        #expect(facts.values["record-count"] == "3")
        for bars in facts.bars {
            #expect(Set(bars.labels).isSubset(of: textTags), "the page groups tags as the text does: \(bars.labels) vs \(textTags)")
        }
        let topics = Set(facts.bars.flatMap(\.labels))
        #expect(!topics.isEmpty)
        if let heatmap = facts.heatmaps.first {
            #expect(heatmap.cells == heatmap.rowLabels.count * heatmap.rowLabels.count)
            #expect(Set(heatmap.rowLabels).isSubset(of: textTags))
        } else {
            #expect(facts.sections == ["frequency", "trends"], "no co-occurrence only when no record has two list tags")
        }
        let records = try #require(facts.lines.first)
        #expect(records.points == 3, "March, April (none) and May 2021")
        #expect(records.xLabels.first == "2021-03")
    }
}
