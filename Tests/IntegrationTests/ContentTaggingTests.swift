import Foundation
import FoundationModels
@testable import SeedTypes
import Testing

/// The `.contentTagging` use case with the real default model, on the example texts of Apple's content-tagging guide.
@Suite("Content tagging with the real default model", .serialized, .timeLimit(.minutes(10)))
struct ContentTaggingTests {
    static let tagger = SystemLanguageModel(useCase: .contentTagging)

    private func tags(_ input: String) async throws -> Seed000.ContentTaggingResult {
        _ = DefaultModel.model
        let session = LanguageModelSession(model: Self.tagger)
        return try await session.respond(to: input, generating: Seed000.ContentTaggingResult.self).content
    }

    /// Every list respects its maximum, and every tag is 1–3 lowercase words, unique within its list.
    private func checkShape(_ result: Seed000.ContentTaggingResult) {
        let lists: [([String], Int)] = [(result.actions, 2), (result.emotions, 3), (result.objects, 5), (result.topics, 2)]
        for (list, maximum) in lists {
            #expect(list.count <= maximum)
            #expect(Set(list).count == list.count, "duplicate tags in \(list)")
            for tag in list {
                #expect(tag == tag.lowercased() && !tag.isEmpty, "\(tag) is not lowercase")
                #expect((1...3).contains(tag.split(separator: " ").count), "\(tag) is not 1–3 words")
            }
        }
        #expect(!result.topics.isEmpty)
    }

    @Test func picnicSentence() async throws {
        let result = try await tags("Today we had a lovely picnic with friends at the beach.")
        checkShape(result)
        let all = (result.topics + result.objects + result.actions).joined(separator: " ")
        #expect(["picnic", "beach", "outdoor"].contains { all.contains($0) }, "\(result)")
    }

    @Test func groceryList() async throws {
        let result = try await tags("Grocery list: 1. Bread flour 2. Salt 3. Instant yeast")
        checkShape(result)
        let all = (result.topics + result.objects).joined(separator: " ")
        #expect(["grocer", "shopping", "food", "baking"].contains { all.contains($0) }, "\(result)")
        #expect(["bread", "flour", "yeast", "salt"].contains { all.contains($0) }, "\(result)")
    }

    @Test func plainRespondReturnsTagsNotAnAnswer() async throws {
        let session = LanguageModelSession(model: Self.tagger)
        let text = try await session.respond(to: "What is the capital of France?").content
        let tags = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect((1...3).contains(tags.count), "\(text)")
        for tag in tags {
            #expect(tag == tag.lowercased() && (1...3).contains(tag.split(separator: " ").count), "\(text)")
        }
        #expect(!text.lowercased().contains("the capital of france is"))
    }

    /// A text request cut short by `maximumResponseTokens` ends early with the tags so far, as any text response
    /// does, rather than failing because the tagging value underneath was left open.
    @Test func aTextRequestCutByItsTokenLimitEndsEarly() async throws {
        let session = LanguageModelSession(model: Self.tagger)
        let response = try await session.respond(to: "Today we had a lovely picnic with friends at the beach.",
                                                 options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 6))
        #expect(response.usage.output.totalTokenCount <= 6, "\(response.usage)")
        #expect(response.content == response.content.lowercased(), "\(response.content)")
    }

    /// The tagging preamble belongs to `.contentTagging` alone: a `.general` session sends its own
    /// instructions and prompt and nothing else, so its prompt is exactly their rendered conversation.
    @Test func generalUseCaseIsUnchanged() async throws {
        let model = DefaultModel.model
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 48)
        let instructions = "Answer in one short sentence."
        let general = LanguageModelSession(model: model, instructions: instructions)
        let response = try await general.respond(to: "Say hello.", options: options)
        #expect(!response.content.isEmpty)
        let tagging = LanguageModelSession(model: SystemLanguageModel(useCase: .contentTagging), instructions: instructions)
        let tagged = try await tagging.respond(to: "Say hello.", options: options)
        #expect(tagged.usage.input.totalTokenCount > response.usage.input.totalTokenCount + 10,
                "the tagging preamble is only in the tagging session's prompt")
        let bare = try await model.tokenCount(for: Instructions(instructions)) + model.tokenCount(for: Prompt("Say hello."))
        // Rendered separately, the two messages may each carry the template's start-of-text and default parts.
        #expect(response.usage.input.totalTokenCount <= bare + 8, "\(response.usage.input.totalTokenCount) against \(bare)")
    }
}
