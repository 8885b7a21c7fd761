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
        progress: (([UInt8]) -> Void)?,
        recorder: CalibrationRecorder? = nil
    ) throws(GenerationFailure) -> GenerationOutcome {
        let llama = model.llama
        let levers = QualityLevers.current
        let scoresChoices = job.sampling.strategy == .greedy && levers.scoresChoices && job.choicePoints != nil
        // The content-free runs that calibrate choices happen before this request borrows its context.
        let calibration = scoresChoices && levers.calibratesChoices && recorder == nil
            ? try calibration(for: job, isCancelled: isCancelled) : nil
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
            if scoresChoices, let points = job.choicePoints, var active = decoder.matcher,
               let tokens = try choose(points, output: decoder.outcome.bytes, matcher: &active, context: context,
                                       calibration: calibration, recorder: recorder) {
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
    /// A value that may be chosen: its JSON literal, its tokens, and the grammar state after them.
    typealias Candidate = (literal: [UInt8], tokens: [Int32], matcher: GrammarMatcher)

    /// The most candidates a shortlist keeps for whole-value scoring (more when the cut falls inside a group
    /// of candidates that share their first token, up to twice this).
    static let shortlistSize = 16

    /// The tokens of the most likely candidate at a choice point, accepted by `matcher`; `nil` when `output`
    /// is not at a choice with several candidates the grammar allows (then the token is sampled as usual).
    ///
    /// Candidates are tokenized as the model would write them and scored together in batched decodes; a
    /// candidate's score combines its token log-probabilities (``QualityLevers/ChoiceScore``) and, with a
    /// calibration table, subtracts the same score for content-free inputs. Sets larger than
    /// ``ChoicePoints/maximumCandidates`` are first cut to a shortlist by their calibrated first-token
    /// likelihood. A recording (content-free) run scores every candidate and records the scores.
    func choose(
        _ points: ChoicePoints, output: [UInt8], matcher: inout GrammarMatcher, context: LlamaContext,
        calibration: ChoiceCalibration?, recorder: CalibrationRecorder?
    ) throws(GenerationFailure) -> [Int32]? {
        guard let open = points.open(after: output) else { return nil }
        let levers = QualityLevers.current
        var candidates: [Candidate] = []
        for (literal, remainder) in zip(open.literals, open.remainders) {
            guard let text = String(validating: remainder, as: UTF8.self),
                  let tokens = try? model.llama.tokenize(text, addSpecial: false, parseSpecial: false), !tokens.isEmpty,
                  tokens.count <= context.batchSize
            else { continue }
            var trial = matcher
            guard tokens.allSatisfy({ trial.accept(token: Int($0)) }) else { continue }
            candidates.append((literal, tokens, trial))
        }
        guard candidates.count >= 2 else { return nil }
        // An array that may still close here is the model's call, not a choice among elements.
        if open.site.written.isEmpty, output.last == UInt8(ascii: "["), let close = try? model.llama.tokenize("]", addSpecial: false, parseSpecial: false),
           close.count == 1 {
            var trial = matcher
            if trial.accept(token: Int(close[0])) { return nil }
        }
        if recorder == nil, candidates.count > ChoicePoints.maximumCandidates {
            guard levers.shortlistsLargeChoiceSets else { return nil }
            candidates = shortlist(candidates, site: open.site, context: context, calibration: calibration)
        }
        let tokenScores: [[Double]]
        do { tokenScores = try context.tokenLogProbabilities(of: candidates.map(\.tokens), after: 0) } catch {
            throw .runtime("Scoring the candidate values failed: \(error.description)")
        }
        var scores: [Double] = []
        for (candidate, tokens) in zip(candidates, tokenScores) {
            recorder?.record(site: open.site, literal: candidate.literal, scores: tokens)
            var score = Self.combine(tokens, levers.choiceScore)
            if let prior = calibration?.prior(at: open.site, literal: candidate.literal), prior.count == tokens.count {
                score -= Self.combine(prior, levers.choiceScore)
            }
            scores.append(score)
        }
        guard let best = scores.indices.max(by: { scores[$0] < scores[$1] }) else { return nil }
        matcher = candidates[best].matcher
        return candidates[best].tokens
    }

    /// One candidate's score from its token log-probabilities.
    static func combine(_ tokens: [Double], _ method: QualityLevers.ChoiceScore) -> Double {
        let total = tokens.reduce(0, +)
        switch method {
        case .total: return total
        case .mean: return total / Double(max(1, tokens.count))
        // Candidates that share a first token tie on it; their totals break the tie.
        case .first: return (tokens.first ?? 0) + 1e-6 * total
        }
    }

    /// The candidates with the best calibrated first-token log-probability, read from the fresh logits.
    private func shortlist(
        _ candidates: [Candidate], site: ChoicePoints.Site, context: LlamaContext, calibration: ChoiceCalibration?
    ) -> [Candidate] {
        let firstScores: [Double] = context.withLogits { logits in
            let maximum = Double(logits.max() ?? 0)
            var sum = 0.0
            for value in logits { sum += exp(Double(value) - maximum) }
            let normalizer = maximum + log(sum)
            return candidates.map { candidate in
                var score = Double(logits[Int(candidate.tokens[0])]) - normalizer
                if let prior = calibration?.prior(at: site, literal: candidate.literal)?.first { score -= prior }
                return score
            }
        }
        let order = candidates.indices.sorted { firstScores[$0] > firstScores[$1] }
        var kept: [Int] = []
        for index in order {
            if kept.count >= Self.shortlistSize {
                // Keep whole groups of one first token, within a bound.
                guard kept.count < 2 * Self.shortlistSize,
                      candidates[index].tokens[0] == candidates[kept.last!].tokens[0] else { break }
            }
            kept.append(index)
        }
        return kept.map { candidates[$0] }
    }

    /// The calibration table for a job: cached per model, constraint and instructions, else computed now by
    /// running the job on each content-free input and recording every choice's scores.
    ///
    /// The content-free runs see the instructions (the leading system messages) and not the turns between
    /// them and the text: few-shot examples picked per text would otherwise make every text pay for three
    /// more generations, and the cache would grow by one table per text.
    func calibration(for job: GenerationJob, isCancelled: () -> Bool) throws(GenerationFailure) -> ChoiceCalibration? {
        guard let constraint = job.constraint, let last = job.messages.last, last.role == "user" else { return nil }
        let instructions = Array(job.messages.dropLast().prefix { $0.role == "system" })
        let prefix = instructions.map { $0.role + "\u{1F}" + $0.content }.joined(separator: "\u{1E}")
        let key = "\(ObjectIdentifier(constraint))\u{1D}\(prefix)"
        if let cached = model.calibration(forKey: key) { return cached }
        var calibration = ChoiceCalibration()
        for (runs, text) in ChoiceCalibration.contentFreeTexts.enumerated() {
            var contentFree = job
            contentFree.messages = instructions + [ChatMessage(role: "user", content: text)]
            contentFree.maximumTokens = nil
            let recorder = CalibrationRecorder()
            do {
                _ = try generate(contentFree, isCancelled: isCancelled, progress: nil, recorder: recorder)
            } catch .cancelled {
                throw .cancelled
            } catch {
                // A content-free run that fails (say, it hits the window) calibrates nothing.
                continue
            }
            calibration.add(recorder.scores, runs: runs)
        }
        model.storeCalibration(calibration, forKey: key)
        return calibration
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
