import FoundationModels
@testable import MainActorSamples
import Testing

/// `@Generable` types from a module whose declarations belong to the main actor by default: their conformances
/// are usable away from the main actor, where sessions decode and build schemas.
struct MainActorSamplesTests {
    /// Decodes `json` as `T` and writes it back, in nonisolated generic code: with a main-actor-isolated
    /// conformance this would not compile.
    @concurrent private static func roundTrip<T: Generable>(_: T.Type, _ json: String) async throws -> (T, GeneratedContent) {
        let value = try T(GeneratedContent(json: json))
        return (value, value.generatedContent)
    }

    @MainActor @Test func aStructOfAMainActorModuleDecodesAndEncodesOffTheMainActor() async throws {
        let json = #"{"title":"Coast","nights":2,"stops":["Brest","Quimper"]}"#
        let (trip, content) = try await Self.roundTrip(WeekendTrip.self, json)
        #expect(trip == WeekendTrip(title: "Coast", nights: 2, stops: ["Brest", "Quimper"], note: nil))
        #expect(content == (try GeneratedContent(json: json)))
        let partial = try WeekendTrip.PartiallyGenerated(GeneratedContent(json: #"{"title":"Co"#))
        #expect(partial.title == "Co" && partial.nights == nil)
    }

    @MainActor @Test func enumsOfAMainActorModuleDecodeOffTheMainActor() async throws {
        let (mood, _) = try await Self.roundTrip(TravelMood.self, #""adventurous""#)
        #expect(mood == .adventurous)
        let (lodging, content) = try await Self.roundTrip(Lodging.self, #"{"hotel":{"name":"Ker Moor"}}"#)
        guard case .hotel(let name) = lodging else { Issue.record("decoded \(lodging)"); return }
        #expect(name == "Ker Moor")
        #expect(try Lodging(content).generatedContent == content)
    }

    /// The schema keeps the guides written in the main actor's module.
    @Test func theSchemaOfAMainActorModuleTypeKeepsItsGuides() throws {
        let schema = WeekendTrip.generationSchema.jsonSchemaString
        for part in [#""title""#, #""nights""#, #""stops""#, #""maxItems":3"#, "A weekend trip"] {
            #expect(schema.contains(part), "\(part) in \(schema)")
        }
        #expect(TripForecastTool.Arguments.generationSchema.jsonSchemaString.contains("The city"))
    }
}
