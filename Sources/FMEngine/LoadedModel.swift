package import FMDecoding
package import FMLlama
import Synchronization

/// A model in memory with its pool of inference contexts and its decoding vocabulary.
package final class LoadedModel: Sendable {
    /// Apple's context window; used unless the model was trained with less.
    package static let defaultContextSize = 4096

    package let llama: LlamaModel
    package let contextSize: Int
    private let idleContexts = Mutex<[LlamaContext.Box]>([])
    private let idleBatchContext = Mutex<LlamaContext.Box?>(nil)
    private let decodingVocabulary = Mutex<TokenVocabulary?>(nil)
    private let tokenExtensions = Mutex<TokenExtensions?>(nil)
    private let commaTokens = Mutex<[Int32]?>(nil)
    /// Compiled schemas, most recently used kept: each with its choice points and calibration tables, so
    /// dropping a schema drops everything derived from it.
    private let compiled = Mutex(LeastRecentlyUsedCache<SchemaKey, CompiledSchema>(capacity: LoadedModel.compiledSchemaCapacity))
    /// The most compiled schemas a model keeps.
    package static let compiledSchemaCapacity = 64
    /// The bytes of states and masks the compiled schemas of a model are trimmed to, the schemas used longest ago
    /// first, whenever a schema is compiled: a mask is a bit per token of the vocabulary (19 KB on Qwen2.5), so a
    /// count alone does not bound the cache, and 64 large schemas could hold gigabytes. The schema just compiled
    /// is kept whatever its size, and masks built later grow a schema until the next compilation trims.
    ///
    /// A schema dropped while a request still uses it costs that request only the caching of its calibration
    /// table: the table is kept in memory only while its schema is, and stored in ``CalibrationStore`` only when
    /// the schema was still held as the calibration began; a later request computes what was not kept.
    package let compiledSchemaByteBudget: Int
    /// The default of ``compiledSchemaByteBudget``.
    package static let defaultCompiledSchemaByteBudget = 512 << 20

    /// The LoRA adapter every context of this model applies, if any.
    let adapter: LlamaAdapter?

    init(llama: LlamaModel, adapter: LlamaAdapter? = nil, compiledSchemaByteBudget: Int = LoadedModel.defaultCompiledSchemaByteBudget,
         contextSize: Int = LoadedModel.defaultContextSize) {
        self.llama = llama
        self.adapter = adapter
        self.compiledSchemaByteBudget = compiledSchemaByteBudget
        self.contextSize = min(contextSize, llama.trainingContextLength)
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
        // Spare sequences let the generator score a choice's candidates side by side.
        let context = try llama.makeContext(contextLength: contextSize, sequences: 1 + ChoicePoints.maximumCandidates)
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

    /// Borrows the context for batched decoding, with room for at least `sequences` parallel sequences.
    ///
    /// One such context is kept; its window is twice a lone request's, because the sequences share it
    /// (shared prefixes occupy their cells once).
    func borrowBatchContext(sequences: Int) throws -> LlamaContext {
        if let idle = idleBatchContext.withLock({ box -> LlamaContext? in
            defer { box = nil }
            return box.flatMap { $0.context.sequenceCount >= sequences ? $0.context : nil }
        }) {
            return idle
        }
        let context = try llama.makeContext(contextLength: contextSize * 2, sequences: sequences)
        if let adapter { try context.setAdapters([(adapter, 1)]) }
        return context
    }

    /// Returns the batch context for the next batch job.
    func returnBatchContext(_ context: LlamaContext) {
        idleBatchContext.withLock { $0 = LlamaContext.Box(context) }
    }

    static func commonPrefix(_ a: [Int32], _ b: [Int32]) -> Int {
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

    /// Which tokens extend which, built once per model (for canonical tokenization at forced-text ends).
    var extensions: TokenExtensions {
        if let extensions = tokenExtensions.withLock({ $0 }) { return extensions }
        let extensions = TokenExtensions(tokenBytes: llama.tokenBytes)
        tokenExtensions.withLock { $0 = extensions }
        return extensions
    }

    /// Every token whose text contains a comma, found once per model: the tokens that can start another
    /// array element or object member (``RepetitionGuard``).
    var separatorTokens: [Int32] {
        if let tokens = commaTokens.withLock({ $0 }) { return tokens }
        let bytes = llama.tokenBytes
        let tokens = bytes.indices.filter { bytes[$0].contains(UInt8(ascii: ",")) }.map(Int32.init)
        commaTokens.withLock { $0 = tokens }
        return tokens
    }

    /// The compiled constraint for a schema, cached per model so masks computed for one request serve the next.
    package func constraint(for document: SchemaDocument) throws -> TokenConstraint {
        let key = SchemaKey(document)
        if let cached = compiled.withLock({ $0.value(forKey: key) }) { return cached.constraint }
        let constraint = TokenConstraint(grammar: try Grammar(compiling: document), vocabulary: vocabulary)
        // Build the masks up front (once per schema and model: ~2–40 ms on SmolLM2), so no token of a
        // generation waits for a state's first mask; huge or recursive grammars stop at the bound.
        constraint.precomputeMasks(maximumStates: 2_000)
        let schema = CompiledSchema(document: document, constraint: constraint, points: ChoicePoints(document: document))
        // The cache is trimmed to its byte budget as the schema goes in, in one step, so no other request's schema
        // can come between and make this one the oldest. Sizes are read outside the cache's lock, since a
        // constraint's own lock may be held by a generation building masks; no other request has this one yet.
        let held = compiled.withLock { $0.values }
        var sizes = [ObjectIdentifier(schema): constraint.approximateByteCount]
        for other in held { sizes[ObjectIdentifier(other)] = other.constraint.approximateByteCount }
        // Requests that compile one schema at the same time must end up with one constraint: choice points and
        // calibration tables are found by the constraint's identity, so a replaced one would lose them.
        return withExtendedLifetime(held) {
            compiled.withLock { cache in
                if let stored = cache.value(forKey: key) { return stored.constraint }
                _ = cache.insert(schema, forKey: key)
                _ = cache.trim(toCost: compiledSchemaByteBudget, keeping: key) { sizes[ObjectIdentifier($0)] ?? 0 }
                return constraint
            }
        }
    }

    /// How many compiled schemas the model holds (at most ``compiledSchemaCapacity``).
    var compiledSchemaCount: Int { compiled.withLock { $0.count } }

    /// The cached compilation that made `constraint`, if it is still held.
    private func compiledSchema(of constraint: TokenConstraint) -> CompiledSchema? {
        compiled.withLock { cache in cache.values.first { $0.constraint === constraint } }
    }

    /// The schema `constraint` was compiled from, if its compilation is still held.
    func document(of constraint: TokenConstraint) -> SchemaDocument? {
        compiledSchema(of: constraint)?.document
    }

    /// The calibration table cached for `constraint` under `key` (the conversation before the text, the sample).
    func calibration(for constraint: TokenConstraint, key: String) -> ChoiceCalibration? {
        compiledSchema(of: constraint)?.calibrations.withLock { $0.value(forKey: key) }
    }

    /// Caches a calibration table with its constraint (and drops it when the constraint is dropped).
    func storeCalibration(_ calibration: ChoiceCalibration, for constraint: TokenConstraint, key: String) {
        compiledSchema(of: constraint)?.calibrations.withLock { _ = $0.insert(calibration, forKey: key) }
    }

    /// The choice points of a constraint made by ``constraint(for:)``, or `nil` when it has none.
    package func choicePoints(for constraint: TokenConstraint) -> ChoicePoints? {
        compiledSchema(of: constraint).flatMap { $0.points.isEmpty ? nil : $0.points }
    }
}

/// A schema compiled for one model, and what is derived from it.
final class CompiledSchema: Sendable {
    let document: SchemaDocument
    let constraint: TokenConstraint
    let points: ChoicePoints
    /// Calibration tables by instructions and sample, most recently used kept: a server's requests can each
    /// bring their own system prompt or sample, and a schema in constant use stays cached with its tables.
    let calibrations = Mutex(LeastRecentlyUsedCache<String, ChoiceCalibration>(capacity: CompiledSchema.calibrationCapacity))
    /// The most calibration tables one compiled schema keeps.
    static let calibrationCapacity = 16

    init(document: SchemaDocument, constraint: TokenConstraint, points: ChoicePoints) {
        self.document = document
        self.constraint = constraint
        self.points = points
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
