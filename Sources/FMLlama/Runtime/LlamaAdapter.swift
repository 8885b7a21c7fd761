import CLlama
import Foundation

/// A LoRA adapter in GGUF form, loaded for one base model.
public final class LlamaAdapter: @unchecked Sendable {
    // @unchecked: the adapter is immutable after loading; llama.cpp only reads it while decoding.
    let pointer: OpaquePointer
    /// The model the adapter was loaded for (kept alive: llama.cpp frees adapters with their model).
    public let model: LlamaModel
    /// The adapter file.
    public let path: String

    /// Loads a LoRA adapter for `model`.
    ///
    /// - Throws: ``LlamaError`` `adapter` when the file is missing, not a LoRA GGUF, or made for another base model.
    public init(path: String, model: LlamaModel) throws(LlamaError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw LlamaError(.adapter, "no adapter file at \(path)")
        }
        guard let adapter = llama_adapter_lora_init(model.pointer, path) else {
            throw LlamaError(.adapter, "llama.cpp could not load \(path) as a LoRA adapter for this model")
        }
        self.pointer = adapter
        self.model = model
        self.path = path
    }

    deinit {
        llama_adapter_lora_free(pointer)
    }

    /// The adapter's GGUF metadata (scalar values as strings).
    public var metadata: [String: String] {
        var result: [String: String] = [:]
        for index in 0..<llama_adapter_meta_count(pointer) {
            var key = [CChar](repeating: 0, count: 256)
            var value = [CChar](repeating: 0, count: 4096)
            guard llama_adapter_meta_key_by_index(pointer, index, &key, key.count) >= 0,
                llama_adapter_meta_val_str_by_index(pointer, index, &value, value.count) >= 0
            else { continue }
            result[String(cChars: key)] = String(cChars: value)
        }
        return result
    }
}
