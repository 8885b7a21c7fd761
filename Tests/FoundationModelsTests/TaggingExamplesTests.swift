import FMLlama
import Foundation
@testable import FoundationModels
import Testing

/// The content-tagging use case's built-in example turns, written for the requested schema.
struct TaggingExamplesTests {
    @Generable struct TopicsAndFeelings {
        @Guide(.maximumCount(2)) var topics: [String]
        var emotions: [String]
    }

    @Generable struct FeelingsRequired {
        @Guide(.minimumCount(1)) var emotions: [String]
        var objects: [String]
    }

    @Generable struct WithAChoice {
        var topics: [String]
        @Guide(.anyOf(["low", "high"])) var urgency: String
    }

    @Generable struct UnknownKind {
        var topics: [String]
        var colours: [String]
    }

    @Test func eachExampleIsAUserTurnAndAnAnswerInTheSchemasShape() throws {
        let messages = TaggingExamples.messages(for: TopicsAndFeelings.generationSchema)
        #expect(messages.count == 2 * TaggingExamples.examples.count)
        #expect(messages.map(\.role) == Array(repeating: ["user", "assistant"], count: TaggingExamples.examples.count).flatMap { $0 })
        #expect(messages.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element.content) == TaggingExamples.examples.map(\.text))
        for answer in messages.filter({ $0.role == "assistant" }) {
            // Compact JSON in declared order that decodes as the type, each list within its maximum.
            #expect(answer.content.hasPrefix(#"{"topics":["#))
            let value = try TopicsAndFeelings(GeneratedContent(json: answer.content))
            #expect((1...2).contains(value.topics.count))
        }
        let last = try TopicsAndFeelings(GeneratedContent(json: messages.last!.content))
        #expect(last.topics == ["hiking", "nature"] && last.emotions == ["joy", "awe"])
    }

    @Test func anExampleThatCannotMeetAMinimumIsLeftOut() throws {
        let messages = TaggingExamples.messages(for: FeelingsRequired.generationSchema)
        let withFeelings = TaggingExamples.examples.filter { !($0.tags[.emotions] ?? []).isEmpty }
        #expect(!withFeelings.isEmpty && withFeelings.count < TaggingExamples.examples.count)
        #expect(messages.filter { $0.role == "user" }.map(\.content) == withFeelings.map(\.text))
        for answer in messages.filter({ $0.role == "assistant" }) {
            #expect(try !FeelingsRequired(GeneratedContent(json: answer.content)).emotions.isEmpty)
        }
    }

    @Test func schemasWithOtherFieldsGetNoExamples() {
        #expect(TaggingExamples.messages(for: WithAChoice.generationSchema).isEmpty)
        #expect(TaggingExamples.messages(for: UnknownKind.generationSchema).isEmpty)
        #expect(TaggingExamples.messages(for: String.generationSchema).isEmpty)
    }

    @Test func propertyNamesMapToKindsWhateverTheirCase() {
        #expect(TaggingExamples.Kind.named("Topics") == .topics)
        #expect(TaggingExamples.Kind.named("feelings") == .emotions)
        #expect(TaggingExamples.Kind.named("LOCATIONS") == .places)
        #expect(TaggingExamples.Kind.named("colours") == nil)
    }
}
