import Foundation
import FoundationModels
import Observation
import Synchronization
import Testing

/// `SystemLanguageModel` is Observable, as Apple's is: a view that shows the availability hears when the model
/// file arrives (an install finishing in another process) and when it goes.
@Suite struct ModelAvailabilityTests {
    /// A GGUF header that `availability` accepts: the magic, version 3, one tensor, no metadata.
    static let header = Data("GGUF".utf8) + Data([3, 0, 0, 0]) + Data([1, 0, 0, 0, 0, 0, 0, 0]) + Data(count: 8)

    /// How many changes the observers were told of.
    final class Changes: Sendable {
        let count = Mutex(0)
    }

    /// Observes the model's availability once, counting the change it is told of.
    static func observe(_ model: SystemLanguageModel, _ changes: Changes) -> SystemLanguageModel.Availability {
        withObservationTracking { model.availability } onChange: { changes.count.withLock { $0 += 1 } }
    }

    /// A model at a new path in the temporary directory, where no file is yet.
    static func modelWithoutFile(_ name: String) -> (model: SystemLanguageModel, file: URL) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).gguf")
        return (SystemLanguageModel(modelURL: file), file)
    }

    /// Waits up to ten seconds (the files are looked at once a second) for `changes` to reach `count`.
    static func wait(for count: Int, _ changes: Changes) async throws {
        for _ in 0..<100 where changes.count.withLock({ $0 }) < count {
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func observersHearWhenTheModelFileComesAndGoes() async throws {
        let (model, file) = Self.modelWithoutFile("observed")
        defer { try? FileManager.default.removeItem(at: file) }
        let changes = Changes()
        #expect(Self.observe(model, changes) == .unavailable(.modelNotReady))
        // Written whole at once, as an install moves its finished file into place.
        try Self.header.write(to: file, options: .atomic)
        try await Self.wait(for: 1, changes)
        #expect(changes.count.withLock { $0 } == 1, "the observer was not told that the file arrived")
        #expect(Self.observe(model, changes) == .available)
        try FileManager.default.removeItem(at: file)
        try await Self.wait(for: 2, changes)
        #expect(changes.count.withLock { $0 } == 2, "the observer was not told that the file went")
        #expect(Self.observe(model, changes) == .unavailable(.modelNotReady))
        // Nothing changes now, so the observer is told nothing more.
        try await Task.sleep(for: .milliseconds(2_500))
        #expect(changes.count.withLock { $0 } == 2)
    }

    @Test func aChangeAnotherReaderSawIsToldEvenIfItIsUndoneBeforeTheNextLook() async throws {
        let (model, file) = Self.modelWithoutFile("flicker")
        defer { try? FileManager.default.removeItem(at: file) }
        let changes = Changes()
        #expect(Self.observe(model, changes) == .unavailable(.modelNotReady))
        // Another reader sees the file in the moment it exists; by the next look it is gone again, so only that
        // read can tell the first observer its value went out of date.
        try Self.header.write(to: file, options: .atomic)
        #expect(model.isAvailable)
        try FileManager.default.removeItem(at: file)
        try await Self.wait(for: 1, changes)
        #expect(changes.count.withLock { $0 } == 1, "the observer was not told of the change another reader saw")
    }
}
