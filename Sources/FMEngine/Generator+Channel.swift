import FMDecoding
import FMLlama
import Foundation

/// Channel scoring: a fixed answer judged by how well it explains the text, `log p(text | label)`, instead of
/// how likely the model is to write it after the text (Min et al., "Noisy channel language model prompting for
/// few-shot text classification", 2022).
///
/// A small model asked for a label leans on the label's name: it reads a prize notice as `ham` because the
/// word says little to it. Asked to write a text whose label is `spam`, the same model finds the prize notice
/// far more likely than under `ham`. Each candidate costs one evaluation of the text, so only small label sets
/// of short texts are scored this way.
extension Generator {
    /// The most candidates a choice may have for channel scoring.
    static let channelCandidateLimit = 4
    /// The longest text, in tokens, that channel scoring evaluates once per candidate.
    static let channelTextLimit = 256

    /// The site under which a choice's channel scores are calibrated: its value site, marked as a channel.
    static func channelSite(_ site: ChoicePoints.Site) -> ChoicePoints.Site {
        var channel = site
        channel.channel = true
        return channel
    }

    /// Each candidate's centred channel score — `log p(text | label)` minus the mean over the candidates — or
    /// `nil` when the choice is too large, the text too long, or the context has no room.
    ///
    /// The text is evaluated after a one-line request naming the property and the label, once per candidate,
    /// in spare sequences: the first holds the part all requests share, the others score the rest.
    func channelScores(property: String, literals: [[UInt8]], text: String, context: LlamaContext, spares: [Int]) -> [Double]? {
        guard literals.count <= Self.channelCandidateLimit, spares.count > literals.count else { return nil }
        let llama = model.llama
        var requests: [[Int32]] = []
        var textCounts: [Int] = []
        for literal in literals {
            let label = Self.label(of: literal)
            let request = llama.renderChat([ChatMessage(role: "user", content: "Write a text whose \(property) is \"\(label)\".")],
                                           addAssistantPrefix: true)
            guard let head = try? llama.tokenize(request, addSpecial: llama.addsBeginningOfSequence, parseSpecial: true),
                  let whole = try? llama.tokenize(request + text, addSpecial: llama.addsBeginningOfSequence, parseSpecial: true)
            else { return nil }
            // The text's tokens: those after the longest common start with the request alone.
            var cut = 0
            while cut < min(head.count, whole.count), head[cut] == whole[cut] { cut += 1 }
            guard whole.count - cut > 0, whole.count - cut <= Self.channelTextLimit else { return nil }
            requests.append(whole)
            textCounts.append(whole.count - cut)
        }
        var shared = 0
        while requests.allSatisfy({ $0.count > shared + 1 && $0[shared] == requests[0][shared] }) { shared += 1 }
        guard shared > 0 else { return nil }
        let base = spares[0]
        defer { context.truncate(sequence: base, to: 0) }
        let scores: [[Double]]
        do {
            try context.prepare(Array(requests[0][..<shared]), sequence: base)
            scores = try context.tokenLogProbabilities(of: requests.map { Array($0[shared...]) }, after: base, spares: Array(spares.dropFirst()))
        } catch {
            // No room for the extra sequences: the choice is decided without the channel.
            return nil
        }
        let totals = zip(scores, textCounts).map { tokens, count in tokens.suffix(count).reduce(0, +) }
        let mean = totals.reduce(0, +) / Double(totals.count)
        return totals.map { $0 - mean }
    }

    /// A candidate's value as the request names it: a string literal without its quotes and escapes, `true`.
    static func label(of literal: [UInt8]) -> String {
        (try? JSONDecoder().decode(String.self, from: Data(literal))) ?? String(decoding: literal, as: UTF8.self)
    }
}
