import FMDecoding
import FMLlama
import Foundation
import Synchronization

/// Runs the token loop of one model turn on a borrowed context.
///
/// The loop is synchronous and blocking (llama.cpp computes on the calling thread), so callers run it
/// off Swift's cooperative pool — see ``run(_:on:progress:)``.
struct Generator {
    let model: LoadedModel

    /// Runs `job` on a dedicated dispatch thread and resumes the caller when it is done.
    ///
    /// Cancelling the calling task stops the loop at the next token.
    static func run(
        _ job: GenerationJob,
        on model: LoadedModel,
        progress: (@Sendable ([UInt8]) -> Void)? = nil
    ) async throws(GenerationFailure) -> GenerationOutcome {
        let flag = CancellationFlag()
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<GenerationOutcome, any Error>) in
                    DispatchQueue.global(qos: .userInitiated).async {
                        do {
                            let outcome = try Generator(model: model).generate(job, isCancelled: { flag.isSet }, progress: progress)
                            continuation.resume(returning: outcome)
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    }
                }
            } onCancel: {
                flag.set()
            }
        } catch let failure as GenerationFailure {
            throw failure
        } catch {
            throw .runtime("\(error)")
        }
    }

    /// The token loop: prefill (reusing cached prefixes), then sample — masked by the grammar when there
    /// is one — and append forced text in single batched evaluations.
    func generate(
        _ job: GenerationJob,
        isCancelled: () -> Bool,
        progress: (([UInt8]) -> Void)?
    ) throws(GenerationFailure) -> GenerationOutcome {
        let llama = model.llama
        let started = DispatchTime.now().uptimeNanoseconds
        var prefilled = started
        let rendered = llama.renderChat(job.messages, addAssistantPrefix: true)
        let promptTokens: [Int32]
        do { promptTokens = try llama.tokenize(rendered, addSpecial: llama.addsBeginningOfSequence) } catch {
            throw .runtime(error.description)
        }
        guard promptTokens.count < model.contextSize else {
            throw .contextOverflow(
                "The prompt needs \(promptTokens.count) tokens; the context window holds \(model.contextSize).")
        }

        let context: LlamaContext
        do { context = try model.borrowContext(for: promptTokens) } catch { throw .runtime("\(error)") }
        defer { model.returnContext(context) }

        var matcher = job.constraint?.makeMatcher()
        var mask = job.constraint.map { TokenMask(count: $0.vocabulary.count) }
        var sampler = TokenSampler(job.sampling)
        var outcome = GenerationOutcome(bytes: [], stop: .finished, promptTokens: promptTokens.count,
                                        reusedTokens: 0, sampledTokens: 0, forcedTokens: 0)
        var pending = promptTokens  // tokens to evaluate before the next sample
        var isFirst = true

        func evaluatePending() throws(GenerationFailure) {
            do {
                if isFirst {
                    outcome.reusedTokens = try context.prepare(pending)
                    isFirst = false
                    prefilled = DispatchTime.now().uptimeNanoseconds
                } else {
                    try context.evaluate(pending)
                }
            } catch {
                if error.code == .contextFull {
                    throw .contextOverflow("The conversation reached the context window of \(model.contextSize) tokens.")
                }
                throw .runtime(error.description)
            }
            pending.removeAll(keepingCapacity: true)
        }

        func finished(_ stop: GenerationStop = .finished) -> GenerationOutcome {
            var result = outcome
            result.stop = stop
            let now = DispatchTime.now().uptimeNanoseconds
            result.prefillSeconds = Double(prefilled - started) / 1e9
            result.decodeSeconds = Double(now - prefilled) / 1e9
            return result
        }

        while true {
            if isCancelled() { throw .cancelled }
            // Forced continuation: the grammar allows exactly one text here, so append it unsampled and
            // evaluate it together with whatever is pending, in one batch.
            if var active = matcher {
                let forced = active.forcedBytes()
                if !forced.isEmpty, let tokens = forcedTokens(forced, matcher: &active) {
                    pending.append(contentsOf: tokens)
                    outcome.forcedTokens += tokens.count
                    outcome.bytes.append(contentsOf: forced)
                    matcher = active
                    progress?(outcome.bytes)
                }
                if active.isComplete {
                    return finished()
                }
            }
            if let limit = job.maximumTokens, outcome.sampledTokens + outcome.forcedTokens >= limit {
                return finished(.maximumTokens)
            }
            // Before the first evaluation the context still holds another request's tokens, which
            // `prepare` replaces; only afterwards does the cache count toward the window.
            let projected = isFirst ? pending.count : context.cachedTokens[0].count + pending.count
            if projected >= model.contextSize {
                // A value cut off by the window end is malformed: guided generation reports a decoding failure.
                if matcher != nil {
                    throw .truncated("The response reached the end of the context window (\(model.contextSize) tokens) before the value was complete.")
                }
                throw .contextOverflow(
                    "The response reached the end of the context window (\(model.contextSize) tokens) before it finished.")
            }
            try evaluatePending()

            let token: Int32?
            if let active = matcher, var currentMask = mask {
                active.fillMask(into: &currentMask)
                token = currentMask.words.withUnsafeBufferPointer { words in
                    context.withLogits { sampler.sample($0, allowed: words) }
                }
                mask = currentMask
            } else {
                token = context.withLogits { sampler.sample($0) }
            }
            guard let token else {
                throw .runtime("The grammar allows no token here (output so far: \(String(decoding: outcome.bytes, as: UTF8.self))).")
            }
            if llama.isEndOfGeneration(token) {
                if let active = matcher, !active.canTerminate {
                    throw .truncated("The model ended its turn before the value was complete: \(outcome.text)")
                }
                return finished()
            }
            if var active = matcher {
                guard active.accept(token: Int(token)) else {
                    throw .runtime("The grammar rejected token \(token) it had allowed.")
                }
                matcher = active
            }
            outcome.sampledTokens += 1
            outcome.bytes.append(contentsOf: llama.tokenBytes[Int(token)])
            pending.append(token)
            progress?(outcome.bytes)
        }
    }

    /// The model's own tokenization of forced text, accepted by the matcher token by token; `nil` (sample
    /// instead) if the bytes are not whole UTF-8 text or the matcher disagrees.
    private func forcedTokens(_ bytes: [UInt8], matcher: inout GrammarMatcher) -> [Int32]? {
        guard let text = String(validating: bytes, as: UTF8.self),
            let tokens = try? model.llama.tokenize(text, addSpecial: false, parseSpecial: false),
            !tokens.isEmpty
        else { return nil }
        var trial = matcher
        for token in tokens where !trial.accept(token: Int(token)) {
            return nil
        }
        matcher = trial
        return tokens
    }
}

/// A flag the cancellation handler sets and the token loop polls.
private final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}

extension Generator {
    /// Evaluates the rendered instructions (and the start of a user message) into a pooled context, so a
    /// later request that starts the same way finds them in the KV cache.
    static func prefill(messages: [ChatMessage], userPrefix: String?, on model: LoadedModel) {
        let llama = model.llama
        var text: String
        if let userPrefix, !userPrefix.isEmpty {
            // Render a user message made of the prefix and cut right after it: the template's closing tokens
            // would not match the real prompt's continuation.
            let rendered = llama.renderChat(messages + [ChatMessage(role: "user", content: userPrefix)], addAssistantPrefix: false)
            guard let range = rendered.range(of: userPrefix, options: .backwards) else { return }
            text = String(rendered[..<range.upperBound])
        } else {
            guard !messages.isEmpty else { return }
            text = llama.renderChat(messages, addAssistantPrefix: false)
        }
        guard let tokens = try? llama.tokenize(text, addSpecial: llama.addsBeginningOfSequence), !tokens.isEmpty,
            tokens.count < model.contextSize, let context = try? model.borrowContext(for: tokens)
        else { return }
        _ = try? context.prepare(tokens)
        model.returnContext(context)
    }
}
