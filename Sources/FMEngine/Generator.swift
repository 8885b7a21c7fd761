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
    /// The tokens of the most likely candidate at a choice point, accepted by `matcher`; `nil` when `output`
    /// is not at a choice with several candidates the grammar allows (then the token is sampled as usual).
    ///
    /// Candidates are tokenized as the model would write them and scored together in one batched decode, in
    /// `spares` on copies of `sequence`'s cache. Sets larger than ``ChoicePoints/maximumCandidates`` are decoded
    /// token by token.
    func choose(
        _ points: ChoicePoints, output: [UInt8], matcher: inout GrammarMatcher, context: LlamaContext, sequence: Int, spares: [Int]
    ) throws(GenerationFailure) -> [Int32]? {
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
        do { scores = try context.logLikelihoods(of: candidates.map(\.tokens), after: sequence, spares: spares) } catch {
            throw .runtime("Scoring the candidate values failed: \(error.description)")
        }
        guard let best = scores.indices.max(by: { scores[$0] < scores[$1] }) else { return nil }
        matcher = candidates[best].matcher
        return candidates[best].tokens
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
