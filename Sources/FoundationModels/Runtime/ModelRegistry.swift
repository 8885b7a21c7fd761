import FMLlama
import Synchronization

/// Loads each model file once per process and hands the same ``LoadedModel`` to every caller.
final class ModelRegistry: Sendable {
    static let shared = ModelRegistry()

    private let models = Mutex<[String: LoadedModel]>([:])

    /// The model at `path`, loading it on first use. Loading happens under the lock so two threads
    /// asking at once share one load.
    func model(at path: String) throws -> LoadedModel {
        try models.withLock { models in
            if let model = models[path] { return model }
            let model = try LoadedModel(llama: LlamaModel(path: path))
            models[path] = model
            return model
        }
    }
}
