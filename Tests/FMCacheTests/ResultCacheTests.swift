import FMCache
import Foundation
import Testing

@Suite struct ResultCacheTests {
    @Test func storesAndClears() throws {
        let cache = try ResultCache.inMemory()
        let key = ResultCache.key(["model", "schema", "text"])
        #expect(try cache.value(forKey: key) == nil)
        try cache.store("{\"topics\":[\"beach\"]}", forKey: key)
        #expect(try cache.value(forKey: key) == "{\"topics\":[\"beach\"]}")
        #expect(try cache.clear() == 1)
        #expect(try cache.value(forKey: key) == nil)
    }

    @Test func anyChangedPartMisses() {
        let base = ResultCache.key(["model", "schema", "instructions", "options", "text"])
        #expect(base != ResultCache.key(["model2", "schema", "instructions", "options", "text"]))
        #expect(base != ResultCache.key(["model", "schema", "instructions", "options", "text2"]))
        // Length prefixes keep part boundaries from colliding.
        #expect(ResultCache.key(["ab", "c"]) != ResultCache.key(["a", "bc"]))
    }

    @Test func sha256KnownAnswers() {
        #expect(SHA256.hexDigest(Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func twoHandlesOnOneFileShareResults() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fm-cache-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let first = try ResultCache(url: url)
        let second = try ResultCache(url: url)
        try first.store("1", forKey: "k")
        #expect(try second.value(forKey: "k") == "1")
    }

    @Test func asyncCallsReadAndWriteTheSameResults() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fm-cache-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let first = try ResultCache(url: url)
        let second = try ResultCache(url: url)
        #expect(try await first.value(forKey: "k") == nil)
        try await first.store("1", forKey: "k")
        #expect(try await second.value(forKey: "k") == "1")
        try await second.store("2", forKey: "k")
        #expect(try await first.value(forKey: "k") == "2")
        #expect(try first.count() == 1)
    }
}
