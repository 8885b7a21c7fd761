import FoundationModels
@testable import MainActorSamples
import Testing

/// App code from a module whose declarations belong to the main actor by default, run with the real model: a
/// main-actor view model streams a `@Generable` value declared there, with a tool in its session.
@Suite("Main-actor app code with the real model", .timeLimit(.minutes(5)))
struct MainActorAppTests {
    @MainActor @Test func aMainActorViewModelStreamsAGeneratedTrip() async throws {
        let planner = TripPlanner()
        // Greedy with a cap: the small model's sampled strings can run on, which would only make the test slow.
        try await planner.plan("Plan two nights by the sea in Brittany.",
                               options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 300))
        let trip = try #require(planner.trip, "the stream delivered no snapshot")
        #expect(trip.title != nil)
        let nights = try #require(trip.nights, "the last snapshot is the whole trip")
        #expect((1...4).contains(nights))
        #expect(try #require(trip.stops).count <= 3)
        #expect(planner.session.transcript.count >= 3, "instructions, prompt and response are in the transcript")
    }
}
