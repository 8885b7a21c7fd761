import FMLlama
import Foundation
import FoundationModels
import Synchronization
import Testing

/// `fm tag` end to end with the real default model: bad records, batching and resuming.
@Suite("fm tag with the real default model", .serialized, .timeLimit(.minutes(10)))
struct TagCommandTests {
    /// The `fm` binary next to the test bundle (SwiftPM builds every product before testing).
    static var fm: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("fm")
    }

    static func run(_ arguments: [String], executable: URL? = nil) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = executable ?? fm
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stderr, as: UTF8.self))
    }

    static func lines(_ url: URL) throws -> [[String: Any]] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
        }
    }

    /// What `handle` gives up to and including its first line feed (perhaps more), or `nil` when none comes
    /// within `limit`; read on a thread of its own, since reading blocks.
    static func firstLine(of handle: FileHandle, within limit: Duration) async -> String? {
        let answered = Mutex(false)
        return await withCheckedContinuation { continuation in
            let answer: @Sendable (String?) -> Void = { text in
                if answered.withLock({ answered in defer { answered = true }; return !answered }) { continuation.resume(returning: text) }
            }
            Thread {
                var bytes = Data()
                while !bytes.contains(0x0A) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    bytes += chunk
                }
                answer(String(decoding: bytes, as: UTF8.self))
            }.start()
            Thread {
                Thread.sleep(forTimeInterval: Double(limit.components.seconds))
                answer(nil)
            }.start()
        }
    }

    /// Texts piped in as they are written (`tail -f log | fm tag`) are tagged as they arrive: the first line's
    /// result comes while the input is still open, one text at a time or several.
    @Test func textsFromALivePipeAreTaggedAsTheyArrive() async throws {
        _ = DefaultModel.model
        for extra in [[], ["--parallel", "4"]] {
            let process = Process()
            process.executableURL = Self.fm
            process.arguments = ["tag", "--no-cache"] + extra
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Data("Today we had a lovely picnic with friends at the beach.\n".utf8))
            let first = await Self.firstLine(of: output.fileHandleForReading, within: .seconds(300))
            #expect(first?.hasPrefix(#"{"id":"1","text":"Today we had"#) == true, "\(extra): \(first ?? "no line while the input was open")")
            guard first != nil else {
                process.terminate()
                continue
            }
            input.fileHandleForWriting.write(Data("My order arrived broken.\n".utf8))
            try input.fileHandleForWriting.close()
            let rest = await Self.firstLine(of: output.fileHandleForReading, within: .seconds(300)) ?? ""
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let ids = (first! + rest).split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
            }
            #expect(ids == ["1", "2"], "\(extra): \(first! + rest)")
        }
    }

    /// A file tagged as it is read, with its calibration sample taken in a pass of its own, gets the answers the
    /// same texts get from a pipe, which is read whole first and sampled from memory.
    @Test func aFileReadTwiceCalibratesAsTheWholeInputDoes() throws {
        _ = DefaultModel.model
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-tag-sample-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let texts = ["My invoice is wrong again.", "I cannot log in after the reset.", "The app crashes when I open settings.",
                     "Please add dark mode.", "Why was I charged twice?", "Great service, thanks!", "My password reset email never came.",
                     "The export button does nothing.", "Can you refund my last order?", "I love the new update.",
                     "Account locked after three tries.", "Sync fails on my phone.", "Where is my receipt?"]
        let input = directory.appendingPathComponent("in.txt")
        try Data((texts.joined(separator: "\n") + "\n").utf8).write(to: input)
        let fromFile = directory.appendingPathComponent("file.jsonl")
        let fromPipe = directory.appendingPathComponent("pipe.jsonl")
        let file = try Self.run(["tag", "--file", input.path, "--preset", "support-ticket", "--no-cache", "-o", fromFile.path])
        let pipe = try Self.run(["-c", #"cat "$1" | "$0" tag --preset support-ticket --no-cache -o "$2""#, Self.fm.path, input.path, fromPipe.path],
                                executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(file.status == 0 && pipe.status == 0, "\(file.stderr) \(pipe.stderr)")
        #expect(try Self.lines(fromFile).count == texts.count)
        #expect(try Data(contentsOf: fromFile) == Data(contentsOf: fromPipe))
    }

    /// `fm tag PATH` tags the path as a text, as documented, but says how to tag the file instead.
    @Test func aTextThatNamesAFileIsTaggedWithAWarning() throws {
        _ = DefaultModel.model
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-tag-path-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let texts = directory.appendingPathComponent("texts.jsonl")
        try Data(#"{"id":"1","text":"Win a free cruise now!"}\#n"#.utf8).write(to: texts)
        let output = directory.appendingPathComponent("out.jsonl")
        let run = try Self.run(["tag", "--preset", "moderation", "--no-cache", "--output", output.path, texts.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: tagging the text \"\(texts.path)\"; to tag the file's lines, use --file \(texts.path)"),
                "\(run.stderr)")
        let records = try Self.lines(output)
        #expect(records.count == 1 && records.first?["text"] as? String == texts.path, "\(records)")
        let plain = try Self.run(["tag", "--preset", "moderation", "--no-cache", "--output", output.path, "Win a free cruise now!"])
        #expect(plain.status == 0 && !plain.stderr.contains("warning: tagging the text"), "\(plain.stderr)")
    }

    /// A one-text classification is calibrated by sixteen ordinary texts; the table is stored, so the next `fm` process
    /// reads it instead of computing it again, a damaged file is computed and written again, and `--no-cache` leaves
    /// the store alone.
    @Test func aLaterProcessReadsTheCalibrationTableAnEarlierOneStored() throws {
        _ = DefaultModel.model
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("fm-calibration-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        var texts: [String] = []
        func tag(_ extra: [String] = []) throws {
            // A text no earlier run tagged, so the result cache has no answer and the request reaches the engine.
            let text = "Remember to renew the passport before the trip (\(UUID().uuidString))."
            texts.append(text)
            let run = try CommandRun.run(Self.fm, ["tag", "--preset", "note-category"] + extra + [text],
                                         environment: ["FM_CALIBRATION_CACHE": store.path])
            #expect(run.status == 0, "\(run.stderr)")
            let line = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
            #expect((line["result"] as? [String: Any])?["category"] is String, "\(line)")
        }
        func tables() throws -> [URL] {
            try FileManager.default.contentsOfDirectory(at: store, includingPropertiesForKeys: nil).filter { $0.pathExtension == "json" }
        }
        func modified(_ url: URL) throws -> Date {
            try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date)
        }
        func file(_ url: URL) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int)
        }

        try tag()
        let table = try #require(try tables().first)
        #expect(try tables().count == 1)
        let written = try file(table), contents = try Data(contentsOf: table)
        let computed = try modified(table)
        Thread.sleep(forTimeInterval: 1.1)
        // A computed table would be written again: a new file renamed over the old one. A read only marks the
        // file as used (its modification time), which keeps it from pruning.
        try tag()
        #expect(try tables() == [table])
        #expect(try file(table) == written && Data(contentsOf: table) == contents)
        let read = try modified(table)
        #expect(read > computed)
        Thread.sleep(forTimeInterval: 1.1)
        try tag(["--no-cache"])
        #expect(try file(table) == written && modified(table) == read)
        try Data("{not a table".utf8).write(to: table)
        try tag()
        #expect(try tables() == [table] && file(table) != written)
        // Computed and stored again under the same key (the bytes may differ: dictionaries are unordered).
        func key(_ data: Data) throws -> String? { (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["check"] as? String }
        let original = try #require(try key(contents))
        #expect(try key(Data(contentsOf: table)) == original, "the damaged table is computed and stored again")
        // The texts a table was computed from are not written down (here, the reference texts: none of the job's).
        let stored = String(decoding: try Data(contentsOf: table), as: UTF8.self)
        #expect(!stored.contains("Running a bit late") && !texts.contains { stored.contains($0) })
    }

    /// A calibration run that would fail the same way every time, here for a text longer than the context window,
    /// leaves that text out and the table is still stored. Only a failure that could pass another time (a runtime
    /// failure or a cancellation, `GenerationFailure.isTransient`) keeps a table out of the store.
    @Test func aTableIsStoredWhenOneOfItsTextsOverflowsTheWindow() throws {
        _ = DefaultModel.model
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-calibration-overflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("calibration")
        // Eight texts, the fewest a job calibrates by its own texts with, so the long one is in the sample.
        let long = String(repeating: "The committee reviewed the quarterly budget in great detail. ", count: 600)
        let subjects = ["the dentist on Monday", "milk and eggs", "a poem about rain", "the quarterly numbers",
                        "the car's winter tyres", "a birthday card for Ann", "the server migration"]
        let texts = subjects.map { "A note about \($0) (\(UUID().uuidString))." } + [long]
        let input = directory.appendingPathComponent("in.jsonl"), output = directory.appendingPathComponent("out.jsonl")
        try Data(texts.enumerated().map { #"{"id":"\#($0.offset)","text":"\#($0.element)"}"# }.joined(separator: "\n").utf8).write(to: input)
        let run = try CommandRun.run(Self.fm, ["tag", "--preset", "note-category", "--file", input.path, "--output", output.path],
                                     environment: ["FM_CALIBRATION_CACHE": store.path])
        // Every text has its line; the one error line makes the exit status 2.
        #expect(run.status == 2 && run.stderr.contains("fm tag: 1 record failed; its line in \(output.path) carries an \"error\""),
                "\(run.status) \(run.stderr)")
        let records = try Self.lines(output)
        try #require(records.count == 8, "\(records)")
        #expect(records.prefix(7).allSatisfy { ($0["result"] as? [String: Any])?["category"] is String }, "\(records)")
        #expect((records[7]["error"] as? [String: Any])?["code"] as? String == "context-overflow", "\(records[7])")
        let tables = try FileManager.default.contentsOfDirectory(at: store, includingPropertiesForKeys: nil).filter { $0.pathExtension == "json" }
        try #require(tables.count == 1, "\(tables)")
        // The table's run counts (label, runs, label, runs, …): every label was scored by the seven texts that fit.
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: tables[0])) as? [String: Any])
        let counts = try #require(((entry["table"] as? [String: Any])?["counts"] as? [Any])?.last as? [Any], "\(entry)")
        #expect(counts.count == 16 && stride(from: 1, to: counts.count, by: 2).allSatisfy { counts[$0] as? Int == 7 }, "\(counts)")
    }

    @Test func badRecordsGetErrorLinesAndAKilledRunResumes() throws {
        _ = DefaultModel.model
        try #require(FileManager.default.isExecutableFile(atPath: Self.fm.path), "no fm binary at \(Self.fm.path)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-tag-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let long = String(repeating: "The committee reviewed the quarterly budget in great detail. ", count: 600)
        let lines = [
            #"{"id":"good-1","text":"Today we had a lovely picnic with friends at the beach."}"#,
            #"{"id":"broken","text":"#,
            #"{"id":"empty","text":""}"#,
            "{\"id\":\"long\",\"text\":\"" + long + "\"}",
        ]
        var input = Data(lines.joined(separator: "\n").utf8)
        input.append(contentsOf: [10, 0x62, 0x61, 0x64, 0x20, 0xFF, 0xFE, 0x20, 0x75, 0x74, 0x66, 10])
        input.append(contentsOf: Array(#"{"id":"good-2","text":"My order arrived broken and nobody answers my emails."}"#.utf8) + [10])
        let inputURL = directory.appendingPathComponent("in.jsonl")
        let outputURL = directory.appendingPathComponent("out.jsonl")
        try input.write(to: inputURL)

        let first = try Self.run(["tag", "--file", inputURL.path, "--output", outputURL.path, "--parallel", "3", "--no-cache"])
        #expect(first.status == 2 && first.stderr.contains("fm tag: 4 records failed"), "\(first.status) \(first.stderr)")
        let records = try Self.lines(outputURL)
        try #require(records.count == 6, "one line per input record")
        #expect(records.map { $0["id"] as? String } == ["good-1", "broken", "empty", "long", "5", "good-2"])
        for index in [0, 5] {
            #expect(records[index]["result"] != nil && records[index]["error"] == nil, "\(records[index])")
        }
        for index in 1...4 {
            #expect(records[index]["error"] != nil && records[index]["result"] == nil, "\(records[index])")
        }
        #expect((records[3]["error"] as? [String: Any])?["code"] as? String == "context-overflow")

        // A run killed after two records, halfway through writing the third: mark the finished records so
        // redoing them would show, then resume.
        let finished = try String(contentsOf: outputURL, encoding: .utf8).split(separator: "\n").prefix(2)
        let marked = finished.map { $0.replacingOccurrences(of: #""id":"good-1""#, with: #""id":"good-1","marker":true"#) }
        try Data((marked.joined(separator: "\n") + "\n" + #"{"id":"empty","err"#).utf8).write(to: outputURL)
        let resumed = try Self.run(["tag", "--file", inputURL.path, "--output", outputURL.path, "--resume", "--no-cache"])
        // The error line kept from the first run counts with the three written now.
        #expect(resumed.status == 2 && resumed.stderr.contains("fm tag: 4 records failed"), "\(resumed.status) \(resumed.stderr)")
        #expect(resumed.stderr.contains("2 of 6 records already done"), "\(resumed.stderr)")
        let after = try Self.lines(outputURL)
        #expect(after.map { $0["id"] as? String } == ["good-1", "broken", "empty", "long", "5", "good-2"])
        #expect(after.first?["marker"] as? Bool == true, "the finished record was kept, not redone")

        // Another input with the same ids (its good-2 is another text) would have its records answered by these
        // lines: refused, and the finished output is left as it was.
        let otherURL = directory.appendingPathComponent("other.jsonl")
        try Data(#"{"id":"good-1","text":"Today we had a lovely picnic with friends at the beach."}\#n{"id":"good-2","text":"Another text."}\#n"#.utf8)
            .write(to: otherURL)
        // A partial last line as a killed run leaves it: a refused resume must not cut it off either.
        let handle = try FileHandle(forWritingTo: outputURL)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"id":"next","te"#.utf8))
        try handle.close()
        let before = try Data(contentsOf: outputURL)
        let foreign = try Self.run(["tag", "--file", otherURL.path, "--output", outputURL.path, "--resume", "--no-cache"])
        #expect(foreign.status == 1 && foreign.stderr.contains("its line for id good-2 is of another text"), "\(foreign.status) \(foreign.stderr)")
        #expect(try Data(contentsOf: outputURL) == before)

        // An input that is this one's first record alone: the output's other lines answer no record of it, and
        // would be kept beside its result.
        let fewerURL = directory.appendingPathComponent("fewer.jsonl")
        try Data((lines[0] + "\n").utf8).write(to: fewerURL)
        let fewer = try Self.run(["tag", "--file", fewerURL.path, "--output", outputURL.path, "--resume", "--no-cache"])
        #expect(fewer.status == 1 && fewer.stderr.contains("holds 1 line for id 5, and this input has no record with that id"),
                "\(fewer.status) \(fewer.stderr)")
        #expect(try Data(contentsOf: outputURL) == before)
    }

    /// `-` is stdin for --file and stdout for --output, as for other tools, not a file named `-`.
    @Test func aDashIsStandardInputAndOutput() throws {
        _ = DefaultModel.model
        defer { try? FileManager.default.removeItem(atPath: "-") }
        let tagged = try ReportCommandTests.run(["tag", "--file", "-", "-o", "-", "--no-cache"], input: "Fresh bread from the bakery.\n")
        #expect(tagged.status == 0, "\(tagged.stderr)")
        let lines = tagged.stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains(#""text":"Fresh bread from the bakery.","result":{"#) == true, "\(tagged.stdout)")
        #expect(!FileManager.default.fileExists(atPath: "-"))
        let resumed = try ReportCommandTests.run(["tag", "-o", "-", "--resume", "x"])
        #expect(resumed.status == 64 && resumed.stderr.contains("--resume needs --output (a file)"), "\(resumed.stderr)")
        // An input without texts is an empty job, not an error, but it says so.
        let empty = try ReportCommandTests.run(["tag", "--no-cache"], input: "\n  \n")
        #expect(empty.status == 0 && empty.stdout.isEmpty, "\(empty.stderr)")
        #expect(empty.stderr.contains("fm tag: standard input holds no texts; nothing to tag"), "\(empty.stderr)")
    }

    @Test func aJobKilledAtRandomPointsLosesAndDuplicatesNothing() async throws {
        _ = DefaultModel.model
        try #require(FileManager.default.isExecutableFile(atPath: Self.fm.path), "no fm binary at \(Self.fm.path)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Seven records: fewer than batch calibration needs, so no run spends its time calibrating by a sample.
        let subjects = ["bread", "the harbour", "a chess match", "tax forms", "a lost cat", "the orchestra", "winter tyres"]
        let ids = subjects.indices.map { "r\($0)" }
        let input = zip(ids, subjects).map { #"{"id":"\#($0)","text":"A short note about \#($1)."}"# }.joined(separator: "\n") + "\n"
        let inputURL = directory.appendingPathComponent("in.jsonl")
        let outputURL = directory.appendingPathComponent("out.jsonl")
        try Data(input.utf8).write(to: inputURL)

        // SIGKILL at random moments — while the model loads, then each time shortly after a run has written
        // another line (so sometimes in the middle of the next one) — and resume each time; then let the last
        // run finish. Waiting for output, not for a fixed time, makes every run progress on a slow machine too.
        // The wait after a line stays under one record's time on the tiny model (about 175 ms in a debug build),
        // so a run rarely writes more than one more line and most kills land before the job ends.
        // Seeded, so a failing kill schedule can be replayed.
        var random = SeededGenerator(seed: 20_261_123)
        func writtenLines() -> Int { ((try? Data(contentsOf: outputURL)) ?? Data()).filter { $0 == 10 }.count }
        var midJobKills = 0
        for attempt in 0...6 {
            let process = Process()
            process.executableURL = Self.fm
            // A classification preset: on the tiny model, content tags take seconds per text in a debug build.
            process.arguments = ["tag", "--file", inputURL.path, "--output", outputURL.path, "--resume", "--no-cache",
                                 "--preset", "moderation"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let before = writtenLines()
            try process.run()
            guard attempt < 6 else {
                process.waitUntilExit()
                #expect(process.terminationStatus == 0)
                break
            }
            if attempt > 0 {
                let deadline = Date().addingTimeInterval(300)
                while process.isRunning, writtenLines() == before, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: attempt == 0 ? 100...1_000 : 0...150, using: &random)))
            guard process.isRunning else {
                process.waitUntilExit()
                break
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let written = writtenLines()
            if written > 0, written < ids.count { midJobKills += 1 }
        }
        #expect(midJobKills >= 3, "the schedule interrupted the job after it had written part of its output \(midJobKills) times")
        let records = try Self.lines(outputURL)
        #expect(records.map { $0["id"] as? String } == ids, "every record exactly once, in input order")
        for record in records {
            #expect(record["result"] != nil && record["error"] == nil, "\(record)")
        }
    }

    /// `count` records with ids `r0`, `r1`, … and short texts, written to `in.jsonl` in `directory`, and the path
    /// `out.jsonl` beside it.
    static func numberedNotes(_ count: Int, in directory: URL) throws -> (ids: [String], input: URL, output: URL) {
        let ids = (0..<count).map { "r\($0)" }
        let input = directory.appendingPathComponent("in.jsonl")
        let lines = ids.map { #"{"id":"\#($0)","text":"A short note about item \#($0)."}"# }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        return (ids, input, directory.appendingPathComponent("out.jsonl"))
    }

    /// With `--parallel`, a line is written as soon as it and every line before it are done, not when a group
    /// of records is: 24 records fit in the 8 × 4 records the job once wrote at a time, all at its end.
    @Test func aParallelJobWritesEachLineWhenItsTurnComes() async throws {
        _ = DefaultModel.model
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (ids, inputURL, outputURL) = try Self.numberedNotes(24, in: directory)
        func writtenLines() -> Int { ((try? Data(contentsOf: outputURL)) ?? Data()).filter { $0 == 10 }.count }
        let process = Process()
        process.executableURL = Self.fm
        process.arguments = ["tag", "--file", inputURL.path, "--output", outputURL.path, "--no-cache", "--preset", "moderation",
                             "--parallel", "4"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(300)
        while process.isRunning, writtenLines() == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let first = writtenLines()
        #expect(first > 0 && first < ids.count, "\(first) lines at the first write")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try Self.lines(outputURL).map { $0["id"] as? String } == ids, "every record once, in input order")
    }

    /// One output, one job, one set of settings: a second job given a running job's output stops instead of
    /// writing over its lines; while the output is partial (the job was killed), a resume with other settings is
    /// refused and leaves it as it was; the same settings finish it, and the job record beside it goes.
    @Test func anOutputIsWrittenByOneJobWithOneSetOfSettings() async throws {
        _ = DefaultModel.model
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-job-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Enough records that the first job is still running when the second starts, on a fast machine too.
        let (ids, inputURL, outputURL) = try Self.numberedNotes(40, in: directory)
        let jobRecord = directory.appendingPathComponent(".out.jsonl.fm-job")
        func arguments(_ extra: [String]) -> [String] {
            ["tag", "--file", inputURL.path, "--output", outputURL.path, "--no-cache", "--preset", "moderation"] + extra
        }
        func writtenLines() -> Int { ((try? Data(contentsOf: outputURL)) ?? Data()).filter { $0 == 10 }.count }

        let first = Process()
        first.executableURL = Self.fm
        first.arguments = arguments([])
        first.standardOutput = FileHandle.nullDevice
        first.standardError = FileHandle.nullDevice
        try first.run()
        let deadline = Date().addingTimeInterval(300)
        while first.isRunning, writtenLines() == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try #require(first.isRunning, "the first job ended before a second could start")
        let second = try Self.run(arguments([]))
        #expect(second.status == 1 && second.stderr.contains("another fm tag is writing it"), "\(second.status) \(second.stderr)")
        // A resume with other settings is told the same: the lock comes before the lines are read and compared.
        let otherSettings = ["tag", "--file", inputURL.path, "--output", outputURL.path, "--no-cache", "--preset", "note-category", "--resume"]
        try #require(first.isRunning, "the first job ended before a resume could start")
        let resumed = try Self.run(otherSettings)
        #expect(resumed.status == 1 && resumed.stderr.contains("another fm tag is writing it"), "\(resumed.status) \(resumed.stderr)")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let written = writtenLines()
        #expect(written >= 1 && written < ids.count, "\(written) lines")
        #expect(FileManager.default.fileExists(atPath: jobRecord.path), "a partial output keeps its job record")

        let before = try Data(contentsOf: outputURL)
        let other = try Self.run(arguments(["--resume", "--instructions", "Answer briefly."]))
        #expect(other.status == 1 && other.stderr.contains("started with other settings"), "\(other.status) \(other.stderr)")
        #expect(try Data(contentsOf: outputURL) == before)
        // The output named through a link is the same output, with the same job record.
        let link = directory.appendingPathComponent("sub/link.jsonl")
        try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "../out.jsonl")
        let throughLink = try Self.run(["tag", "--file", inputURL.path, "--output", link.path, "--no-cache", "--preset", "moderation",
                                        "--resume", "--instructions", "Answer briefly."])
        #expect(throughLink.status == 1 && throughLink.stderr.contains("started with other settings"), "\(throughLink.status) \(throughLink.stderr)")
        #expect(try Data(contentsOf: outputURL) == before)

        let same = try Self.run(arguments(["--resume"]))
        #expect(same.status == 0, "\(same.stderr)")
        #expect(try Self.lines(outputURL).map { $0["id"] as? String } == ids)
        #expect(!FileManager.default.fileExists(atPath: jobRecord.path), "a whole output has no job record")

        // Finished, it has no job record; its input grown and resumed with another schema, it is still refused.
        try Data((String(decoding: try Data(contentsOf: inputURL), as: UTF8.self) + #"{"id":"r40","text":"One more note."}"# + "\n").utf8)
            .write(to: inputURL)
        let whole = try Data(contentsOf: outputURL)
        let otherSchema = try Self.run(["tag", "--file", inputURL.path, "--output", outputURL.path, "--no-cache", "--preset", "email", "--resume"])
        #expect(otherSchema.status == 1 && otherSchema.stderr.contains("written with another schema"), "\(otherSchema.status) \(otherSchema.stderr)")
        #expect(try Data(contentsOf: outputURL) == whole)

        // A file of something else is not cut to nothing by a resume.
        let notes = directory.appendingPathComponent("notes.txt")
        try Data("first note to keep\nsecond note\n".utf8).write(to: notes)
        let wiped = try Self.run(["tag", "--file", inputURL.path, "--output", notes.path, "--no-cache", "--resume"])
        #expect(wiped.status == 1 && wiped.stderr.contains("line 1 is not a line fm tag writes"), "\(wiped.status) \(wiped.stderr)")
        #expect(try String(contentsOf: notes, encoding: .utf8) == "first note to keep\nsecond note\n")
    }

    /// A file with a GGUF header that llama.cpp cannot load stops the job with one message before any line is
    /// written, instead of an error line for every record that a resume would keep as finished.
    @Test func aModelThatCannotLoadStopsTheJobOnce() throws {
        let model = DefaultModel.model
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cut = try DefaultModel.cutCopy(in: directory)
        let inputURL = directory.appendingPathComponent("in.txt")
        try Data("first text\nsecond text\n".utf8).write(to: inputURL)
        let outputURL = directory.appendingPathComponent("out.jsonl")
        let run = try Self.run(["tag", "--file", inputURL.path, "--output", outputURL.path, "--no-cache", "--model", cut.path])
        #expect(run.status == 1 && run.stderr.contains("could not be loaded") && run.stderr.contains("The job stopped at record 1"),
                "\(run.status) \(run.stderr)")
        #expect(((try? Data(contentsOf: outputURL)) ?? Data()).isEmpty, "no line was written")

        // A first line that is an input error gets its line before the model is needed; the job record (naming
        // the cut file) goes, so a resume with the whole model is not refused as other settings.
        try Data("{\"id\":\"blank\",\"text\":\"\"}\nfirst text\n".utf8).write(to: inputURL)
        let stopped = try Self.run(["tag", "--file", inputURL.path, "--output", outputURL.path, "--no-cache", "--model", cut.path])
        #expect(stopped.status == 1 && stopped.stderr.contains("The job stopped at record 2"), "\(stopped.status) \(stopped.stderr)")
        #expect(try Self.lines(outputURL).map { $0["id"] as? String } == ["blank"])
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(".out.jsonl.fm-job").path))
        let resumed = try Self.run(["tag", "--file", inputURL.path, "--output", outputURL.path, "--no-cache", "--resume",
                                    "--model", model.modelURL.path])
        #expect(resumed.status == 2, "the blank record's error line is kept: \(resumed.stderr)")
        #expect(try Self.lines(outputURL).map { $0["id"] as? String } == ["blank", "2"])

        // fm eval stops with one message too.
        let labelled = directory.appendingPathComponent("gold.jsonl")
        try Data("{\"text\":\"first text\",\"label\":\"a\"}\n{\"text\":\"second text\",\"label\":\"b\"}\n".utf8).write(to: labelled)
        let eval = try Self.run(["eval", labelled.path, "--no-cache", "--model", cut.path])
        #expect(eval.status == 1 && eval.stderr.contains("could not be loaded"), "\(eval.status) \(eval.stderr)")
    }

    /// Text saved as UTF-16 (Windows Notepad's "Unicode") is refused with what to do, instead of a first line of
    /// invalid UTF-8 and every later one read as letters with NULs between them.
    @Test func utf16InputIsRefusedWithWhatToDo() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-utf16-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appendingPathComponent("in.txt")
        try (Data([0xFF, 0xFE]) + "first text\nsecond text\n".data(using: .utf16LittleEndian)!).write(to: inputURL)
        let run = try Self.run(["tag", "--file", inputURL.path, "--no-cache"])
        #expect(run.status == 1 && run.stderr.contains("it is UTF-16LE text; convert it to UTF-8"), "\(run.status) \(run.stderr)")
        // Without a byte-order mark (`iconv -t UTF-16LE` writes none), the NUL in every other byte tells.
        for (encoding, name) in [(String.Encoding.utf16LittleEndian, "UTF-16LE"), (.utf16BigEndian, "UTF-16BE")] {
            try "first text\nsecond text\n".data(using: encoding)!.write(to: inputURL)
            let unmarked = try Self.run(["tag", "--file", inputURL.path, "--no-cache"])
            #expect(unmarked.status == 1 && unmarked.stderr.contains("it is \(name) text"), "\(unmarked.status) \(unmarked.stderr)")
        }
    }

    /// `fm cache clear` removes a cache file that is no database (a damaged one cannot be opened to be cleared),
    /// and `fm tag` says that it is the remedy.
    @Test func cacheClearRemovesADamagedCacheFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-damaged-\(UUID().uuidString)")
        let cacheFolder = directory.appendingPathComponent("foundation-models")
        try FileManager.default.createDirectory(at: cacheFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = cacheFolder.appendingPathComponent("cache.sqlite")
        try Data(String(repeating: "not a database ", count: 512).utf8).write(to: database)
        // The model stays where it is; only the cache moves.
        let environment = ["XDG_CACHE_HOME": directory.path, "FM_MODEL_PATH": DefaultModel.model.modelURL.path]
        let tagged = try CommandRun.run(Self.fm, ["tag", "--preset", "moderation", "Win a free cruise now!"], environment: environment)
        #expect(tagged.status == 0 && tagged.stderr.contains("`fm cache clear` removes the damaged file"), "\(tagged.stderr)")
        let cleared = try CommandRun.run(Self.fm, ["cache", "clear"], environment: environment)
        #expect(cleared.status == 0 && cleared.stdout.contains("removed the damaged cache file"), "\(cleared.status) \(cleared.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database.path))
        let info = try CommandRun.run(Self.fm, ["cache", "info"], environment: environment)
        #expect(info.status == 0 && info.stdout.contains("0 results"), "\(info.stderr)")
    }

    /// A text the default guardrails block is an error line; `--guardrails off` lets a crisis-detection job classify
    /// it, as the seed's `SafetyClassification` is meant to.
    @Test func guardrailsOffClassifiesATextTheDefaultChecksBlock() throws {
        _ = DefaultModel.model
        let text = "I am going to kill myself tonight."
        func line(_ extra: [String]) throws -> [String: Any] {
            let result = try ReportCommandTests.run(["tag", "--preset", "safety", "--no-cache"] + extra + [text])
            // 2: the job finished with an error line.
            try #require(result.status == (extra.isEmpty ? 2 : 0), "\(result.status) \(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        }
        let blocked = try line([])
        #expect((blocked["error"] as? [String: Any])?["code"] as? String == "guardrail-violation", "\(blocked)")
        let classified = try line(["--guardrails", "off"])
        let level = (classified["result"] as? [String: Any])?["crisisLevel"] as? String
        #expect(["none", "ambiguous", "crisis"].contains(level), "\(classified)")
        let invalid = try ReportCommandTests.run(["tag", "--guardrails", "loose", text])
        #expect(invalid.status == 64, "\(invalid.stderr)")
    }

    @Test func twoJobsSharingOneCacheDatabaseKeepItWhole() async throws {
        let model = DefaultModel.model
        try #require(FileManager.default.isExecutableFile(atPath: Self.fm.path), "no fm binary at \(Self.fm.path)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Overlapping inputs, so both processes store some of the same keys at about the same time.
        let texts = (0..<6).map { #"{"id":"t\#($0)","text":"Notes from meeting number \#($0) about the budget."}"# }
        let inputs = [Array(texts.prefix(4)), Array(texts.suffix(4))].map { $0.joined(separator: "\n") + "\n" }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = directory.path
        environment["FM_MODEL_PATH"] = model.modelURL.path
        // One thread each, fixed: both jobs answer the texts they share, and the thread count moves the last bits
        // of attention's sums (README), so with counts that follow the load the two could store different answers.
        environment["FM_THREADS"] = "1"

        func start(_ index: Int, input: String) throws -> Process {
            let inputURL = directory.appendingPathComponent("in\(index).jsonl")
            try Data(input.utf8).write(to: inputURL)
            let process = Process()
            process.executableURL = Self.fm
            process.arguments = ["tag", "--file", inputURL.path, "--output", directory.appendingPathComponent("out\(index).jsonl").path,
                                 "--preset", "moderation"]
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: {
                let url = directory.appendingPathComponent("err\(index).txt")
                _ = FileManager.default.createFile(atPath: url.path, contents: nil)
                return url
            }())
            try process.run()
            return process
        }
        func errors(_ index: Int) -> String {
            (try? String(contentsOf: directory.appendingPathComponent("err\(index).txt"), encoding: .utf8)) ?? ""
        }
        let jobs = try [start(0, input: inputs[0]), start(1, input: inputs[1])]
        for (index, job) in jobs.enumerated() {
            job.waitUntilExit()
            #expect(job.terminationStatus == 0)
            // A job that could not open the cache says so and goes on without it; that is what this test is about.
            #expect(!errors(index).contains("cache is unavailable"), "\(errors(index))")
        }
        let database = directory.appendingPathComponent("foundation-models/cache.sqlite")
        #expect(FileManager.default.fileExists(atPath: database.path))
        // An independent reader (Python's sqlite3) finds the file whole and every result stored once.
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(db.execute("pragma integrity_check").fetchone()[0], db.execute("select count(*) from result").fetchone()[0])
            """, database.path]
        let output = Pipe()
        check.standardOutput = output
        try check.run()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(report.trimmingCharacters(in: .whitespacesAndNewlines) == "ok 6", "integrity check and rows: \(report)")
        // A third job over all texts reads what both stored: the same results, line for line.
        let third = try start(2, input: texts.joined(separator: "\n") + "\n")
        third.waitUntilExit()
        #expect(third.terminationStatus == 0)
        let first = try Self.lines(directory.appendingPathComponent("out0.jsonl"))
        let second = try Self.lines(directory.appendingPathComponent("out1.jsonl"))
        let all = try Self.lines(directory.appendingPathComponent("out2.jsonl"))
        func results(_ lines: [[String: Any]]) -> [String] {
            lines.map { line in
                (try? JSONSerialization.data(withJSONObject: line["result"] ?? NSNull(), options: [.sortedKeys]))
                    .map { String(decoding: $0, as: UTF8.self) } ?? "?"
            }
        }
        #expect(results(all) == results(first).prefix(2) + results(second))
    }
}
