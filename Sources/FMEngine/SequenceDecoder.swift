import FMDecoding
import FMLlama

/// One response being decoded: its grammar state, sampler, loop and repetition guards, output so far, and the tokens that
/// wait to be evaluated.
///
/// ``Engine``'s loop drives one of these per job, lone or in a batch, so a response decoded in a batch follows
/// exactly the rules of a lone one: the same forced text, masks, limits and errors. The driver owns the
/// context; each step is `prepareStep` (forced text and limits), an evaluation of ``pending``, then
/// ``pickToken(from:)`` and ``accept(_:)`` on the fresh logits.
struct SequenceDecoder {
    let model: LoadedModel
    private let maximumTokens: Int?
    let levers: QualityLevers
    private(set) var matcher: GrammarMatcher?
    private(set) var mask: TokenMask?
    private var sampler: TokenSampler
    private var loopGuard = LoopGuard()
    private var repetitionGuard = RepetitionGuard()
    /// The job's stop strings, for a free-text response only.
    private let stopSequences: StopSequences
    /// Alternatives to record with each sampled token's log-probability, for a free-text response that asks.
    private let logprobAlternatives: Int?
    /// The last picked token's log-probability, kept until ``accept(_:evaluated:)`` takes the token into the text.
    private var pickedLogprob: TokenLogprob?
    /// Where each token of ``GenerationOutcome/logprobs`` begins in the response's bytes.
    private var logprobOffsets: [Int] = []
    /// The model's token texts and its comma tokens, looked up once rather than at every step.
    let tokenBytes: [[UInt8]]
    private let separatorTokens: [Int32]
    /// The response so far, with its token counts.
    var outcome: GenerationOutcome
    /// Tokens to evaluate before the next sample.
    var pending: [Int32]
    /// The response's tokens so far, forced and sampled.
    private(set) var generated: [Int32] = []

    init(job: GenerationJob, model: LoadedModel, promptTokens: Int, reusedTokens: Int, pending: [Int32]) {
        self.model = model
        maximumTokens = job.maximumTokens
        levers = job.levers
        tokenBytes = model.llama.tokenBytes
        separatorTokens = model.separatorTokens
        matcher = job.constraint?.makeMatcher()
        mask = job.constraint.map { TokenMask(count: $0.vocabulary.count) }
        sampler = TokenSampler(job.sampling)
        stopSequences = job.constraint == nil ? job.stopSequences : StopSequences([])
        logprobAlternatives = job.constraint == nil ? job.logprobAlternatives.map { min(max(0, $0), TokenLogprob.maximumTopCount) } : nil
        outcome = GenerationOutcome(bytes: [], stop: .finished, promptTokens: promptTokens,
                                    reusedTokens: reusedTokens, sampledTokens: 0, forcedTokens: 0)
        self.pending = pending
    }

    /// Appends the text the grammar forces (to be evaluated with whatever is pending, in one batch), then
    /// checks the limits.
    ///
    /// - Parameter cached: Tokens of this response's sequence already in the KV cache.
    /// - Returns: Why the response ends here — the value is complete, or `maximumTokens` is reached — or
    ///   `nil` to evaluate ``pending`` and sample.
    /// - Throws: When the next evaluation would pass the context window.
    mutating func prepareStep(cached: Int) throws(GenerationFailure) -> GenerationStop? {
        if var active = matcher, var currentMask = mask {
            let forced = active.forcedBytes()
            if !forced.isEmpty, let tokens = forcedTokens(forced, matcher: &active, mask: &currentMask) {
                // Forced tokens are response tokens too: text that would pass the limit is not written, even
                // the closing of a value (or of a tool turn's hidden wrapper) that nothing is left to choose in.
                if let maximumTokens, outcome.sampledTokens + outcome.forcedTokens + tokens.count > maximumTokens {
                    return .maximumTokens
                }
                outcome.forcedTokens += tokens.count
                append(tokens)
                matcher = active
            }
            mask = currentMask
            if active.isComplete { return .finished }
        }
        if let maximumTokens, outcome.sampledTokens + outcome.forcedTokens >= maximumTokens {
            return .maximumTokens
        }
        if cached + pending.count >= model.contextSize {
            // A value cut off by the window end is malformed: guided generation reports a decoding failure.
            if matcher != nil {
                throw .truncated("The response reached the end of the context window (\(model.contextSize) tokens) before the value was complete.", atContextEnd: true)
            }
            throw .contextOverflow("The response reached the end of the context window (\(model.contextSize) tokens) before it finished.")
        }
        return nil
    }

    /// The tokens the next ``pickToken(from:)`` may choose among, as mask words (bit `i % 64` of word `i / 64` for
    /// token `i`), or `nil` for an unconstrained response. It is the grammar's mask at the current state; the
    /// loop and repetition guards only take tokens out of it, so logits computed for these tokens are all the
    /// pick reads.
    func nextAllowedWords() -> [UInt64]? {
        guard let active = matcher, var currentMask = mask else { return nil }
        active.fillMask(into: &currentMask)
        return currentMask.words
    }

    /// The next token from fresh logits, masked by the grammar and the loop guard; `nil` if nothing is allowed.
    mutating func pickToken(from logits: UnsafeBufferPointer<Float>) -> Int32? {
        guard let active = matcher, var currentMask = mask else {
            let token = sampler.sample(logits)
            if let logprobAlternatives, let token {
                pickedLogprob = TokenLogprob.measure(token, in: logits, topCount: logprobAlternatives, tokenBytes: tokenBytes)
            }
            return token
        }
        active.fillMask(into: &currentMask)
        loopGuard.apply(to: &currentMask)
        repetitionGuard.apply(to: &currentMask, tokenBytes: tokenBytes, separatorTokens: separatorTokens)
        mask = currentMask
        return currentMask.words.withUnsafeBufferPointer { sampler.sample(logits, allowed: $0) }
    }

    /// Takes a picked token into the response.
    ///
    /// - Parameter evaluated: The token is already in the KV cache (a verified draft), so it is not pending.
    /// - Returns: `true` when the token ends the turn (end of generation where the value may end).
    mutating func accept(_ token: Int32?, evaluated: Bool = false) throws(GenerationFailure) -> Bool {
        guard let token else {
            throw .runtime("The grammar allows no token here (output so far: \(outcome.text)).")
        }
        if model.llama.isEndOfGeneration(token) {
            if let active = matcher, !active.canTerminate {
                throw .truncated("The model ended its turn before the value was complete: \(outcome.text)")
            }
            return true
        }
        if var active = matcher {
            guard active.accept(token: Int(token)) else {
                throw .runtime("The grammar rejected token \(token) it had allowed.")
            }
            matcher = active
        }
        outcome.sampledTokens += 1
        let searched = outcome.bytes.count
        append([token])
        if evaluated { pending.removeLast() }
        if let picked = pickedLogprob {
            outcome.logprobs.append(picked)
            logprobOffsets.append(searched)
            pickedLogprob = nil
        }
        if !stopSequences.isEmpty, let cut = stopSequences.firstMatch(in: outcome.bytes, searchingFrom: searched) {
            outcome.bytes.removeSubrange(cut...)
            // Tokens that begin inside the stop string are not part of the response.
            let kept = logprobOffsets.firstIndex { $0 >= cut } ?? logprobOffsets.count
            outcome.logprobs.removeSubrange(kept...)
            logprobOffsets.removeSubrange(kept...)
            return true
        }
        return false
    }

    /// How much of the response may be shown while it grows: all of it, but for trailing bytes that could begin
    /// a stop string.
    var reportableByteCount: Int {
        outcome.bytes.count - (stopSequences.isEmpty ? 0 : stopSequences.heldBack(in: outcome.bytes))
    }

    /// Takes a value the model chose by whole-sequence likelihood: its tokens, already accepted by `matcher`.
    mutating func acceptChosen(_ tokens: [Int32], matcher chosen: GrammarMatcher) {
        matcher = chosen
        outcome.sampledTokens += tokens.count
        append(tokens)
    }

    private mutating func append(_ tokens: [Int32]) {
        pending.append(contentsOf: tokens)
        generated.append(contentsOf: tokens)
        for token in tokens {
            let bytes = tokenBytes[Int(token)]
            outcome.bytes.append(contentsOf: bytes)
            loopGuard.observe(token, bytes: bytes)
            repetitionGuard.observe(bytes)
        }
    }

    /// The model's own tokenization of forced text, accepted by the matcher token by token; `nil` (sample
    /// instead) if the bytes are not whole UTF-8 text, the matcher disagrees, or nothing is left to force.
    ///
    /// The last token is held back when an allowed token extends it: the model would have written, say, `":["`
    /// where the forced text ends in `":[`, and forcing the shorter token would show it a split it never saw in
    /// training. The model then samples that boundary token itself, under the mask.
    private func forcedTokens(_ bytes: [UInt8], matcher: inout GrammarMatcher, mask: inout TokenMask) -> [Int32]? {
        guard let text = String(validating: bytes, as: UTF8.self),
            var tokens = try? model.llama.tokenize(text, addSpecial: false, parseSpecial: false),
            let last = tokens.last
        else { return nil }
        var trial = matcher
        for token in tokens.dropLast() where !trial.accept(token: Int(token)) {
            return nil
        }
        trial.fillMask(into: &mask)
        if levers.holdsBackBoundaryTokens, model.extensions.hasAllowedExtension(of: last, in: mask) {
            tokens.removeLast()
        } else if !trial.accept(token: Int(last)) {
            return nil
        }
        guard !tokens.isEmpty else { return nil }
        matcher = trial
        return tokens
    }
}
