import FMEngine
public import Foundation
import FMDecoding

extension SystemLanguageModel {
    /// Specialises the base model with a LoRA adapter.
    ///
    /// On Linux an adapter is a LoRA in GGUF form made for the base model (llama.cpp's
    /// `convert_lora_to_gguf.py` writes them), not an `.fmadapter` package. ``init(fileURL:)`` loads any
    /// file; ``init(name:)`` looks in the local adapter directory, ``adapterDirectory``
    /// (`${XDG_CACHE_HOME:-~/.cache}/foundation-models/adapters/<name>.gguf`) — there is no Background
    /// Assets download. Keys under `creator.` in the adapter's GGUF metadata are its
    /// ``creatorDefinedMetadata``.
    ///
    /// ```swift
    /// let adapter = try SystemLanguageModel.Adapter(name: "fm-test-adapter")
    /// let session = LanguageModelSession(model: SystemLanguageModel(adapter: adapter))
    /// ```
    ///
    /// Apple deprecated adapters in 26.4 and retired them in 27; the attributes below say so on Apple
    /// platforms. On Linux they stay, since a GGUF LoRA is how a model is specialised here.
    @available(macOS, deprecated: 26.4, obsoleted: 27.0)
    @available(iOS, deprecated: 26.4, obsoleted: 27.0)
    @available(visionOS, deprecated: 26.4, obsoleted: 27.0)
    public struct Adapter: Sendable {
        /// The adapter file.
        package let fileURL: URL
        /// The adapter's GGUF metadata.
        private let metadata: [String: GGUFMetadataReader.Value]

        /// Loads the adapter in a local GGUF file.
        ///
        /// - Throws: ``AssetError/invalidAsset(_:)`` when the file is missing or not a LoRA adapter, and
        ///   ``AssetError/compatibleAdapterNotFound(_:)`` when it was made for another kind of base model.
        public init(fileURL: URL) throws {
            guard let reader = try? GGUFMetadataReader(contentsOf: fileURL) else {
                throw AssetError.invalidAsset(.init(debugDescription: "\(fileURL.path) is not a readable GGUF file."))
            }
            guard case .string("adapter")? = reader.values["general.type"], case .string("lora")? = reader.values["adapter.type"] else {
                throw AssetError.invalidAsset(.init(debugDescription: "\(fileURL.path) is not a LoRA adapter (general.type must be \"adapter\", adapter.type \"lora\")."))
            }
            let baseArchitecture = (try? GGUFMetadataReader(contentsOf: SystemLanguageModel.defaultModelURL))?.string(for: "general.architecture")
            if let baseArchitecture, case .string(let architecture)? = reader.values["general.architecture"], architecture != baseArchitecture {
                throw AssetError.compatibleAdapterNotFound(.init(debugDescription:
                    "\(fileURL.lastPathComponent) adapts a \(architecture) model; the base model is \(baseArchitecture)."))
            }
            self.fileURL = fileURL
            self.metadata = reader.values
        }

        /// Loads the adapter called `name` from ``adapterDirectory``.
        ///
        /// - Parameter name: The file's base name, without the `.gguf` extension.
        /// - Throws: ``AssetError/invalidAdapterName(_:)`` for an empty name or one with a path separator,
        ///   ``AssetError/compatibleAdapterNotFound(_:)`` when no such adapter is installed, and the errors
        ///   of ``init(fileURL:)``.
        public init(name: String) throws {
            guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
                throw AssetError.invalidAdapterName(.init(debugDescription: "\"\(name)\" is not a valid adapter name."))
            }
            let url = Self.adapterDirectory.appendingPathComponent(name + ".gguf")
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw AssetError.compatibleAdapterNotFound(.init(debugDescription:
                    "No adapter named \"\(name)\" in \(Self.adapterDirectory.path). Put \(name).gguf there (scripts/make-test-adapter.sh makes a test one)."))
            }
            try self.init(fileURL: url)
        }

        /// Where ``init(name:)`` finds adapters: `adapters/` in ``SystemLanguageModel/cacheDirectory``
        /// (a Linux addition).
        public static var adapterDirectory: URL {
            SystemLanguageModel.cacheDirectory.appendingPathComponent("adapters")
        }

        /// Values from the adapter metadata's creator-defined fields: GGUF keys `creator.<key>`, reported
        /// as `<key>` (strings, `Int64`s, `Double`s, `Bool`s and string arrays).
        public var creatorDefinedMetadata: [String: Any] {
            var result: [String: Any] = [:]
            for (key, value) in metadata where key.hasPrefix("creator.") {
                let name = String(key.dropFirst("creator.".count))
                switch value {
                case .integer(let number): result[name] = number
                case .float(let number): result[name] = number
                case .bool(let flag): result[name] = flag
                case .string(let text): result[name] = text
                case .stringArray(let texts): result[name] = texts
                case .integerArray(let numbers): result[name] = numbers
                case .otherArray: continue
                }
            }
            return result
        }

        /// Prepares the adapter: on Linux there is no draft model to compile, so this loads the adapter
        /// into llama.cpp for the base model (later requests start faster) and checks that it applies.
        ///
        /// - Throws: ``AssetError/invalidAsset(_:)`` when llama.cpp rejects the adapter for the base model.
        @concurrent public func compile() async throws {
            do {
                _ = try await ModelRegistry.shared.engine(at: SystemLanguageModel.defaultModelURL.path, adapterPath: fileURL.path)
            } catch {
                throw AssetError.invalidAsset(.init(debugDescription: "\(error)"))
            }
        }

        /// Deletes adapters in ``adapterDirectory`` that are not valid adapters for the current base model.
        public static func removeObsoleteAdapters() throws {
            for url in installedAdapterFiles() where (try? Adapter(fileURL: url)) == nil {
                try FileManager.default.removeItem(at: url)
            }
        }

        /// The names of installed adapters compatible with the current base model whose name is `name` or
        /// starts with `name-` (versioned names such as `tagger-2`).
        public static func compatibleAdapterIdentifiers(name: String) -> [String] {
            installedAdapterFiles().compactMap { url in
                let identifier = url.deletingPathExtension().lastPathComponent
                guard identifier == name || identifier.hasPrefix(name + "-"), (try? Adapter(fileURL: url)) != nil else { return nil }
                return identifier
            }.sorted()
        }

        private static func installedAdapterFiles() -> [URL] {
            let files = (try? FileManager.default.contentsOfDirectory(at: adapterDirectory, includingPropertiesForKeys: nil)) ?? []
            return files.filter { $0.pathExtension == "gguf" }
        }
    }
}
