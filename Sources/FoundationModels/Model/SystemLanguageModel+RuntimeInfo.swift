import FMEngine
import FMLlama

extension SystemLanguageModel {
    /// Facts about the loaded model and the inference runtime (a Linux addition, used by `fm info`).
    public struct RuntimeInfo: Sendable, Hashable {
        /// The GGUF file.
        public var path: String
        /// The model's name from its metadata, if any.
        public var name: String?
        /// llama.cpp's short description (architecture, size, quantisation).
        public var summary: String
        /// Number of parameters.
        public var parameterCount: UInt64
        /// Size of the weights in bytes.
        public var sizeInBytes: UInt64
        /// The context window sessions use, in tokens.
        public var contextSize: Int
        /// The context length the model was trained with.
        public var trainingContextSize: Int
        /// Number of tokens in the vocabulary.
        public var vocabularySize: Int
        /// The llama.cpp build and the CPU features it uses.
        public var runtime: String
    }

    /// Loads the model (if it is not loaded yet) and describes it.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/assetsUnavailable(_:)`` when the model cannot be loaded.
    public func runtimeInfo() throws -> RuntimeInfo {
        guard isReady else {
            throw LanguageModelSession.GenerationError.assetsUnavailable(.init(debugDescription: missingModelMessage))
        }
        let loaded: LoadedModel
        do { loaded = try loadedModel() } catch {
            throw LanguageModelSession.GenerationError.assetsUnavailable(.init(debugDescription: "\(error)"))
        }
        let llama = loaded.llama
        return RuntimeInfo(
            path: llama.path,
            name: llama.metadata("general.name"),
            summary: llama.summary,
            parameterCount: llama.parameterCount,
            sizeInBytes: llama.sizeInBytes,
            contextSize: loaded.contextSize,
            trainingContextSize: llama.trainingContextLength,
            vocabularySize: llama.vocabularySize,
            runtime: LlamaModel.runtimeDescription
        )
    }
}
