import FMTagging
import FoundationModels
import Testing

/// `--parallel` decodes several requests in one llama.cpp batch through the same decision code (masks, choice
/// scoring, the loop guard, the limits) as requests decoded one at a time, so greedy results match — except
/// where the batch's arithmetic (other matrix shapes, a larger cache) tips a near-tie the other way. Where two
/// results differ, the decision at which they part must have been a near-tie in both runs.
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
    ]

    /// The widest lead, in logits (or choice score), that batched arithmetic may overturn: llama.cpp's CPU
    /// kernels differ between batch shapes by far less.
    static let nearTie = 0.1

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

    /// The margin of the decision that wrote the first byte where `a` and `b` differ, the narrower of the two runs.
    private func marginAtDivergence(_ a: Tagged, _ b: Tagged) -> Double? {
        let left = Array(a.json.utf8), right = Array(b.json.utf8)
        let divergence = left.indices.first { $0 >= right.count || left[$0] != right[$0] } ?? left.count
        let margins = [a, b].compactMap { run in run.margins.last { $0.bytes <= divergence }?.margin }
        return margins.min()
    }

    private func compare(schema: GenerationSchema) async throws {
        _ = DefaultModel.model
        let tagger = Tagger(configuration: TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: schema))
        let sequential = try await tag(Self.titles, parallel: 1, with: tagger)
        let batched = try await tag(Self.titles, parallel: 4, with: tagger)
        var flips = 0
        for (index, pair) in zip(sequential, batched).enumerated() where pair.0.json != pair.1.json {
            flips += 1
            let margin = marginAtDivergence(pair.0, pair.1)
            #expect(margin.map { $0 < Self.nearTie } == true,
                    "\(Self.titles[index]): one at a time \(pair.0.json), batched \(pair.1.json), parted at a lead of \(margin.map { "\($0)" } ?? "?")")
        }
        print("parallel versus sequential, \(schema.root.typeName ?? "schema"): \(flips) of \(Self.titles.count) results differ, each at a near-tie")
    }

    @Test func contentTagsMatchOneAtATimeExceptNearTies() async throws {
        try await compare(schema: TaggingPreset.contentTagging.schema)
    }

    @Test func scoredChoicesMatchOneAtATimeExceptNearTies() async throws {
        // Enumerations and a Boolean: greedy decoding scores their whole values (choice points), calibrated.
        try await compare(schema: TaggingPreset.supportTicket.schema)
    }
}
