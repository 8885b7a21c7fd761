import Foundation

/// The CPU threads a context evaluates with when its creator does not say.
///
/// Every core by default; `FM_THREADS=N` caps it for the whole process, so a job that shares the machine
/// (a build, a second model, a measurement pinned to one core) does not oversubscribe the CPU.
public enum LlamaThreads {
    /// `FM_THREADS` when it is a positive integer, else the number of active cores.
    public static var processDefault: Int {
        if let text = ProcessInfo.processInfo.environment["FM_THREADS"], let value = Int(text), value > 0 {
            return value
        }
        return ProcessInfo.processInfo.activeProcessorCount
    }
}
