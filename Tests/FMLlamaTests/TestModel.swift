import FMLlama
import Foundation
import Testing

/// The default model, loaded once for the whole test process.
enum TestModel {
    static let path: String = {
        if let path = ProcessInfo.processInfo.environment["FM_MODEL_PATH"] { return path }
        return modelsDirectory + "SmolLM2-135M-Instruct.Q4_1.gguf"
    }()

    /// The catalogue's models directory as `fm` finds it: `${XDG_CACHE_HOME:-$HOME/.cache}/foundation-models/models/`
    /// (a relative value of either stands for none).
    static let modelsDirectory: String = {
        let environment = ProcessInfo.processInfo.environment
        func absolute(_ variable: String) -> String? { environment[variable].flatMap { $0.hasPrefix("/") ? $0 : nil } }
        return (absolute("XDG_CACHE_HOME") ?? (absolute("HOME") ?? NSHomeDirectory()) + "/.cache") + "/foundation-models/models/"
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
