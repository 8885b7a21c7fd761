import Foundation
import FoundationModels
import Synchronization
import Testing

extension SessionPropertyValues {
    @SessionPropertyEntry var isPremiumUser: Bool = false
    @SessionPropertyEntry var customerName: String = "guest"
    @SessionPropertyEntry var visits: Int?
}

/// Instructions that change with the session's properties.
struct ConciergeInstructions: DynamicInstructions {
    @SessionProperty(\.isPremiumUser) var isPremium
    @SessionProperty(\.customerName) var name

    var body: some DynamicInstructions {
        Instructions("You are a concierge. Greet \(name).")
        if isPremium {
            Instructions("Offer lounge access.")
            CityWeather()
        }
    }
}

/// A profile whose branch, options and hooks depend on the session's properties.
struct ConciergeProfile: LanguageModelSession.DynamicProfile {
    let model: ScriptedModel
    let events: EventLog

    @SessionProperty(\.isPremiumUser) var isPremium

    var body: some DynamicProfile {
        if isPremium {
            Profile { ConciergeInstructions() }
                .temperature(0.2)
                .onActivate { events.append("premium on") }
                .onDeactivate { events.append("premium off") }
                .model(model)
        } else {
            Profile { Instructions("You are a concierge.") }
                .maximumResponseTokens(50)
                .historyTransform { entries in entries.filter { if case .response = $0 { false } else { true } } }
                .onPrompt { prompt in events.append("prompt: \(prompt.segments.map(\.description).joined())") }
                .onResponse { _ in events.append("response") }
                .model(model)
        }
    }
}

/// A modifier made of other modifiers.
struct Careful: LanguageModelSession.DynamicProfileModifier {
    func body(content: Content) -> some DynamicProfile {
        content.samplingMode(.greedy).toolCallingMode(.disallowed)
    }
}

/// A list of what hooks saw.
final class EventLog: Sendable {
    private let events = Mutex<[String]>([])
    func append(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.withLock { $0 } }
}

/// Dynamic instructions, profiles, modifiers and session properties, worked out again for every request.
struct SessionConfigurationTests {
    private func instructionsText(_ request: LanguageModelExecutorGenerationRequest?) -> String? {
        guard case .instructions(let instructions)? = request?.transcript.first else { return nil }
        return instructions.segments.map(\.description).joined(separator: " ")
    }

    @Test func dynamicInstructionsFollowSessionProperties() async throws {
        let model = ScriptedModel(name: "dynamic")
        let session = LanguageModelSession(model: model, dynamicInstructions: ConciergeInstructions())
        _ = try await session.respond(to: "Hi")
        #expect(instructionsText(model.log.received.last) == "You are a concierge. Greet guest.")
        #expect(model.log.received.last?.enabledToolDefinitions.isEmpty == true)

        session.properties.isPremiumUser = true
        session.properties.customerName = "Ada"
        #expect(session.properties.visits == nil)
        _ = try await session.respond(to: "What's the weather in Paris?")
        let premium = model.log.received.dropFirst().first
        #expect(instructionsText(premium) == "You are a concierge. Greet Ada. Offer lounge access.")
        #expect(premium?.enabledToolDefinitions.map(\.name) == ["cityWeather"])
        guard case .instructions(let entry) = session.transcript.first else {
            Issue.record("the transcript starts with the current instructions")
            return
        }
        #expect(entry.toolDefinitions.map(\.name) == ["cityWeather"])
        #expect(session.transcript.filter { if case .instructions = $0 { true } else { false } }.count == 1)
    }

    @Test func profilesApplyTheirBranchOptionsAndHooks() async throws {
        let model = ScriptedModel(name: "profile")
        let events = EventLog()
        let session = LanguageModelSession(profile: ConciergeProfile(model: model, events: events))
        _ = try await session.respond(to: "Hi")
        _ = try await session.respond(to: "Again")
        let regular = try #require(model.log.received.last)
        #expect(regular.generationOptions.maximumResponseTokens == 50)
        #expect(regular.generationOptions.temperature == nil)
        #expect(!regular.transcript.contains { if case .response = $0 { true } else { false } }, "the history transform dropped responses")
        #expect(session.transcript.contains { if case .response = $0 { true } else { false } }, "the transcript keeps them")

        session.properties.isPremiumUser = true
        _ = try await session.respond(to: "Premium now", options: GenerationOptions(maximumResponseTokens: 10))
        let premium = try #require(model.log.received.last)
        #expect(premium.generationOptions.temperature == 0.2)
        #expect(premium.generationOptions.maximumResponseTokens == 10, "the request's own option wins")
        #expect(instructionsText(premium)?.contains("Offer lounge access.") == true)

        session.properties.isPremiumUser = false
        _ = try await session.respond(to: "Regular again")
        #expect(events.all == ["prompt: Hi", "response", "prompt: Again", "response", "premium on", "premium off",
                               "prompt: Regular again", "response"])
    }

    /// Each model request of a turn, tool rounds included, sees the instructions and tools as they are then.
    @Test func aToolThatChangesAPropertyChangesTheNextRoundsInstructions() async throws {
        let model = ScriptedModel(name: "upgrade-round")
        let session = LanguageModelSession(model: model, dynamicInstructions: UpgradeInstructions())
        _ = try await session.respond(to: "Upgrade me")
        let rounds = model.log.received
        #expect(rounds.count == 2)
        #expect(rounds.first?.enabledToolDefinitions.map(\.name) == ["upgrade"])
        #expect(instructionsText(rounds.last) == "Offer lounge access.")
        #expect(rounds.last?.enabledToolDefinitions.map(\.name) == ["cityWeather"])
        #expect(session.properties.isPremiumUser)
    }

    /// A tool that switches the profile's branch switches the option modifiers of the next rounds too: the new
    /// branch's, applied to the request's own options, not on top of the old branch's.
    @Test func aToolThatSwitchesTheProfileSwitchesTheNextRoundsOptions() async throws {
        let model = ScriptedModel(name: "upgrade-options")
        let session = LanguageModelSession(profile: UpgradeProfile(model: model))
        _ = try await session.respond(to: "Upgrade me")
        let rounds = model.log.received
        #expect(rounds.count == 2)
        #expect(rounds.first?.generationOptions.maximumResponseTokens == 50)
        #expect(rounds.first?.generationOptions.temperature == nil)
        #expect(rounds.last?.generationOptions.temperature == 0.2)
        #expect(rounds.last?.generationOptions.maximumResponseTokens == nil)
        #expect(rounds.last?.generationOptions.toolCallingMode == .disallowed)
    }

    @Test func activationHooksWriteTheSessionsProperties() async throws {
        let session = LanguageModelSession(profile: VisitCountingProfile(model: ScriptedModel(name: "visits")))
        _ = try await session.respond(to: "Hello")
        #expect(session.properties.visits == 1)
        let other = LanguageModelSession(model: ScriptedModel(name: "visits-other"))
        #expect(other.properties.visits == nil, "nothing leaks to other sessions")
    }

    /// A transform that keeps only the last entries never drops the request's own prompt.
    @Test func historyTransformsLeaveTheCurrentRequestWhole() async throws {
        let model = ScriptedModel(name: "suffix-transform")
        let profile = LanguageModelSession.Profile {
            Instructions("Be brief.")
            CityWeather()
        }
        .historyTransform { Array($0.suffix(1)) }
        .model(model)
        let session = LanguageModelSession(profile: profile)
        _ = try await session.respond(to: "Hello")
        _ = try await session.respond(to: "Weather in Paris?")
        let last = try #require(model.log.received.last)
        let kinds = last.transcript.compactMap { entry -> String? in
            switch entry {
            case .instructions: "instructions"
            case .prompt(let prompt): "prompt: " + prompt.segments.map(\.description).joined()
            case .toolCalls: "toolCalls"
            case .toolOutput: "toolOutput"
            case .response: "response"
            case .reasoning: nil
            }
        }
        // The earlier turn is cut to its last entry; this request's prompt and tool round stay whole.
        #expect(kinds == ["instructions", "response", "prompt: Weather in Paris?", "toolCalls", "toolOutput"])
    }

    @Test func customModifiersComposeBuiltInOnes() async throws {
        let model = ScriptedModel(name: "modifier")
        let profile = LanguageModelSession.Profile { Instructions("Be careful.") }.modifier(Careful()).model(model)
        let session = LanguageModelSession(profile: profile)
        _ = try await session.respond(to: "Hello")
        let request = try #require(model.log.received.first)
        #expect(request.generationOptions.samplingMode == .greedy)
        #expect(request.generationOptions.toolCallingMode == .disallowed)
    }

    @Test func toolsReadSessionProperties() async throws {
        let session = LanguageModelSession(model: ScriptedModel(name: "tool-properties"), tools: [Greeter()])
        session.properties.customerName = "Grace"
        let answer = try await session.respond(to: "Weather?")
        #expect(answer.content == "The tool said: Hello Grace, it is sunny in Paris")
    }

    @Test func changingTheHistoryWhileRespondingFailsTheRequest() async throws {
        let session = LanguageModelSession(model: ScriptedModel(name: "tool-eraser"), tools: [SelfEraser()])
        SelfEraser.target.withLock { $0 = session }
        await #expect(throws: LanguageModelSession.Error.transcriptMutationWhileResponding) {
            _ = try await session.respond(to: "erase")
        }
        #expect(!session.isResponding)
        // Kept entries would follow a history they never answered, and a retry would repeat the turn.
        let preserving = LanguageModelSession(model: ScriptedModel(name: "tool-eraser"), tools: [SelfEraser()])
        preserving.transcriptErrorHandlingPolicy = .preserveTranscript
        SelfEraser.target.withLock { $0 = preserving }
        await #expect(throws: LanguageModelSession.Error.transcriptMutationWhileResponding) {
            _ = try await preserving.respond(to: "erase")
        }
        #expect(preserving.properties.history.isEmpty, "\(preserving.transcript)")
    }

    @Test func historyCanBeReadAndReplacedBetweenRequests() async throws {
        let model = ScriptedModel(name: "history")
        let session = LanguageModelSession(model: model, instructions: "Keep this.")
        _ = try await session.respond(to: "One")
        #expect(session.properties.history.count == 2)
        session.properties.history = []
        #expect(session.transcript.count == 1, "the instructions stay")
        _ = try await session.respond(to: "Two")
        #expect(session.transcript.count == 3)
    }

    @Test func anyToolWrapsAToolAndResultIsAPrompt() async throws {
        let tool = AnyTool(CityWeather())
        #expect(tool.name == "cityWeather" && tool.description == "The weather in a city.")
        let output = try await tool.call(arguments: GeneratedContent(properties: ["city": "Oslo"]))
        #expect(output.text == "sunny in Oslo")
        let success: Result<String, LookupFailure> = .success("found")
        let failure: Result<String, LookupFailure> = .failure(LookupFailure())
        #expect(success.promptRepresentation.text == "found")
        #expect(failure.promptRepresentation.text == "not found")
    }

    @Test func generableCanBeNamed() {
        #expect(NamedPet.generationSchema.debugDescription.contains("\"Pet\""))
        #expect(!NamedPet.generationSchema.debugDescription.contains("NamedPet"))
    }
}

/// A tool that greets the session's customer.
struct Greeter: Tool {
    let name = "cityWeather"
    let description = "The weather in a city."
    @SessionProperty(\.customerName) var customer
    @Generable struct Arguments { var city: String }
    func call(arguments: Arguments) async throws -> String {
        "Hello \(customer), it is sunny in \(arguments.city)"
    }
}

/// A tool that makes the customer premium, which changes the instructions and tools.
struct Upgrader: Tool {
    let name = "upgrade"
    let description = "Makes the customer premium."
    @SessionProperty(\.isPremiumUser) var isPremium
    @Generable struct Arguments { var city: String }
    func call(arguments: Arguments) async throws -> String {
        isPremium = true
        return "upgraded"
    }
}

/// Instructions with the upgrade tool until the customer is premium.
struct UpgradeInstructions: DynamicInstructions {
    @SessionProperty(\.isPremiumUser) var isPremium

    var body: some DynamicInstructions {
        if isPremium {
            Instructions("Offer lounge access.")
            CityWeather()
        } else {
            Instructions("Offer an upgrade.")
            Upgrader()
        }
    }
}

/// A profile that offers the upgrade tool under a token limit, and a warmer branch once the customer is premium.
struct UpgradeProfile: LanguageModelSession.DynamicProfile {
    let model: ScriptedModel
    @SessionProperty(\.isPremiumUser) var isPremium

    var body: some DynamicProfile {
        if isPremium {
            Profile { Instructions("Offer lounge access.") }
                .temperature(0.2)
                .toolCallingMode(.disallowed)
                .model(model)
        } else {
            Profile { UpgradeInstructions() }
                .maximumResponseTokens(50)
                .model(model)
        }
    }
}

/// A profile whose activation counts visits in the session's properties.
struct VisitCountingProfile: LanguageModelSession.DynamicProfile {
    let model: ScriptedModel
    @SessionProperty(\.visits) var visits

    var body: some DynamicProfile {
        Profile { Instructions("Welcome.") }
            .onActivate { visits = (visits ?? 0) + 1 }
            .model(model)
    }
}

/// A tool that clears its own session's history while the session responds.
struct SelfEraser: Tool {
    static let target = Mutex<LanguageModelSession?>(nil)
    let name = "cityWeather"
    let description = "Erases the history."
    @Generable struct Arguments { var city: String }
    func call(arguments: Arguments) async throws -> String {
        Self.target.withLock { $0 }?.properties.history = []
        return "done"
    }
}

struct LookupFailure: Error, PromptRepresentable {
    var promptRepresentation: Prompt { Prompt("not found") }
}

@Generable(name: "Pet")
struct NamedPet {
    var name: String
}
