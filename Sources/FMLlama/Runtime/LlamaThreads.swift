import Foundation

/// The CPU threads a context evaluates with when its creator does not say.
///
/// Every core by default, fewer for as long as other work holds some of them (``ThreadGovernor``);
/// `FM_THREADS=N` fixes it for the whole process instead, so a measurement or a job that splits the machine
/// by hand gets exactly what it asks for.
public enum LlamaThreads {
    /// `FM_THREADS` when it is a positive integer, else the number of active cores.
    public static var processDefault: Int {
        fixedByEnvironment ?? ProcessInfo.processInfo.activeProcessorCount
    }

    /// `FM_THREADS` when it is a positive integer: the thread count is then not adapted to the machine's load.
    static var fixedByEnvironment: Int? {
        guard let text = ProcessInfo.processInfo.environment["FM_THREADS"], let value = Int(text), value > 0 else {
            return nil
        }
        return value
    }
}
