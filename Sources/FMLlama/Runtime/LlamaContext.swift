import CLlama
import Foundation

/// An inference context: a KV cache plus compute buffers for one or more token sequences.
///
/// The context remembers which tokens each sequence holds, so a caller asks for the tokens it wants
/// evaluated (``prepare(_:sequence:)``) and only the part after the longest cached prefix is computed:
/// earlier turns of a conversation, shared instructions and prompt prefixes are not prefilled again.
///
/// A context is not thread-safe; its owner confines it to one thread at a time.
public final class LlamaContext {
    private let pointer: OpaquePointer
    private var batch: llama_batch
    /// The model this context runs.
    public let model: LlamaModel
    /// Tokens the context holds, prompt and response together, across all sequences.
    public let contextLength: Int
    /// The most tokens one decode call evaluates.
    public let batchSize: Int
    /// Number of independent sequences.
    public let sequenceCount: Int
    /// The most CPU threads an evaluation uses; fewer while other work holds the cores, unless `FM_THREADS` is set.
    public let threads: Int

    /// The tokens held in the KV cache, per sequence.
    public private(set) var cachedTokens: [[Int32]]
    private var logitsLocation: [LogitsLocation]
    /// Per sequence, the output-buffer rows of the last evaluation's tokens that have logits, in order.
    private var outputRows: [[Int32]]
    /// The output product for allowed tokens only, and the callback state that stops llama.cpp's graph before it.
    private let projection: OutputProjection
    /// Per sequence, the allowed tokens of each of its next evaluation's outputs, in row order
    /// (``restrictNextLogits(sequence:to:)``, ``restrictNextLogits(sequence:rows:)``).
    private var restrictions: [Int: [[UInt64]]] = [:]
    /// Per sequence and output row, logits computed for allowed tokens only (negative infinity elsewhere);
    /// allocated on first use.
    private var restrictedLogits: [[UnsafeMutableBufferPointer<Float>]]
    /// How many outputs had only their allowed tokens' logits computed, over the context's life.
    public private(set) var restrictedOutputCount = 0
    /// The adapters applied: llama.cpp keeps their pointers, so they must live as long as they are applied.
    private var appliedAdapters: [LlamaAdapter] = []

    private enum LogitsLocation {
        case none
        case output(Int32)
        case copied([Float])
        /// In ``restrictedLogits``, one buffer per output row (the last is the last token's): only the tokens
        /// allowed by the restriction hold logits.
        case restricted(rows: Int)
    }

    init(model: LlamaModel, contextLength: Int, batchSize: Int, threads: Int, sequences: Int) throws(LlamaError) {
        // More threads than cores make ggml's spinning workers wait for one another (``LlamaThreads/cores``).
        let threads = min(max(threads, 1), LlamaThreads.cores)
        var params = llama_context_default_params()
        params.n_ctx = UInt32(contextLength)
        params.n_batch = UInt32(batchSize)
        params.n_ubatch = UInt32(batchSize)
        params.n_seq_max = UInt32(sequences)
        params.n_threads = Int32(threads)
        params.n_threads_batch = Int32(threads)
        params.no_perf = true
        // Each parallel sequence gets the whole window, as a lone session would.
        params.kv_unified = true
        let projection = OutputProjection(
            embeddingLength: Int(llama_model_n_embd(model.pointer)), vocabularySize: model.vocabularySize, threads: threads)
        params.cb_eval = OutputProjection.callback
        // Unretained: the context owns the projection and frees llama.cpp's context before it.
        params.cb_eval_user_data = Unmanaged.passUnretained(projection).toOpaque()
        guard let context = llama_init_from_model(model.pointer, params) else {
            throw LlamaError(.contextCreation, "llama.cpp could not create a context of \(contextLength) tokens")
        }
        self.pointer = context
        self.projection = projection
        self.model = model
        self.contextLength = Int(llama_n_ctx(context))
        self.batchSize = Int(llama_n_batch(context))
        self.sequenceCount = sequences
        self.threads = threads
        self.batch = llama_batch_init(Int32(batchSize), 0, Int32(sequences))
        self.cachedTokens = Array(repeating: [], count: sequences)
        self.logitsLocation = Array(repeating: .none, count: sequences)
        self.outputRows = Array(repeating: [], count: sequences)
        self.restrictedLogits = Array(repeating: [], count: sequences)
    }

    deinit {
        for buffer in restrictedLogits.joined() { buffer.deallocate() }
        llama_batch_free(batch)
        llama_free(pointer)
    }

    private var memory: llama_memory_t { llama_get_memory(pointer) }

    // MARK: KV cache

    /// Makes `sequence` hold exactly `tokens` and evaluates what is not cached yet, leaving the logits
    /// of the last token ready for ``logits(sequence:)``.
    ///
    /// - Returns: How many tokens were reused from the cache.
    @discardableResult
    public func prepare(_ tokens: [Int32], sequence: Int = 0) throws(LlamaError) -> Int {
        precondition(!tokens.isEmpty, "a prompt has at least one token")
        guard tokens.count <= contextLength else {
            throw LlamaError(.contextFull, "\(tokens.count) tokens exceed the context window of \(contextLength)")
        }
        let cached = cachedTokens[sequence]
        var common = 0
        let limit = min(cached.count, tokens.count)
        while common < limit, cached[common] == tokens[common] { common += 1 }
        // The last token is always evaluated again so its logits are fresh.
        if common == tokens.count { common -= 1 }
        truncate(sequence: sequence, to: common)
        // A cache that cannot be cut back keeps nothing (``truncate(sequence:to:)``): evaluate from what it holds.
        let kept = cachedTokens[sequence].count
        try evaluate(Array(tokens[kept...]), sequence: sequence)
        return kept
    }

    /// Appends `tokens` to `sequence` and evaluates them, in chunks of ``batchSize``.
    public func evaluate(_ tokens: [Int32], sequence: Int = 0) throws(LlamaError) {
        try evaluate([(sequence, tokens)])
    }

    /// Appends tokens to several sequences and evaluates them together, in as few decode calls as the
    /// batch size allows. Each sequence's last token gets logits.
    ///
    /// All or nothing: when a decode call fails, every sequence is cut back to what it held before, so the
    /// caller can free cells and try the same call again.
    public func evaluate(_ items: [(sequence: Int, tokens: [Int32])]) throws(LlamaError) {
        try evaluate(items, outputs: 1)
    }

    /// Appends `tokens` to `sequence` and evaluates them in one decode call, keeping logits for each of the
    /// last `outputs` tokens: ``withLogits(sequence:row:_:)`` row 0 is the first of them. Verifying several
    /// proposed tokens at once needs the model's prediction after each.
    ///
    /// - Precondition: `tokens` fit one decode call (at most ``batchSize``) and `outputs <= tokens.count`.
    public func evaluate(_ tokens: [Int32], sequence: Int, outputs: Int) throws(LlamaError) {
        precondition(tokens.count <= batchSize && (1...max(1, tokens.count)).contains(outputs))
        try evaluate([(sequence, tokens)], outputs: outputs)
    }

    private func evaluate(_ items: [(sequence: Int, tokens: [Int32])], outputs: Int) throws(LlamaError) {
        let restrictions = self.restrictions
        self.restrictions = [:]
        let total = items.reduce(0) { $0 + $1.tokens.count }
        // With several sequences, copied prefixes share cells, so only llama.cpp knows whether the batch fits.
        let used = sequenceCount == 1 ? cachedTokens[0].count : 0
        guard used + total <= contextLength else {
            throw LlamaError(.contextFull, "\(used + total) tokens exceed the context window of \(contextLength)")
        }
        // Flatten into (sequence, token, isLast) in item order.
        var pending: [(sequence: Int, token: Int32, isLast: Bool, hasOutput: Bool)] = []
        pending.reserveCapacity(total)
        for item in items where !item.tokens.isEmpty {
            outputRows[item.sequence] = []
            for (offset, token) in item.tokens.enumerated() {
                pending.append((item.sequence, token, offset == item.tokens.count - 1, offset >= item.tokens.count - outputs))
            }
        }
        let lengthsBefore = items.map { ($0.sequence, cachedTokens[$0.sequence].count) }
        // Allowed logits only when every output of one decode call has a restriction.
        let evaluated = items.filter { !$0.tokens.isEmpty }
        let restricted = total <= batchSize && projection.isSupported && !evaluated.isEmpty
            && evaluated.allSatisfy { restrictions[$0.sequence]?.count == min(outputs, $0.tokens.count) }
            && Set(evaluated.map(\.sequence)).count == evaluated.count
        var start = 0
        while start < pending.count {
            let chunk = pending[start..<min(start + batchSize, pending.count)]
            let isFinalChunk = chunk.endIndex == pending.count
            batch.n_tokens = 0
            for entry in chunk {
                let index = Int(batch.n_tokens)
                batch.token[index] = entry.token
                batch.pos[index] = Int32(cachedTokens[entry.sequence].count)
                batch.n_seq_id[index] = 1
                batch.seq_id[index]![0] = Int32(entry.sequence)
                batch.logits[index] = entry.hasOutput ? 1 : 0
                batch.n_tokens += 1
                cachedTokens[entry.sequence].append(entry.token)
            }
            projection.begin(armed: restricted)
            let status = LlamaComputeGate.evaluate(pointer, threads: threads) { llama_decode(pointer, batch) }
            projection.isArmed = false
            guard status == 0 else {
                // Earlier chunks are in the cache and the failed one may be partly: cut every sequence back.
                for (sequence, length) in lengthsBefore { truncate(sequence: sequence, to: length) }
                if status == 1 {
                    throw LlamaError(.contextFull, "no room in the KV cache for \(chunk.count) more tokens")
                }
                throw LlamaError(.decode, "llama_decode returned \(status)")
            }
            if restricted {
                try project(evaluated, outputs: outputs, restrictions: restrictions)
                return
            }
            if chunk.contains(where: \.hasOutput) { projection.inspectGraph() }
            for (offset, entry) in zip(0..., chunk) where entry.hasOutput && !entry.isLast && isFinalChunk {
                outputRows[entry.sequence].append(Int32(offset))
            }
            for (offset, entry) in zip(0..., chunk) where entry.isLast {
                if isFinalChunk {
                    outputRows[entry.sequence].append(Int32(offset))
                    logitsLocation[entry.sequence] = .output(Int32(offset))
                } else {
                    // The next decode call overwrites the output buffer: keep a copy.
                    logitsLocation[entry.sequence] = .copied(Array(rawLogits(output: Int32(offset))))
                }
            }
            start = chunk.endIndex
        }
    }

    /// Asks that the next evaluation compute the logits of `sequence`'s last token for the tokens `allowed` marks
    /// only: bit `i % 64` of word `i / 64` set means token `i` is wanted (``OutputProjection``).
    ///
    /// A hint, for steps where the caller reads nothing but allowed tokens (sampling under a grammar mask). It
    /// takes effect when every output of the next decode call has one, and the model's graph permits; afterwards
    /// ``withLogits(sequence:_:)`` may hold negative infinity for every other token. The allowed logits equal
    /// llama.cpp's own. Every evaluation consumes the restrictions set before it.
    public func restrictNextLogits(sequence: Int, to allowed: [UInt64]) {
        restrictions[sequence] = [allowed]
    }

    /// The same hint for an ``evaluate(_:sequence:outputs:)`` that keeps several outputs: `rows[i]` marks the
    /// tokens wanted from output row `i` (row 0 is the earliest). It takes effect when there is one mask per
    /// output; ``withLogits(sequence:row:_:)`` then reads each row's allowed logits.
    public func restrictNextLogits(sequence: Int, rows: [[UInt64]]) {
        restrictions[sequence] = rows
    }

    /// Whether `sequence`'s logits cover the whole vocabulary (not computed for allowed tokens only).
    public func hasFullLogits(sequence: Int) -> Bool {
        if case .restricted = logitsLocation[sequence] { return false }
        return true
    }

    /// The logits of a restricted evaluation's outputs, from the hidden states it kept; if it kept none, the
    /// projection is given up and the last tokens are evaluated again in full.
    private func project(_ items: [(sequence: Int, tokens: [Int32])], outputs: Int, restrictions: [Int: [[UInt64]]]) throws(LlamaError) {
        // One mask per output row of each item, as `evaluate` checked before arming the projection.
        let masks = items.map { restrictions[$0.sequence] ?? [] }
        guard projection.hiddenRows == masks.reduce(0, { $0 + $1.count }) else {
            projection.disable()
            for (item, rows) in zip(items, masks) { truncate(sequence: item.sequence, to: cachedTokens[item.sequence].count - rows.count) }
            try evaluate(items.map { ($0.sequence, Array($0.tokens.suffix(outputs))) }, outputs: outputs)
            return
        }
        let vocabularySize = model.vocabularySize
        var projected: [(allowed: [UInt64], logits: UnsafeMutableBufferPointer<Float>)] = []
        for (item, rows) in zip(items, masks) {
            let sequence = item.sequence
            while restrictedLogits[sequence].count < rows.count {
                let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: vocabularySize)
                buffer.initialize(repeating: -.infinity)
                restrictedLogits[sequence].append(buffer)
            }
            for (row, allowed) in rows.enumerated() {
                projected.append((allowed, restrictedLogits[sequence][row]))
            }
            outputRows[sequence] = []
            logitsLocation[sequence] = .restricted(rows: rows.count)
        }
        projection.project(projected)
        restrictedOutputCount += projected.count
    }

    /// Makes `target` hold the first `count` tokens of `source`, sharing their cache cells (no evaluation).
    ///
    /// Parallel requests that start with the same instructions thereby prefill them once.
    public func copyPrefix(of source: Int, to target: Int, count: Int) {
        precondition(source != target && count <= cachedTokens[source].count)
        _ = llama_memory_seq_rm(memory, Int32(target), -1, -1)
        logitsLocation[target] = .none
        // A running state copies whole, with every token of the source in it: a shorter prefix cannot be copied.
        guard count == cachedTokens[source].count || model.keepsPartialSequences else {
            cachedTokens[target] = []
            return
        }
        if count > 0 { llama_memory_seq_cp(memory, Int32(source), Int32(target), 0, Int32(count)) }
        cachedTokens[target] = Array(cachedTokens[source][..<count])
    }

    /// Forgets every token of `sequence` from position `count` on. A cache that cannot be cut back there (a
    /// recurrent model's) forgets the whole sequence instead; ``cachedTokens`` says what is kept.
    public func truncate(sequence: Int = 0, to count: Int) {
        guard count < cachedTokens[sequence].count else { return }
        if !llama_memory_seq_rm(memory, Int32(sequence), Int32(count), -1) {
            // Partial removal unsupported by this cache type: drop the whole sequence.
            _ = llama_memory_seq_rm(memory, Int32(sequence), -1, -1)
            cachedTokens[sequence] = []
        } else {
            cachedTokens[sequence].removeSubrange(count...)
        }
        logitsLocation[sequence] = .none
    }

    /// Empties every sequence.
    public func clear() {
        llama_memory_clear(memory, true)
        cachedTokens = Array(repeating: [], count: sequenceCount)
        logitsLocation = Array(repeating: .none, count: sequenceCount)
    }

    // MARK: Logits

    /// Keeps a copy of the logits of `sequence`, so they stay readable after other decode calls (which
    /// overwrite llama.cpp's output buffer).
    public func preserveLogits(sequence: Int) {
        if case .output(let index) = logitsLocation[sequence] {
            logitsLocation[sequence] = .copied(Array(rawLogits(output: index)))
        }
    }

    /// Calls `body` with the logits of the last evaluated token of `sequence` (one per vocabulary entry).
    public func withLogits<R>(sequence: Int = 0, _ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        switch logitsLocation[sequence] {
        case .none:
            preconditionFailure("no logits for sequence \(sequence): evaluate tokens first")
        case .output(let index):
            return try body(rawLogits(output: index))
        case .copied(let values):
            return try values.withUnsafeBufferPointer(body)
        case .restricted(let rows):
            return try body(UnsafeBufferPointer(restrictedLogits[sequence][rows - 1]))
        }
    }

    /// Calls `body` with the logits after the `row`-th token that has them in the last
    /// ``evaluate(_:sequence:outputs:)`` of `sequence` (row 0 is the earliest).
    ///
    /// - Precondition: No other decode call on this context since that evaluation.
    public func withLogits<R>(sequence: Int, row: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        if case .restricted(let rows) = logitsLocation[sequence] {
            precondition(row < rows, "no logits row \(row) for sequence \(sequence)")
            return try body(UnsafeBufferPointer(restrictedLogits[sequence][row]))
        }
        precondition(row < outputRows[sequence].count, "no logits row \(row) for sequence \(sequence)")
        return try body(rawLogits(output: outputRows[sequence][row]))
    }

    private func rawLogits(output index: Int32) -> UnsafeBufferPointer<Float> {
        guard let base = llama_get_logits_ith(pointer, index) else {
            preconditionFailure("llama.cpp has no logits for output \(index)")
        }
        return UnsafeBufferPointer(start: base, count: model.vocabularySize)
    }

    // MARK: Scoring

    /// The log-likelihood of each continuation after what `sequence` holds: the sum of the log-probabilities
    /// of its tokens. See ``tokenLogProbabilities(of:after:spares:)``.
    public func logLikelihoods(of continuations: [[Int32]], after sequence: Int, spares: [Int]? = nil) throws(LlamaError) -> [Double] {
        try tokenLogProbabilities(of: continuations, after: sequence, spares: spares).map { $0.reduce(0, +) }
    }

    /// The log-probability of every token of each continuation after what `sequence` holds, computed in as
    /// few batched decodes as the spare sequences and the batch size allow.
    ///
    /// Each continuation longer than one token runs in a spare sequence (one of `spares`, which must be idle;
    /// every other sequence by default) on a copy of `sequence`'s cache cells; the spare sequences are emptied
    /// afterwards. Continuations that begin alike share those tokens: a prefix common to several is evaluated
    /// once, as one batch entry in all their sequences, so a label set such as `card_arrival`, `card_linking`
    /// costs its distinct tokens, not the sum of its lengths. The logits of `sequence` must be fresh (its last
    /// token evaluated) and are used up: evaluate again before reading them. The decode calls also overwrite the
    /// output logits of every other sequence; ``preserveLogits(sequence:)`` first keeps those that are still
    /// needed.
    ///
    /// - Throws: ``LlamaError`` when a continuation does not fit in one batch, there is no spare sequence,
    ///   or the cache is full.
    public func tokenLogProbabilities(of continuations: [[Int32]], after sequence: Int, spares: [Int]? = nil) throws(LlamaError) -> [[Double]] {
        precondition(continuations.allSatisfy { !$0.isEmpty }, "every continuation has a token")
        precondition(hasFullLogits(sequence: sequence), "scoring needs the whole vocabulary's logits")
        let spares = spares ?? (0..<sequenceCount).filter { $0 != sequence }
        var scores: [[Double]] = withLogits(sequence: sequence) { logits in
            let normalizer = Self.logSumExp(logits)
            return continuations.map { [Double(logits[Int($0[0])]) - normalizer] }
        }
        // Sorted, so that continuations with a common beginning fall in the same decode and share it.
        let extended = continuations.indices.filter { continuations[$0].count > 1 }
            .sorted { continuations[$0].lexicographicallyPrecedes(continuations[$1]) }
        guard !extended.isEmpty else { return scores }
        guard !spares.isEmpty else { throw LlamaError(.contextFull, "no spare sequence to score continuations in") }
        if let longest = extended.map({ continuations[$0].count - 1 }).max(), longest > batchSize {
            throw LlamaError(.contextFull, "a continuation of \(longest + 1) tokens does not fit in one batch")
        }
        let start = cachedTokens[sequence].count
        defer { logitsLocation[sequence] = .none }
        var next = 0
        while next < extended.count {
            let tree = ContinuationTree(continuations: continuations, order: extended[next...], start: start,
                                        sequences: spares, capacity: batchSize)
            next += tree.members.count
            for spare in spares.prefix(tree.members.count) { copyPrefix(of: sequence, to: spare, count: start) }
            batch.n_tokens = Int32(tree.nodes.count)
            for (slot, node) in tree.nodes.enumerated() {
                batch.token[slot] = node.token
                batch.pos[slot] = node.position
                batch.n_seq_id[slot] = Int32(node.sequences.count)
                for (index, member) in node.sequences.enumerated() { batch.seq_id[slot]![index] = member }
                batch.logits[slot] = 1
            }
            let status = LlamaComputeGate.evaluate(pointer, threads: threads) { llama_decode(pointer, batch) }
            for spare in spares.prefix(tree.members.count) { truncate(sequence: spare, to: 0) }
            // The output buffer now holds the candidates' rows: logits not copied before are gone.
            for index in logitsLocation.indices {
                if case .output = logitsLocation[index] { logitsLocation[index] = .none }
            }
            guard status == 0 else {
                if status == 1 { throw LlamaError(.contextFull, "no room in the KV cache to score continuations") }
                throw LlamaError(.decode, "llama_decode returned \(status) while scoring continuations")
            }
            var normalizers: [Int: Double] = [:]
            for read in tree.reads {
                let logits = rawLogits(output: Int32(read.node))
                let normalizer = normalizers[read.node] ?? Self.logSumExp(logits)
                normalizers[read.node] = normalizer
                scores[read.continuation].append(Double(logits[Int(read.next)]) - normalizer)
            }
        }
        return scores
    }

    private static func logSumExp(_ logits: UnsafeBufferPointer<Float>) -> Double {
        let maximum = logits.max() ?? 0
        var sum: Double = 0
        for value in logits { sum += Double(expf(value - maximum)) }
        return Double(maximum) + log(sum)
    }

    // MARK: Adapters

    /// Applies LoRA adapters with their scales (an empty list removes all adapters).
    public func setAdapters(_ adapters: [(LlamaAdapter, Float)]) throws(LlamaError) {
        var pointers: [OpaquePointer?] = adapters.map { $0.0.pointer }
        var scales = adapters.map(\.1)
        let status = llama_set_adapters_lora(pointer, &pointers, pointers.count, &scales)
        guard status == 0 else { throw LlamaError(.adapter, "llama.cpp could not apply the adapters (\(status))") }
        appliedAdapters = adapters.map(\.0)
        // An adapter on the output layer changes the graph's last product.
        projection.reset()
        // Cached activations were computed with other weights.
        clear()
    }
}
