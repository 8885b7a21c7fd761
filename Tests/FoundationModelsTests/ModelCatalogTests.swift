import Foundation
@testable import FoundationModels
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The model catalogue's names, pins and path resolution (no downloads).
struct ModelCatalogTests {
    @Test func entriesArePinned() {
        #expect(ModelCatalog.entries.map(\.name).starts(with: ["tiny", "small", "medium"]))
        for entry in ModelCatalog.entries {
            #expect(entry.sha256.count == 64 && entry.sha256.allSatisfy(\.isHexDigit), "\(entry.name)")
            #expect(entry.byteCount > 0 && !entry.packages.isEmpty && entry.packages.allSatisfy { $0.contains("==") })
        }
        #expect(ModelCatalog.entry(named: ModelCatalog.defaultName) != nil)
    }

    /// Why a file cannot be opened is told as the system says it, and asking never blocks: a FIFO where the model
    /// belongs opens at once (and is then no model), rather than waiting for a writer.
    @Test func aFileThatCannotBeOpenedSaysWhy() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(ModelCatalog.Entry.readProblem(atPath: directory.appendingPathComponent("none.gguf").path) == "No such file or directory")
        let file = directory.appendingPathComponent("file.gguf")
        try Data("GGUF".utf8).write(to: file)
        #expect(ModelCatalog.Entry.readProblem(atPath: file.path) == nil)
        let fifo = directory.appendingPathComponent("fifo.gguf")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(ModelCatalog.Entry.readProblem(atPath: fifo.path) == nil)
    }

    @Test func namesAndPathsResolve() throws {
        #expect(try ModelCatalog.fileURL(for: "Medium") == ModelCatalog.entry(named: "medium")?.fileURL)
        #expect(try ModelCatalog.fileURL(for: "/models/x.gguf").path == "/models/x.gguf")
        // `default` (as `fm model install default` takes it) names the default model for --model and FM_MODEL too.
        #expect(try ModelCatalog.fileURL(for: "default") == ModelCatalog.defaultEntry.fileURL)
        #expect(throws: ModelCatalogError.self) { try ModelCatalog.fileURL(for: "enormous") }
        #expect(ModelCatalog.entry(at: ModelCatalog.defaultEntry.fileURL)?.name == ModelCatalog.defaultName)
    }

    @Test func abandonedDownloadFoldersAreSweptAndLiveOnesKept() throws {
        let models = FileManager.default.temporaryDirectory.appendingPathComponent("fm-sweep-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: models) }
        func folder(_ name: String, locked: Bool?) throws -> URL {
            let url = models.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            if locked != nil { #expect(FileManager.default.createFile(atPath: url.appendingPathComponent(".lock").path, contents: nil)) }
            return url
        }
        // An install that is still running holds its lock (another open file, as another process's would be).
        let live = try folder(".fm-download-live", locked: true)
        let holder = open(live.appendingPathComponent(".lock").path, O_RDONLY)
        #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)
        defer { close(holder) }
        let killed = try folder(".fm-download-killed", locked: false)
        let starting = try folder(".fm-download-starting", locked: nil)
        let old = try folder(".fm-download-old", locked: nil)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7_200)], ofItemAtPath: old.path)
        let unrelated = try folder("other", locked: false)

        ModelInstaller.sweepAbandonedDownloads(in: models)
        for (url, kept) in [(live, true), (killed, false), (starting, true), (old, false), (unrelated, true)] {
            #expect(FileManager.default.fileExists(atPath: url.path) == kept, "\(url.lastPathComponent)")
        }
    }
}
