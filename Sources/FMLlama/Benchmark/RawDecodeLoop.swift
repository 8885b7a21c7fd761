import CLlama
import Foundation

/// The ceiling the session's throughput is measured against: the plainest prefill-then-decode loop
/// over llama.cpp's C API (one `llama_decode` per batch or token, llama.cpp's own greedy sampler),
/// with no chat template, grammar, streaming or transcript.
public enum RawDecodeLoop {
    /// Seconds spent in each phase.
    public struct Timing: Sendable {
        /// Seconds to evaluate the prompt.
        public var prefillSeconds: Double
        /// Seconds to generate the tokens after the prompt.
        public var decodeSeconds: Double
        /// Tokens generated.
        public var decodedTokens: Int
    }

    /// Prefills `prompt` into a fresh context, then greedily decodes `decodeCount` tokens (ignoring
    /// end-of-turn, so the count is exact).
    public static func run(model: LlamaModel, prompt: [Int32], decodeCount: Int, contextLength: Int, batchSize: Int = 512) throws(LlamaError) -> Timing {
        var params = llama_context_default_params()
        params.n_ctx = UInt32(contextLength)
        params.n_batch = UInt32(batchSize)
        params.n_ubatch = UInt32(batchSize)
        params.n_threads = Int32(ProcessInfo.processInfo.activeProcessorCount)
        params.n_threads_batch = params.n_threads
        params.no_perf = true
        guard let context = llama_init_from_model(model.pointer, params) else {
            throw LlamaError(.contextCreation, "could not create the baseline context")
        }
        defer { llama_free(context) }
        let sampler = llama_sampler_chain_init(llama_sampler_chain_default_params())
        llama_sampler_chain_add(sampler, llama_sampler_init_greedy())
        defer { llama_sampler_free(sampler) }

        var tokens = prompt
        let start = DispatchTime.now().uptimeNanoseconds
        var offset = 0
        while offset < tokens.count {
            let count = min(batchSize, tokens.count - offset)
            let status = tokens.withUnsafeMutableBufferPointer { buffer in
                llama_decode(context, llama_batch_get_one(buffer.baseAddress! + offset, Int32(count)))
            }
            guard status == 0 else { throw LlamaError(.decode, "baseline prefill failed (\(status))") }
            offset += count
        }
        let prefilled = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<decodeCount {
            var token = llama_sampler_sample(sampler, context, -1)
            let status = llama_decode(context, llama_batch_get_one(&token, 1))
            guard status == 0 else { throw LlamaError(.decode, "baseline decode failed (\(status))") }
        }
        let decoded = DispatchTime.now().uptimeNanoseconds
        return Timing(
            prefillSeconds: Double(prefilled - start) / 1e9,
            decodeSeconds: Double(decoded - prefilled) / 1e9,
            decodedTokens: decodeCount
        )
    }
}
