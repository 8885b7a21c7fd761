import CLlama
import Foundation
import Synchronization

/// A GGUF model loaded into memory: weights, vocabulary and metadata.
///
/// A model is immutable after loading and shared by every session and thread; inference state lives
/// in ``LlamaContext``s created from it.
public final class LlamaModel: @unchecked Sendable {
    // @unchecked: `pointer` and `vocab` are only read after init (llama.cpp documents model and
    // tokenizer access as thread-safe); the lazily built tables are guarded by their Mutexes.
    let pointer: OpaquePointer
    let vocab: OpaquePointer
    let tokenTable = Mutex<[[UInt8]]?>(nil)
    /// The spellings of the control tokens by their first scalar, built on first use.
    let controlSpellings = Mutex<[Unicode.Scalar: [String]]?>(nil)

    /// The file the model was loaded from.
    public let path: String

    /// Loads a GGUF file.
    ///
    /// - Throws: ``LlamaError`` with code `modelNotFound` or `modelLoad`.
    public init(path: String) throws(LlamaError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw LlamaError(.modelNotFound, "no model file at \(path)")
        }
        LlamaBackend.ensureInitialized()
        LlamaComputeGate.noteModelLoading()
        var params = llama_model_default_params()
        params.n_gpu_layers = 0
        guard let model = llama_model_load_from_file(path, params) else {
            throw LlamaError(.modelLoad, "llama.cpp could not load \(path) as a GGUF model")
        }
        guard let vocab = llama_model_get_vocab(model) else {
            llama_model_free(model)
            throw LlamaError(.modelLoad, "\(path) has no vocabulary")
        }
        self.pointer = model
        self.vocab = vocab
        self.path = path
    }

    deinit {
        llama_model_free(pointer)
    }

    // MARK: Metadata

    /// Number of tokens in the vocabulary.
    public var vocabularySize: Int { Int(llama_vocab_n_tokens(vocab)) }

    /// Whether a sequence's cache can be cut back to any earlier position (and a prefix of it copied).
    ///
    /// A recurrent or hybrid model (Mamba, LFM2, Granite-4-H, …) keeps a running state rather than one cell per
    /// token, so only whole sequences can be removed or copied; prompt reuse then goes by whole sequences, and
    /// levers that evaluate rows to take back (drafts, restricted logits) are off.
    public var keepsPartialSequences: Bool { !llama_model_is_recurrent(pointer) && !llama_model_is_hybrid(pointer) }

    /// The context length the model was trained with.
    public var trainingContextLength: Int { Int(llama_model_n_ctx_train(pointer)) }

    /// Number of parameters.
    public var parameterCount: UInt64 { llama_model_n_params(pointer) }

    /// Size of the weights in bytes.
    public var sizeInBytes: UInt64 { llama_model_size(pointer) }

    /// A short description from llama.cpp, e.g. `llama 135M Q4_1`.
    public var summary: String {
        Self.string(capacity: 256) { llama_model_desc(pointer, $0, $1) } ?? ""
    }

    /// The string value of a GGUF metadata key, e.g. `general.name`.
    public func metadata(_ key: String) -> String? {
        Self.string(capacity: 512) { llama_model_meta_val_str(pointer, key, $0, $1) }
    }

    /// All GGUF metadata as key/value strings.
    public var allMetadata: [String: String] {
        var result: [String: String] = [:]
        for index in 0..<llama_model_meta_count(pointer) {
            guard let key = Self.string(capacity: 256, { llama_model_meta_key_by_index(pointer, index, $0, $1) }), !key.isEmpty,
                  let value = Self.string(capacity: 1024, { llama_model_meta_val_str_by_index(pointer, index, $0, $1) })
            else { continue }
            result[key] = value
        }
        return result
    }

    /// A string llama.cpp writes `snprintf`-style: `read` fills a buffer of the given size and returns the full
    /// length (negative when there is none), so a longer string is read again into a buffer that holds it.
    static func string(capacity: Int, _ read: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: capacity)
        var count = buffer.withUnsafeMutableBufferPointer { read($0.baseAddress!, $0.count) }
        if count >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(count) + 1)
            count = buffer.withUnsafeMutableBufferPointer { read($0.baseAddress!, $0.count) }
        }
        guard count >= 0 else { return nil }
        return String(decoding: buffer.prefix(min(Int(count), buffer.count - 1)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The Jinja chat template stored in the GGUF file, if any.
    public var chatTemplate: String? {
        llama_model_chat_template(pointer, nil).map { String(cString: $0) }
    }

    /// The llama.cpp build this process uses.
    public static var runtimeDescription: String { LlamaBackend.buildDescription }

    // MARK: Inference contexts

    /// Creates an inference context (KV cache and compute buffers) for this model.
    ///
    /// - Parameters:
    ///   - contextLength: Tokens the context holds (prompt and response together).
    ///   - batchSize: The most tokens one `llama_decode` call evaluates; longer prompts are prefilled in chunks.
    ///   - threads: The most CPU threads an evaluation uses; `nil` uses ``LlamaThreads/processDefault``
    ///     (`FM_THREADS`, else every core). Unless `FM_THREADS` is set, evaluations use fewer while other work
    ///     keeps the evaluating thread waiting for a CPU.
    ///   - sequences: Independent sequences decoded together in one batch.
    public func makeContext(
        contextLength: Int,
        batchSize: Int = 512,
        threads: Int? = nil,
        sequences: Int = 1
    ) throws(LlamaError) -> LlamaContext {
        try LlamaContext(
            model: self,
            contextLength: contextLength,
            batchSize: batchSize,
            threads: threads ?? LlamaThreads.processDefault,
            sequences: sequences
        )
    }
}
