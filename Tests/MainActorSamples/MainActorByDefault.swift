import FoundationModels

/// Code from a module built with main-actor default isolation (`.defaultIsolation(MainActor.self)`, what new
/// Xcode app targets turn on), where every declaration without an isolation of its own belongs to the main
/// actor. `@Generable` types written the usual way must still conform: `Generable` is used from any isolation
/// (sessions decode on their own), so the macro's conformances are `nonisolated`, as Apple's are. Compiling it
/// is most of the check; `MainActorSamplesTests` decodes these types away from the main actor, and
/// `MainActorAppTests` runs the view model with the real model.
@Generable(description: "A weekend trip")
struct WeekendTrip: Equatable {
    @Guide(description: "A short title")
    var title: String

    @Guide(.range(1...4))
    var nights: Int

    @Guide(.maximumCount(3))
    var stops: [String]

    var note: String?
}

@Generable
enum TravelMood: Equatable {
    case relaxed
    case adventurous
}

@Generable
enum Lodging {
    case hotel(name: String)
    case camping
}

/// A tool whose arguments are generated, declared in the main actor's module.
struct TripForecastTool: Tool {
    let name = "forecast"
    let description = "Gives the weather forecast for a city."

    @Generable
    struct Arguments {
        @Guide(description: "The city")
        var city: String
    }

    func call(arguments: Arguments) async throws -> String {
        "Sunny in \(arguments.city)"
    }
}

/// A view model as an app writes it: main-actor isolated, holding a session and a generated value.
final class TripPlanner {
    var trip: WeekendTrip.PartiallyGenerated?
    let session = LanguageModelSession(tools: [TripForecastTool()], instructions: "Plan short trips.")

    func plan(_ request: String, options: GenerationOptions = GenerationOptions()) async throws {
        let stream = session.streamResponse(to: request, generating: WeekendTrip.self, options: options)
        for try await snapshot in stream {
            trip = snapshot.content
        }
    }
}
