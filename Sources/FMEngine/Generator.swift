import FMDecoding
package import FMLlama
import Foundation

/// The decisions of the token loop that need the model and a context: whole-value choice scoring.
///
/// ``Engine`` runs every job's loop and calls in here for each job at a choice point.
package struct Generator {
    let model: LoadedModel
}

extension Generator {
    /// A value that may be chosen: its JSON literal, its tokens, and the grammar state after them.
    typealias Candidate = (literal: [UInt8], tokens: [Int32], matcher: GrammarMatcher)

    /// The tokens of the most likely candidate at a choice point, accepted by `matcher`; `nil` when `output`
    /// is not at a choice with several candidates the grammar allows (then the token is sampled as usual).
    ///
    /// Candidates are tokenized as the model would write them and scored together in batched decodes; a
    /// candidate's score combines its token log-probabilities (``QualityLevers/ChoiceScore``) and, with a
    /// calibration table, subtracts the prior's score (``ChoiceCalibration``). Sets larger than
    /// ``ChoicePoints/maximumCandidates`` are first cut to a shortlist by their calibrated first-token
    /// likelihood. A recording (calibration) run scores every candidate and records the scores. Candidates
    /// run in `spares` on copies of `sequence`'s cache, under the job's `levers`. With the channel lever on, the
    /// user's `text` is also scored after each candidate (``channelScores(property:literals:text:context:spares:)``).
    /// With `FM_LOG_CHOICES=1` each scored choice is written to standard error (``ChoiceLogEntry``). A job's
    /// `votes` are mixed into the calibrated scores last (``ChoiceVotes``).
    func choose(
        _ points: ChoicePoints, output: [UInt8], matcher: inout GrammarMatcher, context: LlamaContext,
        calibration: ChoiceCalibration?, recorder: CalibrationRecorder?, levers: QualityLevers, sequence: Int, spares: [Int],
        text: String? = nil, votes: ChoiceVotes? = nil, margin: ((Double) -> Void)? = nil
    ) throws(GenerationFailure) -> [Int32]? {
        guard let open = points.open(after: output) else { return nil }
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
        if recorder == nil, candidates.count > levers.shortlistSize {
            guard levers.shortlistsLargeChoiceSets else { return nil }
            let kept = shortlist(candidates, size: levers.shortlistSize, site: open.site, context: context, sequence: sequence,
                                 calibration: calibration, weight: levers.calibrationWeight)
            // A label the examples vote for is scored whole even when its first token did not make the list.
            let shares = votes?.liveShares(on: open.site.property, earlier: open.earlier) ?? [:]
            let voted = candidates.filter { candidate in
                (shares[candidate.literal] ?? 0) > 0 && !kept.contains { $0.literal == candidate.literal }
            }
            candidates = kept + voted
        }
        let tokenScores: [[Double]]
        do { tokenScores = try context.tokenLogProbabilities(of: candidates.map(\.tokens), after: sequence, spares: spares) } catch {
            if error.code == .contextFull { throw .contextOverflow("No room was left in the context to score the candidate values.") }
            throw .runtime("Scoring the candidate values failed: \(error.description)")
        }
        if ChoiceLogEntry.isEnabled {
            ChoiceLogEntry(
                calibration: recorder != nil, property: open.site.property, written: String(decoding: open.site.written, as: UTF8.self),
                text: text ?? "",
                candidates: zip(candidates, tokenScores).map { .init(value: String(decoding: $0.literal, as: UTF8.self), tokens: $1) }
            ).write()
        }
        let weight = Self.priorWeight(choosingAmong: open.literals, calibration: calibration, levers: levers)
        var scores: [Double] = []
        for (candidate, tokens) in zip(candidates, tokenScores) {
            recorder?.record(site: open.site, literal: candidate.literal, scores: tokens)
            var score = Self.combine(tokens, levers.choiceScore)
            if let prior = calibration?.prior(at: open.site, literal: candidate.literal), prior.count == tokens.count {
                score -= weight * Self.combine(prior, levers.choiceScore)
            }
            scores.append(score)
        }
        // The channel's scores, when measured, join or replace the direct ones; they are calibrated apart.
        if levers.channel != .off, let text,
           let channel = channelScores(property: open.site.property, literals: candidates.map(\.literal), text: text,
                                       context: context, spares: spares) {
            let site = Self.channelSite(open.site)
            for index in candidates.indices {
                recorder?.record(site: site, literal: candidates[index].literal, scores: [channel[index]])
                var score = channel[index]
                if let prior = calibration?.prior(at: site, literal: candidates[index].literal)?.first {
                    score -= weight * prior
                }
                scores[index] = levers.channel == .only ? score : scores[index] + score
            }
        }
        if recorder == nil, let votes {
            scores = votes.mixed(scores, literals: candidates.map(\.literal), property: open.site.property, earlier: open.earlier)
        }
        guard let best = scores.indices.max(by: { scores[$0] < scores[$1] }) else { return nil }
        if let margin, let runnerUp = scores.indices.filter({ $0 != best }).map({ scores[$0] }).max() { margin(scores[best] - runnerUp) }
        matcher = candidates[best].matcher
        return candidates[best].tokens
    }

    /// How much of the prior a choice among `literals` divides out: the levers' ``QualityLevers/calibrationWeight``;
    /// for a Bool field, half of it when the prior was read from its job's own texts and none otherwise
    /// (``QualityLevers/discountsBooleanPriors``).
    static func priorWeight(choosingAmong literals: [[UInt8]], calibration: ChoiceCalibration?, levers: QualityLevers) -> Double {
        guard levers.discountsBooleanPriors, ChoicePoints.areBooleans(literals) else {
            return levers.calibrationWeight
        }
        return calibration?.isFromJobTexts == true ? levers.calibrationWeight / 2 : 0
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
        _ candidates: [Candidate], size: Int, site: ChoicePoints.Site, context: LlamaContext, sequence: Int, calibration: ChoiceCalibration?,
        weight: Double
    ) -> [Candidate] {
        let firstScores: [Double] = context.withLogits(sequence: sequence) { logits in
            let maximum = Double(logits.max() ?? 0)
            var sum = 0.0
            for value in logits { sum += exp(Double(value) - maximum) }
            let normalizer = maximum + log(sum)
            return candidates.map { candidate in
                var score = Double(logits[Int(candidate.tokens[0])]) - normalizer
                if let prior = calibration?.prior(at: site, literal: candidate.literal)?.first { score -= weight * prior }
                return score
            }
        }
        let order = candidates.indices.sorted { firstScores[$0] > firstScores[$1] }
        var kept: [Int] = []
        for index in order {
            if kept.count >= size {
                // Keep whole groups of one first token, within a bound.
                guard kept.count < 2 * size,
                      candidates[index].tokens[0] == candidates[kept.last!].tokens[0] else { break }
            }
            kept.append(index)
        }
        return kept.map { candidates[$0] }
    }

    /// `FM_LOG_PROMPTS=1` writes every rendered prompt to standard error (for debugging prompts).
    static let logsPrompts = ProcessInfo.processInfo.environment["FM_LOG_PROMPTS"] == "1"
}

extension Generator {
    /// The text a prewarm evaluates: the rendered instructions, and the start of a user message made of
    /// `userPrefix` if given; `nil` when there is nothing to evaluate.
    package static func prefillText(messages: [ChatMessage], userPrefix: String?, llama: LlamaModel) -> String? {
        if let userPrefix, !userPrefix.isEmpty {
            // Render a user message made of the prefix and cut right after it: the template's closing tokens
            // would not match the real prompt's continuation.
            let rendered = llama.renderChat(messages + [ChatMessage(role: "user", content: userPrefix)], addAssistantPrefix: false)
            guard let range = rendered.range(of: userPrefix, options: .backwards) else { return nil }
            return String(rendered[..<range.upperBound])
        }
        guard !messages.isEmpty else { return nil }
        return llama.renderChat(messages, addAssistantPrefix: false)
    }
}
