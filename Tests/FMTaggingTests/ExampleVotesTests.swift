@testable import FMTagging
import FMDecoding
import FMEngine
import Foundation
import FoundationModels
import Testing

/// The examples' votes: the answers of a text's most similar examples, weighed by how well the examples predict
/// each other's answers.
struct ExampleVotesTests {
    private func example(_ id: String, _ text: String, _ json: String) throws -> ExampleIndex.Example {
        .init(id: id, text: text, result: try GeneratedContent(json: json))
    }

    /// Spam and personal messages whose words tell them apart.
    private func separable() throws -> [ExampleIndex.Example] {
        try [
            example("1", "WIN a free prize, call now to claim", #"{"label":"spam","urgent":true}"#),
            example("2", "Claim your free prize now, call today", #"{"label":"spam","urgent":true}"#),
            example("3", "Free entry to win a prize, text WIN now", #"{"label":"spam","urgent":false}"#),
            example("4", "You won a free cruise, call to claim the prize", #"{"label":"spam","urgent":false}"#),
            example("5", "Running late, see you at the station", #"{"label":"ham","urgent":true}"#),
            example("6", "See you at the station after work", #"{"label":"ham","urgent":false}"#),
            example("7", "Sorry, running late again, see you soon", #"{"label":"ham","urgent":true}"#),
            example("8", "Late train, see you at the station at six", #"{"label":"ham","urgent":false}"#),
        ]
    }

    @Test func examplesThatPredictEachOtherVoteAndOthersDoNot() throws {
        let index = ExampleIndex(examples: try separable(), shots: 0, votes: 3)
        // Every example's three nearest share its label: agreement 1 against a most common share of 1/2.
        #expect(index.voteWeights["label"] == ExampleIndex.maximumVoteWeight)
        // `urgent` follows no word: the neighbours predict it no better than its most common value.
        #expect(index.voteWeights["urgent"] == 0)
        let votes = try #require(index.choiceVotes(for: "Call now to claim your free prize"))
        let spam = votes.shares["label"]?[JSONText.quoted("spam")] ?? 0
        #expect(spam > 0.99, "\(votes.shares)")
        #expect(votes.votes(on: "label") && !votes.votes(on: "urgent"))
        // Without votes, or with shots only, there are none.
        #expect(ExampleIndex(examples: try separable(), shots: 2).choiceVotes(for: "free prize") == nil)
    }

    @Test func aTextNeverVotesForItselfAndUnrelatedExamplesDoNotVote() throws {
        let pool = try [
            example("a", "Free prize, call now", #"{"label":"spam"}"#),
            example("b", "free  PRIZE, call now", #"{"label":"ham"}"#),
            example("c", "Lunch at noon?", #"{"label":"ham"}"#),
        ]
        // `a` and `b` are the text itself (case and spacing aside), so they do not vote; `c` shares no word with it.
        let shares = ExampleIndex.shares(of: ExampleIndex(examples: pool, shots: 0, votes: 3)
            .nearest(to: "Free prize, call now", count: 3).map { (pool[$0.index].result, $0.score) })
        #expect(shares.isEmpty, "\(shares)")
    }

    @Test func listsSplitTheirVoteAndOtherValuesCastNone() throws {
        let shares = ExampleIndex.shares(of: [
            (try GeneratedContent(json: #"{"labels":["joy","love"],"score":4,"note":"x"}"#), 1),
            (try GeneratedContent(json: #"{"labels":["joy"],"score":5,"note":"y"}"#), 3),
        ])
        let labels = try #require(shares["labels"])
        #expect(abs((labels[JSONText.quoted("joy")] ?? 0) - 0.875) < 1e-12)
        #expect(abs((labels[JSONText.quoted("love")] ?? 0) - 0.125) < 1e-12)
        #expect(shares["score"] == nil, "a number is no choice")
        #expect(shares["note"]?[JSONText.quoted("y")] == 0.75, "a string may be one: the engine votes only where it chooses")
    }

    @Test func votesArePartOfTheCacheKey() throws {
        let model = SystemLanguageModel(useCase: .contentTagging)
        let schema = GenerationSchema(root: .object(.init(name: "Message", properties: [
            .init(name: "label", node: .enumeration(.init(name: "Label", choices: ["ham", "spam"]))),
        ])))
        func key(votes: Int) throws -> String {
            TaggingConfiguration(model: model, schema: schema, exampleIndex: ExampleIndex(examples: try separable(), shots: 0, votes: votes))
                .fingerprint
        }
        #expect(try key(votes: 3) != key(votes: 0))
        #expect(try !key(votes: 0).contains("votes="), "jobs without votes keep their keys")
    }

    @Test func votesThatTheEngineCouldNotUseRefuseTheJob() async throws {
        let schema = GenerationSchema(root: .object(.init(name: "Message", properties: [
            .init(name: "label", node: .enumeration(.init(name: "Label", choices: ["ham", "spam"]))),
        ])))
        let index = ExampleIndex(examples: try separable(), shots: 0, votes: 3)
        let greedy = TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: schema, exampleIndex: index)
        #expect(greedy.unsupportedVotes == nil)
        // Sampled answers are drawn token by token, where the votes never join.
        var sampled = greedy
        sampled.options = GenerationOptions(samplingMode: .random(top: 5), temperature: 0.8)
        #expect(sampled.unsupportedVotes?.code == TaggingFailure.unsupportedConfiguration)
        // A server decides its own answers.
        var remote = greedy
        remote.remoteEngines = RemoteEngines(models: [
            ChatCompletionsLanguageModel(endpoint: URL(string: "http://127.0.0.1:9")!, model: "default", enforcesSchemas: true),
        ])
        let failure = try #require(remote.unsupportedVotes)
        #expect(failure.stopsJob && failure.message.contains("remote"), "\(failure)")
        // The job is refused before any model is loaded or server asked: every text would fail alike.
        #expect(await Tagger(configuration: remote).tag("free prize") == .failure(failure))
        #expect(await Tagger(configuration: sampled).tag("free prize") == .failure(try #require(sampled.unsupportedVotes)))
        // Without votes the same options run (only the check is asked here: nothing is generated).
        var plain = sampled
        plain.exampleIndex = ExampleIndex(examples: try separable(), shots: 2)
        #expect(plain.unsupportedVotes == nil)
    }
}
