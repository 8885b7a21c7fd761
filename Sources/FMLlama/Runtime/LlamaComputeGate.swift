import CLlama
import Foundation
import Synchronization

/// The process's one thread budget: every `llama_decode` in the process runs through this gate, one at a time.
///
/// Each evaluation already uses every thread ``LlamaThreads/processDefault`` allows, and ggml's workers spin
/// while they wait for one another, so two evaluations at once — two models, or two contexts outside one
/// engine's loop — would put twice the threads on the same cores and slow both far more than taking turns.
/// Other processes cannot take turns with us, so unless `FM_THREADS` fixes the count, a ``ThreadGovernor`` gives
/// up threads while the evaluating thread is kept waiting for a CPU, and takes them back when it no longer is.
/// Callers block on a plain lock: they are the engines' own threads, never Swift's cooperative pool.
package enum LlamaComputeGate {
    private static let lock = NSLock()
    private static let running = Atomic<Int>(0)
    private static let peak = Atomic<Int>(0)
    private static let governor = Mutex<ThreadGovernor?>(
        LlamaThreads.fixedByEnvironment == nil && SchedulerClock.sample() != nil
            ? ThreadGovernor(budget: LlamaThreads.processDefault) : nil)
    private static let logsChanges = ProcessInfo.processInfo.environment["FM_LOG_THREADS"] == "1"
    /// Whether there is a governor to feed: a fixed count reads no clocks.
    private static let isGoverned = governor.withLock { $0 != nil }

    /// Runs `body` (one evaluation on `context`) once no other evaluation in the process is running, with at
    /// most `threads` threads: fewer while the governor finds the cores busy with other work.
    static func evaluate<T>(_ context: OpaquePointer, threads: Int, _ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        // Counted independently of the lock, so the count would show any evaluation that bypassed it.
        let now = running.add(1, ordering: .sequentiallyConsistent).newValue
        _ = peak.max(now, ordering: .sequentiallyConsistent)
        defer { running.subtract(1, ordering: .sequentiallyConsistent) }

        let start = isGoverned ? SchedulerClock.sample() : nil
        let governed = start.flatMap { start in
            governor.withLock { $0?.threadsForEvaluation(at: start.now, capacity: CPUCapacityClock.sample) }
        }
        if let change = governed?.change { log(change) }
        let count = min(threads, governed?.threads ?? threads)
        if llama_n_threads(context) != Int32(count) { llama_set_n_threads(context, Int32(count), Int32(count)) }
        let result = try body()
        guard let start, let end = SchedulerClock.sample() else { return result }
        let change = governor.withLock {
            $0?.record(wall: end.now &- start.now, waited: end.waited &- start.waited, endingAt: end.now,
                       capacity: CPUCapacityClock.sample)
        }
        if let change { log(change) }
        return result
    }

    /// Starts the governor's measure of capacity as a model starts loading, so that the first evaluation knows
    /// whether other work held the cores meanwhile.
    static func noteModelLoading() {
        guard isGoverned else { return }
        let sample = CPUCapacityClock.sample()
        governor.withLock { $0?.begin(capacity: sample) }
    }

    /// Writes `change` to standard error when `FM_LOG_THREADS=1`.
    private static func log(_ change: ThreadGovernor.Change) {
        guard logsChanges else { return }
        let milliseconds = change.windowNanoseconds / 1_000_000
        let reason = change.availableCPUs.map { "the last \(milliseconds) ms left room for \(String(format: "%.1f", $0)) CPUs" }
            ?? "the evaluating thread waited for a CPU \(Int((change.waitedShare * 100).rounded())) % of the last \(milliseconds) ms"
        let message = "fm: evaluating with \(change.to) of \(LlamaThreads.processDefault) threads (was \(change.from)): \(reason)\n"
        try? FileHandle.standardError.write(contentsOf: Data(message.utf8))
    }

    /// Threads the next evaluation would use at most: the governor's count as it sees the machine now, or
    /// ``LlamaThreads/processDefault`` when the count is fixed (`FM_THREADS`) or the kernel does not report
    /// run-queue delays.
    package static var evaluationThreads: Int { governor.withLock { $0?.threads } ?? LlamaThreads.processDefault }

    /// The most evaluations that ever ran at the same moment in this process (1 once anything ran).
    package static var peakConcurrentEvaluations: Int { peak.load(ordering: .sequentiallyConsistent) }
}
