import CLlama
import Foundation

/// Process-wide llama.cpp initialisation.
enum LlamaBackend {
    /// Initialises the backend once and routes llama.cpp's log to stderr only when `FM_LLAMA_LOG` is set,
    /// so tools and tests stay quiet by default.
    private static let initialized: Bool = {
        llama_log_set({ level, text, _ in
            guard let text, getenv("FM_LLAMA_LOG") != nil else { return }
            try? FileHandle.standardError.write(contentsOf: Data(String(cString: text).utf8))
        }, nil)
        llama_backend_init()
        return true
    }()

    static func ensureInitialized() {
        precondition(initialized)
    }

    /// The llama.cpp build this binary links against, e.g. `b1234 (ggml-cpu: AVX2 FMA F16C)`.
    static var buildDescription: String {
        ensureInitialized()
        let version = llama_version().map { String(cString: $0) } ?? "unknown"
        let system = llama_print_system_info().map { String(cString: $0) } ?? ""
        return "\(version) | \(system.trimmingCharacters(in: .whitespacesAndNewlines))"
    }
}
