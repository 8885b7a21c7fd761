import Foundation

/// The CPU threads a context evaluates with when its creator does not say.
///
/// Every core by default, fewer for as long as other work holds some of them (``ThreadGovernor``);
/// `FM_THREADS=N` fixes it for the whole process instead, so a measurement or a job that splits the machine
/// by hand gets exactly what it asks for, up to the number of cores.
public enum LlamaThreads {
    /// What `FM_THREADS` asks for.
    public enum Request: Equatable, Sendable {
        /// A positive whole number of threads.
        case count(Int)
        /// Text that is not one.
        case invalid(String)
    }

    /// `FM_THREADS` when it is a positive integer (at most the number of cores), else the number of active cores.
    public static var processDefault: Int {
        fixedByEnvironment ?? cores
    }

    /// The active cores: the most threads an evaluation uses.
    ///
    /// ggml's workers spin at the barriers between a graph's operations, and more workers than cores wait for one
    /// another by whole scheduler slices: 10 tokens of `tiny` took 30 s with 3 threads on 2 idle cores, against
    /// 0.3 s with 2 (llama-server's `-t 3` alike).
    public static var cores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// What `FM_THREADS` asks for; `nil` when it is unset or empty.
    public static var requested: Request? { request(from: ProcessInfo.processInfo.environment["FM_THREADS"]) }

    /// What the text of `FM_THREADS` asks for; `nil` for no text.
    static func request(from text: String?) -> Request? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Int(text), value > 0 else { return .invalid(text) }
        return .count(value)
    }

    /// `FM_THREADS` when it is a positive integer, at most ``cores``: the thread count is then not adapted to the
    /// machine's load.
    static var fixedByEnvironment: Int? {
        guard case .count(let value)? = requested else { return nil }
        return min(value, cores)
    }
}
