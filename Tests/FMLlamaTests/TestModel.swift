import FMLlama
import Foundation
import Testing

/// The default model, loaded once for the whole test process.
enum TestModel {
    static let path: String = {
        if let path = ProcessInfo.processInfo.environment["FM_MODEL_PATH"] { return path }
        let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? NSHomeDirectory() + "/.cache"
        return cache + "/foundation-models/models/SmolLM2-135M-Instruct.Q4_1.gguf"
    }()

    /// Fails (never skips) when the model is missing, saying how to install it.
    static let shared: LlamaModel? = {
        do { return try LlamaModel(path: path) } catch {
            Issue.record("The default model is missing (\(error)). Run `fm model install tiny` to install it.")
            return nil
        }
    }()

    static func load() throws -> LlamaModel {
        try #require(shared, "default model not loaded; run `fm model install tiny`")
    }
}
