public import Foundation
import GRDB

/// A SQLite store of tagging results keyed by a hash of everything that determines them.
///
/// Backed by a GRDB `DatabasePool` (WAL mode) so several `fm` processes can read and write the same file at once;
/// ``inMemory()`` gives a private store for tests.
public final class ResultCache: Sendable {
    private let writer: any DatabaseWriter

    /// Opens (creating if needed) the cache at `url` (the tools' default is `ResultCache.defaultURL`, beside the
    /// models in `SystemLanguageModel.cacheDirectory`).
    public init(url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        writer = try Self.open(url)
    }

    /// Opens the pool and applies the schema. Processes that open a new file at the same moment race to set it
    /// up (WAL mode, the table, the migration record); the one that loses tries again, and then finds it done.
    private static func open(_ url: URL) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        var attempt = 0
        while true {
            do {
                let pool = try DatabasePool(path: url.path, configuration: configuration)
                try migrate(pool)
                return pool
            } catch {
                attempt += 1
                // A damaged file stays damaged: only a race of two processes setting up a new file passes.
                guard attempt < 5, !isDamaged(error) else { throw error }
                Thread.sleep(forTimeInterval: 0.05 * Double(attempt))
            }
        }
    }

    private init(writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrate(writer)
    }

    /// A private in-memory cache.
    public static func inMemory() throws -> ResultCache {
        try ResultCache(writer: DatabaseQueue())
    }

    private static func migrate(_ writer: any DatabaseWriter) throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "result", options: .ifNotExists) { table in
                table.column("key", .text).primaryKey()
                table.column("value", .text).notNull()
                table.column("createdAt", .double).notNull()
            }
        }
        try migrator.migrate(writer)
    }

    /// The key for a result: the SHA-256 of the parts, each length-prefixed so no two part lists collide.
    public static func key(_ parts: [String]) -> String {
        var bytes: [UInt8] = []
        for part in parts {
            let utf8 = Array(part.utf8)
            bytes.append(contentsOf: "\(utf8.count):".utf8)
            bytes.append(contentsOf: utf8)
        }
        return SHA256.hexDigest(bytes)
    }

    /// The stored value for `key`, if any.
    public func value(forKey key: String) throws -> String? {
        try writer.read { db in try Self.fetch(key, in: db) }
    }

    /// Stores `value` under `key`, replacing any earlier value.
    public func store(_ value: String, forKey key: String) throws {
        let createdAt = Date().timeIntervalSince1970
        try writer.write { db in try Self.insert(value, forKey: key, createdAt: createdAt, in: db) }
    }

    /// The stored value for `key`, if any, read on the database's own threads: a read can wait for another
    /// process's write (up to the busy timeout), which must not hold one of Swift's cooperative threads.
    public func value(forKey key: String) async throws -> String? {
        try await writer.read { db in try Self.fetch(key, in: db) }
    }

    /// Stores `value` under `key`, replacing any earlier value, on the database's own threads (as the async
    /// `value(forKey:)` reads).
    public func store(_ value: String, forKey key: String) async throws {
        let createdAt = Date().timeIntervalSince1970
        try await writer.write { db in try Self.insert(value, forKey: key, createdAt: createdAt, in: db) }
    }

    private static func fetch(_ key: String, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM result WHERE key = ?", arguments: [key])
    }

    private static func insert(_ value: String, forKey key: String, createdAt: Double, in db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO result (key, value, createdAt) VALUES (?, ?, ?)", arguments: [key, value, createdAt])
    }

    /// The number of stored results.
    public func count() throws -> Int {
        try writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM result") ?? 0 }
    }

    /// Whether `error` says the database file is damaged or is no SQLite database at all, so that the file (and
    /// its journal) can only be removed, not opened and cleared.
    public static func isDamaged(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
    }

    /// Removes the database file at `url` with its write-ahead log and shared-memory index; returns whether there
    /// was a file.
    public static func removeFiles(at url: URL) throws -> Bool {
        let existed = FileManager.default.fileExists(atPath: url.path)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let path = url.path + suffix
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        }
        return existed
    }

    /// Removes every stored result; returns how many there were.
    @discardableResult
    public func clear() throws -> Int {
        try writer.write { db in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM result") ?? 0
            try db.execute(sql: "DELETE FROM result")
            return count
        }
    }
}
