import FMLlama
import Foundation
import Synchronization

/// Loads each model file once per process and hands the same ``LoadedModel`` — and the same ``Engine`` — to
/// every caller.
package final class ModelRegistry: Sendable {
    package static let shared = ModelRegistry()

    private let models = Mutex<[String: LoadedModel]>([:])
    private let engines = Mutex<[String: Engine]>([:])
    /// Held while a model or adapter loads, so two threads asking at once share one load; the dictionary's own
    /// lock stays free, so ``loadedModel(at:adapterPath:)`` never waits for a load.
    private let loading = Mutex<Void>(())

    /// The model at `path`, loading it on first use.
    ///
    /// Loading blocks; from async code use ``engine(at:adapterPath:)``, which loads off the cooperative pool.
    package func model(at path: String) throws -> LoadedModel {
        try loadOnce(key: Self.key(path)) { try LoadedModel(llama: LlamaModel(path: path)) }
    }

    /// The model at `path` with the LoRA adapter at `adapterPath` applied: the base weights are shared,
    /// the contexts (and so the KV caches) are the adapter's own.
    package func model(at path: String, adapterPath: String) throws -> LoadedModel {
        let base = try model(at: path)
        return try loadOnce(key: Self.key(path, adapterPath)) {
            LoadedModel(llama: base.llama, adapter: try LlamaAdapter(path: adapterPath, model: base.llama))
        }
    }

    /// The model stored under `key`, or the one `load` makes, stored there; loads are one at a time.
    private func loadOnce(key: String, _ load: () throws -> LoadedModel) throws -> LoadedModel {
        if let model = models.withLock({ $0[key] }) { return model }
        return try loading.withLock { _ in
            if let model = models.withLock({ $0[key] }) { return model }
            let model = try load()
            models.withLock { $0[key] = model }
            return model
        }
    }

    /// The model at `path` if it is loaded already (with the adapter at `adapterPath`, if any); never loads.
    package func loadedModel(at path: String, adapterPath: String? = nil) -> LoadedModel? {
        models.withLock { $0[adapterPath.map { Self.key(path, $0) } ?? Self.key(path)] }
    }

    /// The engine of the model at `path` (with the adapter at `adapterPath`, if any), loading the model on a
    /// dispatch thread on first use.
    package func engine(at path: String, adapterPath: String? = nil) async throws -> Engine {
        let key = adapterPath.map { Self.key(path, $0) } ?? Self.key(path)
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

    private static func key(_ path: String, _ adapterPath: String) -> String { key(path) + "\u{0}" + key(adapterPath) }

    /// The file `path` names, however it is spelled (`./`, `..`, a symbolic link), so that one file is loaded once:
    /// a second load of a model would hold its repacked weights and contexts twice.
    static func key(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
