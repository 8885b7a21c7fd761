import FoundationModels

extension SessionPropertyValues {
    @SessionPropertyEntry var travelerName: String = "traveler"
    @SessionPropertyEntry var prefersTrains: Bool = false
}

/// Instructions that read session properties and add a tool only when it applies.
struct TravelInstructions: DynamicInstructions {
    @SessionProperty(\.travelerName) var name
    @SessionProperty(\.prefersTrains) var prefersTrains
    let rules: [String]

    var body: some DynamicInstructions {
        Instructions("You plan trips for \(name).")
        ForEach(rules, id: \.self) { rule in
            Instructions(rule)
        }
        if prefersTrains {
            Instructions("Prefer trains to flights.")
            TimetableTool()
        }
    }
}

struct TimetableTool: Tool {
    let name = "timetable"
    let description = "Looks up train departures."

    @Generable
    struct Arguments {
        var from: String
        var to: String
    }

    func call(arguments: Arguments) async throws -> String {
        "Trains from \(arguments.from) to \(arguments.to) leave every hour."
    }
}

/// A profile that switches setups with a property and logs what happens.
struct TravelProfile: LanguageModelSession.DynamicProfile {
    @SessionProperty(\.prefersTrains) var prefersTrains

    var body: some DynamicProfile {
        if prefersTrains {
            Profile { TravelInstructions(rules: ["Mention journey times."]) }
                .temperature(0.3)
                .toolCallingMode(.allowed)
                .onToolCall { call in print("calling \(call.toolName)") }
                .onActivate { print("train mode on") }
        } else {
            Profile { Instructions("You plan trips.") }
                .samplingMode(.greedy)
                .maximumResponseTokens(300)
                .historyTransform { Array($0.suffix(6)) }
                .transcriptErrorHandlingPolicy(.preserveTranscript)
                .onResponse { response in print("answered with \(response.segments.count) segments") }
        }
    }
}

/// A reusable modifier.
struct Concise: LanguageModelSession.DynamicProfileModifier {
    func body(content: Content) -> some DynamicProfile {
        content.maximumResponseTokens(120).reasoningLevel(nil)
    }
}

func planWithProfiles(model: some LanguageModel) async throws -> String {
    let session = LanguageModelSession(profile: TravelProfile().modifier(Concise()).model(model))
    session.properties.prefersTrains = true
    session.properties.travelerName = "Ada"
    let plan = try await session.respond(to: "Plan a weekend in Vienna.")
    print(session.properties.history.count, session.properties.rootDynamicInstructions)
    return plan.content
}

func planWithDynamicInstructions() async throws -> String {
    let session = LanguageModelSession(dynamicInstructions: TravelInstructions(rules: []))
    let tools = [AnyTool(TimetableTool())]
    print(tools.map(\.name))
    return try await session.respond(to: "How do I get from Graz to Vienna?").content
}

@Generable(name: "Itinerary", description: "A day by day plan")
struct ItineraryV2 {
    var days: [String]
}
