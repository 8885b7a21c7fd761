import FMTagging
import Foundation
import FoundationModels
import Testing

/// `--parallel` decodes several requests in one llama.cpp batch through the same decision code (masks, choice
/// scoring, the loop guard, the limits) as requests decoded one at a time, so greedy results match — except
/// where the batch's arithmetic tips a near-tie the other way.
///
/// That arithmetic is llama.cpp's: a ubatch holding tokens of several sequences computes attention along
/// another path than a ubatch of one sequence, and moves log-probabilities by a few tenths of a logit (measured
/// on the tiny model with plain `llama_decode` calls). How far it moves a decision is measured in the same run:
/// at every decision the two runs make alike, the difference between their margins (the chosen option's lead
/// over the runner-up). Where two results differ, the one-at-a-time run's lead at the decision where they part
/// must be within that reach: a decision it won by more than the arithmetic moves anything is not a near-tie.
///
/// "That reach" is the largest of: the biggest move seen, four standard deviations of the moves (estimated
/// robustly from their median), and one logit (a choice less than e ≈ 2.7 times as likely as its
/// runner-up). The biggest move alone is too tight: the decisions where the runs part are exactly those the
/// arithmetic moved most, so they sit in the tail of the moves, beyond the few dozen decisions the runs agree
/// on (one CI machine parted at a lead of 0.76 where the agreed decisions moved by at most 0.67). A broken batch
/// path (wrong sequence, mask or calibration) moves decisions by whole logits: it flips decisions won by more
/// than that, and it moves the typical decision by more than the half logit the median move must stay under
/// (measured: 0.10 to 0.20).
@Suite("Parallel versus sequential tagging with the real default model", .serialized, .timeLimit(.minutes(20)))
struct ParallelTaggingTests {
    /// Cooking questions from the labelled development data.
    static let titles = [
        "How can I fix a bitter raw leek soup?",
        "Compensating for extra moisture from cold flour",
        "How long should I cook pasta sauce?",
        "Are there books describing the general principles of cooking?",
        "Keeping Food Hot & Delicious",
        "Why did my caramel turn grainy?",
        "Can I freeze cooked rice?",
        "What is the difference between baking soda and baking powder?",
        "Is there a close substitution for shallots?",
        "Can Nutmeg be substituted in for Mace?",
        "Induction interface disk",
        "Why does my bread collapse in the oven?",
    ]

    /// One tagged text: the raw JSON and the margin of every greedy decision that produced it.
    struct Tagged {
        var json: String
        var margins: [(bytes: Int, margin: Double)]
    }

    /// Tags `texts` as `Tagger.tag(_:parallel:)` does — each the first request of its own session, up to
    /// `parallel` in flight — keeping each request's decision margins.
    private func tag(_ texts: [String], parallel: Int, with tagger: Tagger) async throws -> [Tagged] {
        let configuration = tagger.configuration
        return try await LanguageModelSession.$recordsDecisionMargins.withValue(true) {
            try await withThrowingTaskGroup(of: (Int, Tagged).self) { group in
                var results = [Tagged?](repeating: nil, count: texts.count)
                var next = 0
                func start(_ index: Int) {
                    group.addTask {
                        let session = LanguageModelSession(model: configuration.model, transcript: tagger.startingTranscript)
                        let response = try await session.respond(to: texts[index], schema: configuration.schema, options: configuration.options)
                        return (index, Tagged(json: response.rawContent.compactJSONString, margins: session.lastStatistics?.margins ?? []))
                    }
                }
                while next < min(parallel, texts.count) {
                    start(next)
                    next += 1
                }
                while let (index, tagged) = try await group.next() {
                    results[index] = tagged
                    if next < texts.count {
                        start(next)
                        next += 1
                    }
                }
                return results.map { $0! }
            }
        }
    }

    /// The decisions of two runs of one text, paired up to the one at which the runs part; `parting` is that
    /// decision, `nil` when the results are equal.
    ///
    /// The runs part at the last decision both made at the same point before the first byte where they differ:
    /// there they chose different tokens. Usually those tokens differ at that byte; but when both spelled the same
    /// text in different tokens (` extra` against ` ext`, `ra`), the next decisions fall at different points
    /// while the bytes still agree, and the parting is the last decision before that.
    private func pairedDecisions(_ a: Tagged, _ b: Tagged) -> (agreed: [(Double, Double)], parting: (Double, Double)?) {
        let left = Array(a.json.utf8), right = Array(b.json.utf8)
        guard left != right else { return (zip(a.margins, b.margins).map { ($0.margin, $1.margin) }, nil) }
        let divergence = left.indices.first { $0 >= right.count || left[$0] != right[$0] } ?? left.count
        let before = { (run: Tagged) in run.margins.filter { $0.bytes <= divergence } }
        let (first, second) = (before(a), before(b))
        var common = 0
        while common < min(first.count, second.count), first[common].bytes == second[common].bytes { common += 1 }
        guard common > 0 else { return ([], nil) }
        // Up to the parting decision both runs decided at the same points, with the same options.
        let agreed = zip(first.prefix(common - 1), second.prefix(common - 1)).map { ($0.margin, $1.margin) }
        return (agreed, (first[common - 1].margin, second[common - 1].margin))
    }

    /// The standard deviation of a zero-centred normal variable whose absolute values are `moves`, estimated from
    /// their median (the median of |X| is 0.6745 σ), which a few large moves in the tail do not inflate.
    static func robustStandardDeviation(_ moves: [Double]) -> Double {
        median(moves) / 0.6745
    }

    /// The median of `values` (0 for none).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    @Test func theRobustStandardDeviationComesFromTheMedian() {
        #expect(Self.robustStandardDeviation([]) == 0)
        #expect(abs(Self.robustStandardDeviation([0.1, 0.6745, 9]) - 1) < 1e-12)
        #expect(abs(Self.robustStandardDeviation([0.6745, 0.6745, 0, 100]) - 1) < 1e-12)
    }

    private func compare(schema: GenerationSchema) async throws {
        _ = DefaultModel.model
        let tagger = Tagger(configuration: TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: schema))
        let sequential = try await tag(Self.titles, parallel: 1, with: tagger)
        let batched = try await tag(Self.titles, parallel: 4, with: tagger)
        let pairs = zip(sequential, batched).map { pairedDecisions($0, $1) }
        // How far the batch's arithmetic moved a margin, at the decisions the runs made alike.
        let moves = pairs.flatMap { $0.agreed.map { abs($0.0 - $0.1) } }
        let largest = try #require(moves.max(), "the runs record their decision margins")
        let noise = max(largest, 4 * Self.robustStandardDeviation(moves), 1)
        let typical = Self.median(moves)
        #expect(typical < 0.5, "the batch's arithmetic moves a typical decision by a few tenths of a logit at most")
        var partings: [(lead: Double, move: Double)] = []
        for (index, pair) in zip(sequential, batched).enumerated() where pair.0.json != pair.1.json {
            // The leads of the two runs' choices add up to how far the arithmetic moved this decision.
            let parting = pairs[index].parting
            partings.append(parting.map { ($0.0, $0.0 + $0.1) } ?? (.nan, .nan))
            print("  \(Self.titles[index])\n    one at a time \(pair.0.json)\n    batched       \(pair.1.json)")
            #expect(parting.map { $0.0 <= noise } == true,
                    "\(Self.titles[index]): one at a time \(pair.0.json), batched \(pair.1.json), parted where the one-at-a-time lead was \(parting.map { "\($0.0)" } ?? "?"); the arithmetic moved margins by at most \(largest) elsewhere, so the near-tie bound was \(noise)")
        }
        print("parallel versus sequential, \(schema.root.typeName ?? "schema"): \(partings.count) of \(Self.titles.count) results differ "
              + "(one-at-a-time leads \(partings.map { String(format: "%.3f", $0.lead) }), moves \(partings.map { String(format: "%.3f", $0.move) })); "
              + String(format: "margins moved by median %.4f, max %.4f over %d agreed decisions; near-tie bound %.4f", typical, largest, moves.count, noise))
    }

    @Test func contentTagsMatchOneAtATimeExceptNearTies() async throws {
        try await compare(schema: TaggingPreset.contentTagging.schema)
    }

    @Test func scoredChoicesMatchOneAtATimeExceptNearTies() async throws {
        // Enumerations and a Boolean: greedy decoding scores their whole values (choice points), calibrated.
        try await compare(schema: TaggingPreset.supportTicket.schema)
    }
}
