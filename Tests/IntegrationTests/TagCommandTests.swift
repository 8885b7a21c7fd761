import Foundation
import FoundationModels
import Testing

/// `fm tag` end to end with the real default model: bad records, batching and resuming.
@Suite("fm tag with the real default model", .serialized, .timeLimit(.minutes(10)))
struct TagCommandTests {
    /// The `fm` binary next to the test bundle (SwiftPM builds every product before testing).
    static var fm: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("fm")
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = fm
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
        #expect(first.status == 0, "\(first.stderr)")
        let records = try Self.lines(outputURL)
        try #require(records.count == 6, "one line per input record")
        #expect(records.map { $0["id"] as? String } == ["good-1", "2", "empty", "long", "5", "good-2"])
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
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("2 of 6 records already done"), "\(resumed.stderr)")
        let after = try Self.lines(outputURL)
        #expect(after.map { $0["id"] as? String } == ["good-1", "2", "empty", "long", "5", "good-2"])
        #expect(after.first?["marker"] as? Bool == true, "the finished record was kept, not redone")
    }
}
