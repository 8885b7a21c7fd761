import CLlama
import Foundation

/// The model's last matrix product — final hidden state to one logit per vocabulary entry — computed for the
/// tokens a caller allows instead of for all of them.
///
/// llama.cpp computes every vocabulary entry's logit at each output: 151,936 dot products of length 1,536 per
/// token for Qwen2.5, about a fifth of a decode step on a CPU. A grammar usually allows a fraction of the
/// vocabulary (inside a tag, Qwen2.5 has about 41,700 tokens of lowercase letters and digits; at a comma or a
/// closing bracket only a few). With a restriction armed, an evaluation stops llama.cpp's graph after the
/// final normalisation (through the scheduler's evaluation callback, which may end a computation early), keeps
/// the hidden states, and this type computes the allowed logits with ggml's own CPU kernel for the weight's
/// type: the row's `vec_dot` against the hidden state quantized by the same `from_float`. That is the
/// computation ggml's matrix product does for each element, so the allowed logits equal llama.cpp's bit for
/// bit (tested on `tiny`'s Q8_0, `medium`'s Q6_K and Gemma-3's Q8_0 output weights) for up to seven outputs in
/// one evaluation. From eight rows on, llama.cpp hands K-quant products such as `medium`'s Q6_K to its tiled
/// kernel (`ggml_tiled_min_batch`), which sums in another order: there the two differ in the last bits (by up
/// to about 4e-6), and these logits are the ones a lone step would compute.
///
/// It is used only where the graph ends in exactly that product (checked on the context's first full
/// evaluation): a model whose logits are scaled or soft-capped after it, a LoRA adapter on the output layer, or
/// a weight ggml has repacked into its own layout keeps llama.cpp's full computation.
final class OutputProjection {
    /// How the graph's output looked on the last full evaluation.
    enum Support {
        /// No full evaluation with outputs has been seen yet.
        case unknown
        /// The graph ends in `result_output = weight × result_norm` with a weight ggml's CPU kernels read as is.
        case supported(weight: UnsafeMutablePointer<ggml_tensor>, traits: UnsafePointer<ggml_type_traits_cpu>,
                       quantizer: ggml_from_float_t?, quantizedRowSize: Int)
        /// Anything else: the full computation is always used.
        case unsupported
    }

    private(set) var support = Support.unknown
    /// Whether the next evaluation stops after the final normalisation.
    var isArmed = false
    /// The hidden states the last armed evaluation produced, one row of ``embeddingLength`` per output.
    private(set) var hidden: [Float] = []
    /// How many rows ``hidden`` holds; 0 when the armed evaluation produced none (its logits are missing).
    private(set) var hiddenRows = 0
    /// The last node the callback was asked about in a full evaluation: the graph's output.
    private var lastNode: UnsafeMutablePointer<ggml_tensor>?
    private let embeddingLength: Int
    private let vocabularySize: Int
    private let threads: Int
    private var quantized: [UInt8] = []

    init(embeddingLength: Int, vocabularySize: Int, threads: Int) {
        self.embeddingLength = embeddingLength
        self.vocabularySize = vocabularySize
        self.threads = max(1, threads)
    }

    /// The callback llama.cpp's scheduler calls for every node of every evaluation: asked (`ask`) whether the
    /// node's data is wanted, then, for a wanted node, once it is computed, whether to go on.
    static let callback: ggml_backend_sched_eval_callback = { tensor, ask, userData in
        guard let tensor, let userData else { return false }
        let projection = Unmanaged<OutputProjection>.fromOpaque(userData).takeUnretainedValue()
        return projection.observe(tensor, ask: ask)
    }

    private func observe(_ tensor: UnsafeMutablePointer<ggml_tensor>, ask: Bool) -> Bool {
        let isNorm = strcmp(ggml_get_name(tensor), "result_norm") == 0
        if ask {
            if !isArmed { lastNode = tensor }
            return isArmed && isNorm
        }
        guard isArmed, isNorm, tensor.pointee.type == GGML_TYPE_F32, ggml_is_contiguous(tensor),
              Int(tensor.pointee.ne.0) == embeddingLength
        else { return true }
        let count = Int(ggml_nelements(tensor))
        if hidden.count < count { hidden = [Float](repeating: 0, count: count) }
        hidden.withUnsafeMutableBytes { target in
            _ = memcpy(target.baseAddress!, tensor.pointee.data, count * MemoryLayout<Float>.size)
        }
        hiddenRows = count / embeddingLength
        // Stop: the rest of the graph is the full output product.
        return false
    }

    /// Prepares an evaluation: armed or not, and no hidden states yet.
    func begin(armed: Bool) {
        isArmed = armed
        hiddenRows = 0
        lastNode = nil
    }

    /// After a full evaluation with outputs: records whether the graph ends in the plain output product.
    func inspectGraph() {
        guard case .unknown = support, let node = lastNode else { return }
        support = Self.support(of: node, embeddingLength: embeddingLength, vocabularySize: vocabularySize)
    }

    /// Forgets what the graph looked like (adapters change it).
    func reset() {
        support = .unknown
    }

    /// Gives up on the projection for this context.
    func disable() {
        support = .unsupported
    }

    var isSupported: Bool {
        if case .supported = support { return true }
        return false
    }

    private static func support(of node: UnsafeMutablePointer<ggml_tensor>, embeddingLength: Int, vocabularySize: Int) -> Support {
        guard strcmp(ggml_get_name(node), "result_output") == 0, node.pointee.op == GGML_OP_MUL_MAT,
              let weight = node.pointee.src.0, let input = node.pointee.src.1,
              strcmp(ggml_get_name(input), "result_norm") == 0, input.pointee.type == GGML_TYPE_F32,
              Int(weight.pointee.ne.0) == embeddingLength, Int(weight.pointee.ne.1) == vocabularySize,
              weight.pointee.ne.2 == 1, weight.pointee.ne.3 == 1,
              // Repacked weights (ggml's CPU_REPACK buffers) carry their layout in `extra`.
              weight.pointee.extra == nil, weight.pointee.data != nil, let buffer = weight.pointee.buffer,
              ggml_backend_buffer_is_host(buffer),
              let traits = ggml_get_type_traits_cpu(weight.pointee.type), traits.pointee.vec_dot != nil,
              traits.pointee.nrows == 1
        else { return .unsupported }
        // The hidden state is converted to the kernel's operand type as ggml's matrix product converts it.
        let dotType = traits.pointee.vec_dot_type
        let quantizer = dotType == GGML_TYPE_F32 ? nil : ggml_get_type_traits_cpu(dotType)?.pointee.from_float
        if dotType != GGML_TYPE_F32, quantizer == nil { return .unsupported }
        return .supported(weight: weight, traits: traits, quantizer: quantizer,
                          quantizedRowSize: Int(ggml_row_size(dotType, Int64(embeddingLength))))
    }

    /// Computes, for each hidden row, the logits of its allowed tokens into its buffer (one entry per vocabulary
    /// token); every other entry becomes negative infinity.
    ///
    /// The weight is read in one pass for all rows: each allowed row of it is multiplied by every hidden state
    /// that allows it while it is in cache. Reading it once per output would make a batch memory-bound.
    ///
    /// - Parameter outputs: Per hidden row, in row order: bit `i % 64` of word `i / 64` of `allowed` set means
    ///   token `i` is wanted, and `logits` receives them.
    func project(_ outputs: [(allowed: [UInt64], logits: UnsafeMutableBufferPointer<Float>)]) {
        guard case .supported(let weight, let traits, let quantizer, let rowSize) = support, outputs.count <= hiddenRows else {
            preconditionFailure("no hidden state to project")
        }
        let wordCount = (vocabularySize + 63) / 64
        var union = [UInt64](repeating: 0, count: wordCount)
        var masks = [UInt64](repeating: 0, count: wordCount * outputs.count)
        for (row, output) in outputs.enumerated() {
            output.logits.update(repeating: -.infinity)
            for (index, word) in output.allowed.prefix(wordCount).enumerated() where word != 0 {
                union[index] |= word
                masks[row * wordCount + index] = word
            }
        }
        var tokens: [Int32] = []
        tokens.reserveCapacity(union.reduce(0) { $0 + $1.nonzeroBitCount })
        for (wordIndex, word) in union.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                let token = wordIndex &* 64 &+ bits.trailingZeroBitCount
                if token < vocabularySize { tokens.append(Int32(token)) }
                bits &= bits &- 1
            }
        }
        guard !tokens.isEmpty else { return }
        let length = embeddingLength
        let rows = outputs.count
        if quantized.count < rowSize * rows { quantized = [UInt8](repeating: 0, count: rowSize * rows) }
        let targets = outputs.map { $0.logits.baseAddress! }
        let threads = threads
        hidden.withUnsafeBufferPointer { hidden in
            quantized.withUnsafeMutableBytes { quantized in
                // Each hidden state in the kernel's operand type, as ggml's matrix product converts it.
                var operands: [UnsafeRawPointer] = []
                for row in 0..<rows {
                    let state = hidden.baseAddress! + row * length
                    if let quantizer {
                        let target = quantized.baseAddress! + row * rowSize
                        quantizer(state, target, Int64(length))
                        operands.append(UnsafeRawPointer(target))
                    } else {
                        operands.append(UnsafeRawPointer(state))
                    }
                }
                let base = UnsafeRawPointer(weight.pointee.data!).assumingMemoryBound(to: CChar.self)
                let stride = Int(weight.pointee.nb.1)
                let vecDot = traits.pointee.vec_dot!
                masks.withUnsafeBufferPointer { masks in
                    tokens.withUnsafeBufferPointer { tokens in
                        operands.map { Optional($0) }.withUnsafeBufferPointer { operands in
                            targets.map { Optional($0) }.withUnsafeBufferPointer { targets in
                                // Each part writes its own tokens' entries; the caller waits for all of them.
                                nonisolated(unsafe) let dot = { (part: Int, parts: Int) in
                                    fm_project_rows(vecDot, Int32(length), base, stride, tokens.baseAddress!,
                                                    Int64(tokens.count * part / parts), Int64(tokens.count * (part + 1) / parts),
                                                    masks.baseAddress!, Int64(wordCount), Int64(rows), operands.baseAddress!,
                                                    targets.baseAddress!)
                                }
                                // Small sets are not worth waking other threads for.
                                if tokens.count * rows < 2048 || threads == 1 {
                                    dot(0, 1)
                                } else {
                                    DispatchQueue.concurrentPerform(iterations: threads) { dot($0, threads) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
