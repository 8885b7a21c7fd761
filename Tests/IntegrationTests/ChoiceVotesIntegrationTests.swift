import FMDecoding
import FMEngine
import Foundation
import FoundationModels
import Testing

/// The votes of similar examples reach the engine's choice scoring: bound around a request, they are mixed into
/// its whole-value choices by their weight, also for labels a shortlist would have left out.
@Suite("Votes of similar examples in choice scoring", .serialized, .timeLimit(.minutes(10)))
struct ChoiceVotesIntegrationTests {
    private static let topics = ["astronomy", "banking", "cooking", "football", "gardening"]
    private static let topicSchema = GenerationSchema(root: .object(.init(name: "Text", properties: [
        .init(name: "topic", node: .enumeration(.init(name: "Topic", choices: topics))),
    ])))

    private func answer(_ text: String, schema: GenerationSchema, property: String, votes: ChoiceVotes?,
                        levers: QualityLevers = QualityLevers.current) async throws -> String {
        let session = LanguageModelSession(model: SystemLanguageModel(useCase: .contentTagging))
        let response = try await QualityLevers.$current.withValue(levers) {
            try await ChoiceVotes.$current.withValue(votes) {
                try await session.respond(to: text, schema: schema, options: GenerationOptions(samplingMode: .greedy))
            }
        }
        return try response.content.value(String.self, forProperty: property)
    }

    @Test func votesMoveTheAnswerByTheirWeight() async throws {
        _ = DefaultModel.model
        let text = "WIN a free prize! Call 09061 now to claim your cash."
        let schema = BatchCalibrationTests.schema
        let own = try await answer(text, schema: schema, property: "label", votes: nil)
        let other = own == "spam" ? "ham" : "spam"
        let shares = ["label": [JSONText.quoted(other): 1.0]]
        // All the weight on the votes decides for them; none leaves the model's answer.
        #expect(try await answer(text, schema: schema, property: "label",
                                 votes: ChoiceVotes(shares: shares, weights: ["label": 1])) == other)
        #expect(try await answer(text, schema: schema, property: "label",
                                 votes: ChoiceVotes(shares: shares, weights: ["label": 0])) == own)
        // Votes on another property leave this one alone.
        #expect(try await answer(text, schema: schema, property: "label",
                                 votes: ChoiceVotes(shares: ["topic": shares["label"]!], weights: ["topic": 1])) == own)
    }

    @Test func aVotedLabelIsScoredEvenWhenTheShortlistLeavesItOut() async throws {
        _ = DefaultModel.model
        // A shortlist of two among five topics keeps the model's own answer and leaves at least one other topic
        // out, so every other topic winning on its votes shows a voted label is added and scored.
        var levers = QualityLevers.current
        levers.shortlistSize = 2
        let text = "We baked sourdough bread and roasted vegetables for dinner."
        let own = try await answer(text, schema: Self.topicSchema, property: "topic", votes: nil, levers: levers)
        for topic in Self.topics where topic != own {
            let votes = ChoiceVotes(shares: ["topic": [JSONText.quoted(topic): 1]], weights: ["topic": 1])
            #expect(try await answer(text, schema: Self.topicSchema, property: "topic", votes: votes, levers: levers) == topic)
        }
    }
}
