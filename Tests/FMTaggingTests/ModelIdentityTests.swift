@testable import FMTagging
import Foundation
import Testing

/// A model's cache identity follows its contents, not its path.
struct ModelIdentityTests {
    private func write(_ bytes: [UInt8], name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    @Test func identityFollowsContentsNotPath() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("model-identity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(3 * 1024 * 1024 + 17)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let original = try write(bytes, name: "a.gguf", in: directory)
        let copy = try write(bytes, name: "b.gguf", in: directory)
        #expect(ModelIdentity.of(original) == ModelIdentity.of(copy))
        #expect(ModelIdentity.of(original).hasPrefix("content-sha256:"))

        // A different model of the same size at another path: the first window and the last differ.
        for offset in [0, 1000, bytes.count - 1] {
            var changed = bytes
            changed[offset] ^= 0xFF
            let other = try write(changed, name: "changed-\(offset).gguf", in: directory)
            #expect(ModelIdentity.of(other) != ModelIdentity.of(original), "a change at byte \(offset)")
        }
        let longer = try write(bytes + [0], name: "longer.gguf", in: directory)
        #expect(ModelIdentity.of(longer) != ModelIdentity.of(original))
    }

    @Test func aSmallOrMissingFileHasAnIdentityToo() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("model-identity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let small = try write(Array("GGUF".utf8), name: "small.gguf", in: directory)
        #expect(ModelIdentity.of(small).hasPrefix("content-sha256:"))
        #expect(ModelIdentity.of(directory.appendingPathComponent("absent.gguf")).hasPrefix("missing:"))
    }
}
