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

    /// The model at `path` with the LoRA adapter at `adapterPath` applied: the base weights are shared,
    /// the contexts (and so the KV caches) are the adapter's own.
    func model(at path: String, adapterPath: String) throws -> LoadedModel {
        let base = try model(at: path)
        return try models.withLock { models in
            let key = path + "\u{0}" + adapterPath
            if let model = models[key] { return model }
            let model = LoadedModel(llama: base.llama, adapter: try LlamaAdapter(path: adapterPath, model: base.llama))
            models[key] = model
            return model
        }
    }
}
