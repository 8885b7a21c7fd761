@testable import FoundationModels
import Foundation
import Testing

@Suite("Transcript rehydration with the real default model", .serialized, .timeLimit(.minutes(10)))
struct TranscriptTests {
    @Test func encodedTranscriptContinuesInANewSession() async throws {
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 16)
        let first = LanguageModelSession(model: DefaultModel.model, instructions: "You are a friendly assistant.")
        let response = try await first.respond(to: "My name is Alice. Say hello to me.", options: options)
        #expect(Array(response.transcriptEntries) == Array(first.transcript.dropFirst()))

        let data = try JSONEncoder().encode(first.transcript)
        let restored = try JSONDecoder().decode(Transcript.self, from: data)
        #expect(restored == first.transcript)

        let second = LanguageModelSession(model: DefaultModel.model, transcript: restored)
        let followUp = try await second.respond(to: "What is my name?", options: options)
        #expect(!followUp.content.isEmpty)
        #expect(Array(second.transcript.prefix(restored.count)) == Array(restored), "the new session continues the old conversation")
        #expect(second.transcript.count == restored.count + 2)

        // The follow-up saw the earlier turn: its prompt is longer than the same question asked fresh.
        let withHistory = try #require(second.lastStatistics?.promptTokens)
        let fresh = LanguageModelSession(model: DefaultModel.model, instructions: "You are a friendly assistant.")
        _ = try await fresh.respond(to: "What is my name?", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 1))
        let withoutHistory = try #require(fresh.lastStatistics?.promptTokens)
        #expect(withHistory > withoutHistory + 10)
    }
}
