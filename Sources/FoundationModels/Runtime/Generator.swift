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
        if Self.logsPrompts { FileHandle.standardError.write(Data("--- prompt\n\(rendered)\n".utf8)) }
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

        var decoder = SequenceDecoder(job: job, model: model, promptTokens: promptTokens.count, reusedTokens: 0, pending: promptTokens)
        var isFirst = true

        func evaluatePending() throws(GenerationFailure) {
            do {
                if isFirst {
                    decoder.outcome.reusedTokens = try context.prepare(decoder.pending)
                    isFirst = false
                    prefilled = DispatchTime.now().uptimeNanoseconds
                } else {
                    try context.evaluate(decoder.pending)
                }
            } catch {
                if error.code == .contextFull {
                    throw .contextOverflow("The conversation reached the context window of \(model.contextSize) tokens.")
                }
                throw .runtime(error.description)
            }
            decoder.pending.removeAll(keepingCapacity: true)
        }

        func finished(_ stop: GenerationStop) -> GenerationOutcome {
            var result = decoder.outcome
            result.stop = stop
            let now = DispatchTime.now().uptimeNanoseconds
            result.prefillSeconds = Double(prefilled - started) / 1e9
            result.decodeSeconds = Double(now - prefilled) / 1e9
            return result
        }

        func reportIfGrown(from count: Int) {
            if decoder.outcome.bytes.count > count { progress?(decoder.outcome.bytes) }
        }

        while true {
            if isCancelled() { throw .cancelled }
            var reported = decoder.outcome.bytes.count
            // Before the first evaluation the context still holds another request's tokens, which
            // `prepare` replaces; only afterwards does the cache count toward the window.
            let stop = try decoder.prepareStep(cached: isFirst ? 0 : context.cachedTokens[0].count)
            reportIfGrown(from: reported)
            if let stop { return finished(stop) }
            try evaluatePending()

            reported = decoder.outcome.bytes.count
            // A choice among fixed values, decoded greedily: take the value with the most likely whole token
            // sequence rather than the one with the most likely first token.
            if job.sampling.strategy == .greedy, QualityLevers.scoresChoices, let points = job.choicePoints,
               var active = decoder.matcher,
               let tokens = try choose(points, output: decoder.outcome.bytes, matcher: &active, context: context) {
                decoder.acceptChosen(tokens, matcher: active)
                reportIfGrown(from: reported)
                continue
            }
            let token = context.withLogits { decoder.pickToken(from: $0) }
            if try decoder.accept(token) { return finished(.finished) }
            reportIfGrown(from: reported)
        }
    }
}

extension Generator {
    /// The tokens of the most likely candidate at a choice point, accepted by `matcher`; `nil` when `output`
    /// is not at a choice with several candidates the grammar allows (then the token is sampled as usual).
    ///
    /// Candidates are tokenized as the model would write them and scored together in one batched decode.
    /// Sets larger than ``ChoicePoints/maximumCandidates`` are decoded token by token.
    func choose(_ points: ChoicePoints, output: [UInt8], matcher: inout GrammarMatcher, context: LlamaContext) throws(GenerationFailure) -> [Int32]? {
        guard let remainders = points.remainders(after: output) else { return nil }
        var candidates: [(tokens: [Int32], matcher: GrammarMatcher)] = []
        for remainder in remainders {
            guard let text = String(validating: remainder, as: UTF8.self),
                  let tokens = try? model.llama.tokenize(text, addSpecial: false, parseSpecial: false), !tokens.isEmpty
            else { continue }
            var trial = matcher
            guard tokens.allSatisfy({ trial.accept(token: Int($0)) }) else { continue }
            candidates.append((tokens, trial))
        }
        // Measured on the labelled data: whole-value scoring helps small label sets and hurts large ones
        // (cut down to the likeliest first tokens, it favoured short labels), so large sets stay token by token.
        guard (2...ChoicePoints.maximumCandidates).contains(candidates.count) else { return nil }
        guard candidates.reduce(0, { $0 + $1.tokens.count - 1 }) <= context.batchSize else { return nil }
        let scores: [Double]
        do { scores = try context.logLikelihoods(of: candidates.map(\.tokens), after: 0) } catch {
            throw .runtime("Scoring the candidate values failed: \(error.description)")
        }
        guard let best = scores.indices.max(by: { scores[$0] < scores[$1] }) else { return nil }
        matcher = candidates[best].matcher
        return candidates[best].tokens
    }

    /// `FM_LOG_PROMPTS=1` writes every rendered prompt to standard error (for debugging prompts).
    static let logsPrompts = ProcessInfo.processInfo.environment["FM_LOG_PROMPTS"] == "1"
}

/// A flag the cancellation handler sets and the token loop polls.
final class CancellationFlag: Sendable {
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
