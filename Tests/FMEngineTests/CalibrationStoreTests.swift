@testable import FMEngine
import FMDecoding
import Foundation
import Testing

/// The disk store of calibration tables: exact round trips, keys that hold in every process, damaged files.
struct CalibrationStoreTests {
    private static func temporaryStore() -> CalibrationStore {
        CalibrationStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("calibration-\(UUID().uuidString)"))
    }

    @Test func aStoredTableReadsBackExactlyWithInfinitePriors() throws {
        let store = Self.temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.directory) }
        let site = ChoicePoints.Site(property: "label", written: Array("\"".utf8))
        let channel = ChoicePoints.Site(property: "label", written: [], channel: true)
        let a = Array("\"a\"".utf8), b = Array("\"b\"".utf8)
        var table = ChoiceCalibration()
        table.add([site: [a: [-0.1, -.infinity], b: [-2.302585092994046]], channel: [a: [0.25, -.infinity]]], averagingProbabilities: true)
        table.add([site: [a: [-0.7, -3.0]]], averagingProbabilities: true)
        table.isFromJobTexts = true
        #expect(store.table(forKey: "k") == nil)
        store.store(table, forKey: "k")
        let read = try #require(store.table(forKey: "k"))
        for (place, literal) in [(site, a), (site, b), (channel, a), (channel, b)] {
            #expect(read.prior(at: place, literal: literal) == table.prior(at: place, literal: literal))
        }
        #expect(read.prior(at: channel, literal: a)?.last == -.infinity)
        #expect(read.isFromJobTexts)
        // A later run's scores average with the read table as they would with the original.
        var original = table, reread = read
        original.add([site: [b: [-1.0]]], averagingProbabilities: true)
        reread.add([site: [b: [-1.0]]], averagingProbabilities: true)
        #expect(reread.prior(at: site, literal: b) == original.prior(at: site, literal: b))
    }

    @Test func aFileOfAnotherKeyOrDamagedIsMissing() throws {
        let store = Self.temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.directory) }
        store.store(ChoiceCalibration(), forKey: "one")
        // Another key whose file name collided would find a file that names the first key.
        try FileManager.default.copyItem(at: store.url(forKey: "one"), to: store.url(forKey: "two"))
        #expect(store.table(forKey: "two") == nil)
        #expect(store.table(forKey: "one") != nil)
        try Data("{\"key\":\"one\",\"table\":".utf8).write(to: store.url(forKey: "one"))
        #expect(store.table(forKey: "one") == nil)
    }

    @Test func aWriteRemovesTablesUnusedForTheMaximumAgeAndAReadKeepsOne() throws {
        let store = CalibrationStore(directory: Self.temporaryStore().directory, maximumAge: 3600)
        defer { try? FileManager.default.removeItem(at: store.directory) }
        store.store(ChoiceCalibration(), forKey: "unused")
        store.store(ChoiceCalibration(), forKey: "read")
        store.store(ChoiceCalibration(), forKey: "recent")
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        for key in ["unused", "read"] {
            try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: store.url(forKey: key).path)
        }
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-1800)], ofItemAtPath: store.url(forKey: "recent").path)
        #expect(store.table(forKey: "read") != nil)
        store.store(ChoiceCalibration(), forKey: "new")
        #expect(!FileManager.default.fileExists(atPath: store.url(forKey: "unused").path))
        for key in ["read", "recent", "new"] {
            #expect(store.table(forKey: key) != nil, "\(key)")
        }
        #expect(store.files.count == 3)
    }

    @Test func aWriteRemovesTheLeastRecentlyUsedTablesBeyondTheMaximumCount() throws {
        let store = CalibrationStore(directory: Self.temporaryStore().directory, maximumCount: 3)
        defer { try? FileManager.default.removeItem(at: store.directory) }
        let keys = ["oldest", "older", "read", "recent"]
        for (age, key) in zip([40, 30, 20, 10], keys) {
            store.store(ChoiceCalibration(), forKey: key)
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-Double(age) * 60)],
                                                  ofItemAtPath: store.url(forKey: key).path)
        }
        // Four tables under a cap of three: the write of "recent" removed "oldest" already.
        #expect(store.files.count == 3 && !FileManager.default.fileExists(atPath: store.url(forKey: "oldest").path))
        // A read makes a table the most recently used, so the next write removes "older" rather than it.
        #expect(store.table(forKey: "read") != nil)
        store.store(ChoiceCalibration(), forKey: "new")
        #expect(store.files.count == 3)
        #expect(!FileManager.default.fileExists(atPath: store.url(forKey: "older").path))
        for key in ["read", "recent", "new"] {
            #expect(FileManager.default.fileExists(atPath: store.url(forKey: key).path), "\(key)")
        }
    }

    @Test func clearingAndPruningTouchOnlyTheStoresOwnFiles() throws {
        // FM_CALIBRATION_CACHE may name a directory that holds the user's own files.
        let store = CalibrationStore(directory: Self.temporaryStore().directory, maximumAge: 3600)
        defer { try? FileManager.default.removeItem(at: store.directory) }
        store.store(ChoiceCalibration(), forKey: "table")
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        let others = ["package.json", "tsconfig.json", "notes.txt", String(repeating: "A", count: 32) + ".json"]
        for name in others {
            let url = store.directory.appendingPathComponent(name)
            try Data("{}".utf8).write(to: url)
            try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: url.path)
        }
        store.prune()
        #expect(store.files.map(\.lastPathComponent) == [store.url(forKey: "table").lastPathComponent])
        #expect(try store.clear() == 1)
        for name in others {
            #expect(FileManager.default.fileExists(atPath: store.directory.appendingPathComponent(name).path), "\(name)")
        }
    }

    @Test func keysAreTheSameInEveryProcessAndTellSchemasApart() {
        let labels = SchemaNode.string(.choices(["ham", "spam"]))
        let schema = SchemaDocument(root: .object(properties: [.init(name: "label", schema: .reference("Label"))]),
                                    definitions: ["Label": labels, "Other": .boolean, "Aside": .null])
        // Definitions are written in name order, whatever order the dictionary iterates in.
        #expect(CalibrationStore.canonical(schema).components(separatedBy: "\u{1D}").dropFirst().map { $0.prefix(6) } == ["Aside=", "Label=", "Other="])
        var other = schema
        other.definitions["Label"] = .string(.choices(["ham", "spam", "unsure"]))
        let levers = QualityLevers()
        let key = CalibrationStore.key(tableKey: "t", modelFiles: ["/nonexistent/model.gguf"], schema: schema, levers: levers)
        #expect(key == CalibrationStore.key(tableKey: "t", modelFiles: ["/nonexistent/model.gguf"], schema: schema, levers: levers))
        #expect(key != CalibrationStore.key(tableKey: "t", modelFiles: ["/nonexistent/model.gguf"], schema: other, levers: levers))
        #expect(key != CalibrationStore.key(tableKey: "u", modelFiles: ["/nonexistent/model.gguf"], schema: schema, levers: levers))
        var switched = levers
        switched.calibratesByBatch = false
        #expect(key != CalibrationStore.key(tableKey: "t", modelFiles: ["/nonexistent/model.gguf"], schema: schema, levers: switched))
        #expect(key.contains(CalibrationStore.executableIdentity) && !CalibrationStore.executableIdentity.hasPrefix("missing:"))
        // The digest is a fixed function of the key (FNV-1a), so file names hold across processes.
        #expect(CalibrationStore.digest("") == "cbf29ce484222325" + "6c62272e07bb0142")
        #expect(CalibrationStore.digest("a") != CalibrationStore.digest("b"))
        #expect(CalibrationStore.digest(key).count == 32)
    }
}
