import FMDecoding
import FMLlama
import Synchronization

/// A model in memory with its pool of inference contexts and its decoding vocabulary.
final class LoadedModel: Sendable {
    /// Apple's context window; used unless the model was trained with less.
    static let defaultContextSize = 4096

    let llama: LlamaModel
    let contextSize: Int
    private let idleContexts = Mutex<[LlamaContext.Box]>([])
    private let decodingVocabulary = Mutex<TokenVocabulary?>(nil)
    private let constraints = Mutex<[SchemaDocument: TokenConstraint]>([:])

    /// The LoRA adapter every context of this model applies, if any.
    let adapter: LlamaAdapter?

    init(llama: LlamaModel, adapter: LlamaAdapter? = nil) {
        self.llama = llama
        self.adapter = adapter
        self.contextSize = min(Self.defaultContextSize, llama.trainingContextLength)
    }

    // MARK: Contexts

    /// Borrows the idle context whose cache shares the longest prefix with `tokens` (or a new one).
    ///
    /// Sessions with the same instructions — every request of a batch tagging job, say — thereby
    /// reuse one another's prefill, and a session's earlier turns are found where it left them.
    func borrowContext(for tokens: [Int32]) throws -> LlamaContext {
        let reused: LlamaContext? = idleContexts.withLock { idle in
            guard !idle.isEmpty else { return nil }
            let scored = idle.enumerated().map { ($0.offset, Self.commonPrefix($0.element.context.cachedTokens[0], tokens)) }
            let best = scored.max { $0.1 < $1.1 }!.0
            return idle.remove(at: best).context
        }
        if let reused { return reused }
        let context = try llama.makeContext(contextLength: contextSize)
        if let adapter { try context.setAdapters([(adapter, 1)]) }
        return context
    }

    /// Returns a context to the pool, keeping at most a few idle ones.
    func returnContext(_ context: LlamaContext) {
        idleContexts.withLock { idle in
            idle.append(LlamaContext.Box(context))
            if idle.count > 4 { idle.removeFirst() }
        }
    }

    private static func commonPrefix(_ a: [Int32], _ b: [Int32]) -> Int {
        var count = 0
        while count < a.count, count < b.count, a[count] == b[count] { count += 1 }
        return count
    }

    // MARK: Constrained decoding

    /// The vocabulary as the decoder sees it, built once per model.
    var vocabulary: TokenVocabulary {
        if let vocabulary = decodingVocabulary.withLock({ $0 }) { return vocabulary }
        let excluded = Set((0..<llama.vocabularySize).filter { llama.isControl(Int32($0)) })
        let vocabulary = TokenVocabulary(
            tokens: llama.tokenBytes,
            eosTokenIDs: llama.endOfGenerationTokens.map(Int.init),
            excludedTokenIDs: excluded,
            tokenizerModel: "llama.cpp"
        )
        decodingVocabulary.withLock { $0 = vocabulary }
        return vocabulary
    }

    /// The compiled constraint for a schema, cached per model so masks computed for one request serve the next.
    func constraint(for document: SchemaDocument) throws -> TokenConstraint {
        if let cached = constraints.withLock({ $0[document] }) { return cached }
        let constraint = TokenConstraint(grammar: try Grammar(compiling: document), vocabulary: vocabulary)
        constraints.withLock { $0[document] = constraint }
        return constraint
    }
}

extension LlamaContext {
    /// Carries a context between threads. A context is used by one thread at a time: it is either
    /// idle in the pool (guarded by the pool's Mutex) or borrowed by exactly one generation.
    struct Box: @unchecked Sendable {
        let context: LlamaContext
        init(_ context: LlamaContext) { self.context = context }
    }
}
