import Synchronization

/// Where the executor leaves the engine's timings for the session that asked (package-internal: the benchmarks
/// and tests read them through ``LanguageModelSession/lastStatistics``).
final class EngineStatistics: Sendable {
    @TaskLocal static var current: EngineStatistics?

    /// Whether the engine records the margin of every greedy decision.
    let recordsMargins: Bool

    init(recordsMargins: Bool = false) {
        self.recordsMargins = recordsMargins
    }

    private let storage = Mutex<GenerationStatistics?>(nil)
    var value: GenerationStatistics? { storage.withLock { $0 } }
    func record(_ statistics: GenerationStatistics) { storage.withLock { $0 = statistics } }
}
