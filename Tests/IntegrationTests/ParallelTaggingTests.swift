import FMTagging
import FoundationModels
import Testing

/// `--parallel` decodes several requests in one llama.cpp batch through the same decision code (masks, choice
/// scoring, the loop guard, the limits) as requests decoded one at a time, so greedy results match.
@Suite("Parallel versus sequential tagging with the real default model", .serialized, .timeLimit(.minutes(15)))
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

    private func tagger(schema: GenerationSchema) -> Tagger {
        Tagger(configuration: TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: schema))
    }

    private func rendered(_ results: [Result<GeneratedContent, TaggingFailure>]) -> [String] {
        results.map { result in
            switch result {
            case .success(let content): content.jsonString
            case .failure(let failure): "error \(failure.code)"
            }
        }
    }

    @Test func contentTagsMatchOneAtATime() async throws {
        _ = DefaultModel.model
        let tagger = tagger(schema: TaggingPreset.contentTagging.schema)
        let sequential = rendered(await tagger.tag(Self.titles, parallel: 1))
        let batched = rendered(await tagger.tag(Self.titles, parallel: 4))
        #expect(!sequential.contains { $0.hasPrefix("error") }, "\(sequential)")
        for (index, pair) in zip(sequential, batched).enumerated() {
            #expect(pair.0 == pair.1, "\(Self.titles[index]): one at a time \(pair.0), batched \(pair.1)")
        }
    }

    @Test func scoredChoicesMatchOneAtATime() async throws {
        _ = DefaultModel.model
        // An enumeration and a Boolean: greedy decoding scores their whole values (choice points).
        let schema = TaggingPreset.supportTicket.schema
        let tagger = tagger(schema: schema)
        let sequential = rendered(await tagger.tag(Self.titles, parallel: 1))
        let batched = rendered(await tagger.tag(Self.titles, parallel: 4))
        #expect(!sequential.contains { $0.hasPrefix("error") }, "\(sequential)")
        for (index, pair) in zip(sequential, batched).enumerated() {
            #expect(pair.0 == pair.1, "\(Self.titles[index]): one at a time \(pair.0), batched \(pair.1)")
        }
    }
}
