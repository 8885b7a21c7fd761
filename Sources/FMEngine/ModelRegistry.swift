import FMLlama
import Synchronization

/// Loads each model file once per process and hands the same ``LoadedModel`` — and the same ``Engine`` — to
/// every caller.
package final class ModelRegistry: Sendable {
    package static let shared = ModelRegistry()

    private let models = Mutex<[String: LoadedModel]>([:])
    private let engines = Mutex<[String: Engine]>([:])

    /// The model at `path`, loading it on first use. Loading happens under the lock so two threads
    /// asking at once share one load.
    ///
    /// Loading blocks; from async code use ``engine(at:adapterPath:)``, which loads off the cooperative pool.
    package func model(at path: String) throws -> LoadedModel {
        try models.withLock { models in
            if let model = models[path] { return model }
            let model = try LoadedModel(llama: LlamaModel(path: path))
            models[path] = model
            return model
        }
    }

    /// The model at `path` with the LoRA adapter at `adapterPath` applied: the base weights are shared,
    /// the contexts (and so the KV caches) are the adapter's own.
    package func model(at path: String, adapterPath: String) throws -> LoadedModel {
        let base = try model(at: path)
        return try models.withLock { models in
            let key = Self.key(path, adapterPath)
            if let model = models[key] { return model }
            let model = LoadedModel(llama: base.llama, adapter: try LlamaAdapter(path: adapterPath, model: base.llama))
            models[key] = model
            return model
        }
    }

    /// The model at `path` if it is loaded already (with the adapter at `adapterPath`, if any); never loads.
    package func loadedModel(at path: String, adapterPath: String? = nil) -> LoadedModel? {
        models.withLock { $0[adapterPath.map { Self.key(path, $0) } ?? path] }
    }

    /// The engine of the model at `path` (with the adapter at `adapterPath`, if any), loading the model on a
    /// dispatch thread on first use.
    package func engine(at path: String, adapterPath: String? = nil) async throws -> Engine {
        let key = adapterPath.map { Self.key(path, $0) } ?? path
        if let engine = engines.withLock({ $0[key] }) { return engine }
        let model = try await Engine.offload { [self] in
            if let adapterPath { return try self.model(at: path, adapterPath: adapterPath) }
            return try self.model(at: path)
        }
        return engines.withLock { engines in
            if let engine = engines[key] { return engine }
            let engine = Engine(model: model)
            engines[key] = engine
            return engine
        }
    }

    private static func key(_ path: String, _ adapterPath: String) -> String { path + "\u{0}" + adapterPath }
}
