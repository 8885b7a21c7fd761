import Foundation
import Synchronization

/// The process's one thread budget: every `llama_decode` in the process runs through this gate, one at a time.
///
/// Each evaluation already uses every thread ``LlamaThreads/processDefault`` allows, and ggml's workers spin
/// while they wait for one another, so two evaluations at once — two models, or two contexts outside one
/// engine's loop — would put twice the threads on the same cores and slow both far more than taking turns.
/// Callers block on a plain lock: they are the engines' own threads, never Swift's cooperative pool.
package enum LlamaComputeGate {
    private static let lock = NSLock()
    private static let running = Atomic<Int>(0)
    private static let peak = Atomic<Int>(0)

    /// Runs `body` (one evaluation) once no other evaluation in the process is running.
    static func evaluate<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        // Counted independently of the lock, so the count would show any evaluation that bypassed it.
        let now = running.add(1, ordering: .sequentiallyConsistent).newValue
        _ = peak.max(now, ordering: .sequentiallyConsistent)
        defer { running.subtract(1, ordering: .sequentiallyConsistent) }
        return try body()
    }

    /// The most evaluations that ever ran at the same moment in this process (1 once anything ran).
    package static var peakConcurrentEvaluations: Int { peak.load(ordering: .sequentiallyConsistent) }
}
