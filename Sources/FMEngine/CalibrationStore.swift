import FMDecoding
package import Foundation

/// Calibration tables kept on disk, so a new process does not compute again a table an earlier one computed.
///
/// A request with fixed answers waits for its table: one generation per calibration text, sixteen for a single
/// request (``CalibrationSample/reference``). On `medium` that is most of the time of a one-text `fm tag` call,
/// and it would be paid again by every process. A table depends on the model file, the schema, the conversation
/// before the text, the calibration texts, the quality levers and the code that scores choices; the key holds
/// all of them, the last as the identity of the running executable, so a rebuilt program never reads a table
/// that older code wrote.
///
/// Each table is one JSON file named by a digest of its key, holding a second, differently salted digest that is
/// compared on reading: a file that cannot be read, or that answers another key, counts as missing and is
/// written again. The key itself is not written, since it holds the job's calibration texts.
///
/// Tables of a rebuilt executable, a replaced model or a schema no longer asked for are never read again, so a
/// write also removes tables unused for ``maximumAge``, and the least recently used beyond ``maximumCount``; a
/// read marks its file as used. The count matters for a server whose tag requests bring their own samples: each
/// such request writes a table, which no later request may read.
package struct CalibrationStore: Sendable {
    /// The directory the tables are kept in.
    package let directory: URL

    /// How long a table may go unread before a later write removes it.
    package let maximumAge: TimeInterval

    /// The most tables kept; a write removes the least recently used beyond it.
    package let maximumCount: Int

    /// A store in `directory`, created when the first table is written, whose tables unused for `maximumAge`
    /// (30 days unless told) are removed, and the least recently used beyond `maximumCount` (4,096: tables take
    /// a few kilobytes each).
    package init(directory: URL, maximumAge: TimeInterval = 30 * 24 * 3600, maximumCount: Int = 4096) {
        self.directory = directory
        self.maximumAge = maximumAge
        self.maximumCount = max(1, maximumCount)
    }

    /// The store requests made in this task read and write; `nil` keeps tables in memory only.
    @TaskLocal package static var current: CalibrationStore? = environment

    /// `$FM_CALIBRATION_CACHE` when it names a directory, none when it is `off`, else
    /// `${XDG_CACHE_HOME:-~/.cache}/foundation-models/calibration`.
    package static let environment: CalibrationStore? = {
        if let value = ProcessInfo.processInfo.environment["FM_CALIBRATION_CACHE"], !value.isEmpty {
            return value == "off" ? nil : CalibrationStore(directory: URL(fileURLWithPath: value))
        }
        return CalibrationStore(directory: CacheDirectory.root.appendingPathComponent("calibration"))
    }()

    /// What a stored file holds.
    private struct Entry: Codable {
        var check: String
        var table: ChoiceCalibration
    }

    /// The table stored under `key`, or `nil`. A table found is marked as used, so pruning keeps it.
    func table(forKey key: String) -> ChoiceCalibration? {
        let url = url(forKey: key)
        guard let data = try? Data(contentsOf: url),
              let entry = try? Self.decoder.decode(Entry.self, from: data), entry.check == Self.check(key) else { return nil }
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: url.path)
        return entry.table
    }

    /// Stores `table` under `key`, then removes tables unused for ``maximumAge`` and those beyond
    /// ``maximumCount`` (``prune()``). A table that cannot be written is computed again next time.
    func store(_ table: ChoiceCalibration, forKey key: String) {
        guard let data = try? Self.encoder.encode(Entry(check: Self.check(key), table: table)) else { return }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Written beside and renamed, so a process that reads it meanwhile never sees half a file.
        try? data.write(to: url(forKey: key), options: .atomic)
        prune()
    }

    /// Removes the tables whose files were neither written nor read for ``maximumAge``, then the least recently
    /// written or read beyond ``maximumCount``.
    func prune() {
        let now = Date()
        var kept: [(file: URL, used: Date)] = []
        for file in files {
            guard let used = try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate else { continue }
            if now.timeIntervalSince(used) > maximumAge {
                try? FileManager.default.removeItem(at: file)
            } else {
                kept.append((file, used))
            }
        }
        guard kept.count > maximumCount else { return }
        for (file, _) in kept.sorted(by: { $0.used < $1.used }).prefix(kept.count - maximumCount) {
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// The stored tables' files: only names this store writes (``digest(_:)`` and `.json`), so a directory the
    /// user named for it keeps any other file, `.json` or not, through ``clear()`` and ``prune()``.
    package var files: [URL] {
        let contents = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        return contents.filter { Self.isTableName($0.lastPathComponent) }
    }

    /// Whether `name` is a table file's name: 32 lowercase hexadecimal digits and `.json`.
    static func isTableName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 37, name.hasSuffix(".json") else { return false }
        return bytes[..<32].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// Removes every stored table and returns how many there were.
    package func clear() throws -> Int {
        let files = files
        for file in files { try FileManager.default.removeItem(at: file) }
        return files.count
    }

    /// The file of `key`.
    func url(forKey key: String) -> URL {
        directory.appendingPathComponent(Self.digest(key) + ".json")
    }

    /// What a file of `key` holds to be told apart from a file of another key whose name collided.
    static func check(_ key: String) -> String {
        digest("check\u{1C}" + key)
    }

    /// 128 bits of FNV-1a over `key`, as hex: a file name, not a security boundary.
    static func digest(_ key: String) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325, second: UInt64 = 0x6c62_272e_07bb_0142
        for byte in key.utf8 {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            second = (second ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            second = second &+ first
        }
        return String(format: "%016llx%016llx", first, second)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        // A candidate the model never writes has a log-probability of -inf.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }()

    // MARK: Keys

    /// The key of a table: what the engine keys it by in memory (`tableKey`), and what identifies the model file,
    /// the schema, the levers and the running code.
    ///
    /// - Parameter modelFiles: The model's file and its adapter's, if any.
    static func key(tableKey: String, modelFiles: [String], schema: SchemaDocument, levers: QualityLevers) -> String {
        ([Self.formatVersion, executableIdentity] + modelFiles.map(fileIdentity) + [levers.fingerprint, canonical(schema), tableKey])
            .joined(separator: "\u{1C}")
    }

    /// Changes when the file's layout changes.
    private static let formatVersion = "calibration-store-1"

    /// The running executable's path, size and modification time: tables follow the code that computed them.
    static let executableIdentity: String = {
        let path = Bundle.main.executableURL?.resolvingSymlinksInPath().path ?? CommandLine.arguments.first ?? ""
        return fileIdentity(path)
    }()

    /// A file's path, size and modification time (`missing:` and the path when it cannot be read).
    static func fileIdentity(_ path: String) -> String {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = (attributes[.size] as? NSNumber)?.int64Value else { return "missing:" + path }
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\(path)|\(size)|\(modified)"
    }

    /// The schema as text that is the same in every process: definitions in name order (a dictionary's order
    /// changes from one process to the next).
    static func canonical(_ schema: SchemaDocument) -> String {
        ([String(reflecting: schema.root)] + schema.definitions.sorted { $0.key < $1.key }.map { "\($0.key)=\(String(reflecting: $0.value))" })
            .joined(separator: "\u{1D}")
    }
}
