import Foundation
import FoundationModels
import Synchronization
import Testing

// The session's tool loop, driven by a third-party model whose executor calls tools by a fixed plan: the loop
// itself (round limit, repeated calls, `required` mode) is session logic, independent of any model's output.

/// How the looping executor behaves each round.
enum ToolPlan: Sendable {
    /// A new call (a new city) every round, never an answer.
    case newCallEveryRound
    /// The same call every round while tools are allowed; an answer once they are not.
    case sameCallEveryRound
    /// One call while the session requires calls, the answer afterwards.
    case callOnceThenAnswer
    /// The same call every round, whatever the calling mode (as a server that ignores `tool_choice` does).
    case sameCallIgnoringMode
    /// A call whose arguments stop halfway, as when a response is cut off by its token limit.
    case cutOffArguments
    /// Reasoning, then the answer, in one round.
    case reasonThenAnswer
    /// A sentence and a call in the first round, the answer in the second.
    case wordsBesideTheCall
}

/// What the looping executor was asked, round by round.
final class RoundLog: Sendable {
    private let modes = Mutex<[GenerationOptions.ToolCallingMode?]>([])
    private let outputs = Mutex<[Int]>([])
    private let offered = Mutex<[[String]]>([])
    func record(_ request: LanguageModelExecutorGenerationRequest) {
        modes.withLock { $0.append(request.generationOptions.toolCallingMode) }
        offered.withLock { $0.append(request.enabledToolDefinitions.map(\.name)) }
        outputs.withLock { $0.append(request.transcript.filter { if case .toolOutput = $0 { true } else { false } }.count) }
    }
    var callingModes: [GenerationOptions.ToolCallingMode?] { modes.withLock { $0 } }
    var toolOutputsSeen: [Int] { outputs.withLock { $0 } }
    /// The names of the tools each round offered.
    var toolNamesOffered: [[String]] { offered.withLock { $0 } }
}

struct LoopingModel: LanguageModel {
    typealias Executor = LoopingExecutor
    let name: String
    let plan: ToolPlan
    let log = RoundLog()
    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities(capabilities: [.toolCalling]) }
    var executorConfiguration: String { name }
}

struct LoopingExecutor: LanguageModelExecutor {
    typealias Model = LoopingModel
    init(configuration: String) {}

    func respond(
        to request: LanguageModelExecutorGenerationRequest,
        model: LoopingModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        model.log.record(request)
        let round = model.log.callingModes.count
        let toolsAllowed = request.generationOptions.toolCallingMode != .disallowed
        if model.plan == .reasonThenAnswer {
            await channel.send(.reasoning(action: .appendText("Nothing to look up.", tokenCount: 4)))
        }
        let calls: Bool = switch model.plan {
        case .newCallEveryRound, .sameCallIgnoringMode, .cutOffArguments: true
        case .sameCallEveryRound: toolsAllowed
        case .callOnceThenAnswer: request.generationOptions.toolCallingMode == .required
        case .reasonThenAnswer: false
        case .wordsBesideTheCall: round == 1
        }
        guard calls, let tool = request.enabledToolDefinitions.first else {
            await channel.send(.response(action: .appendText("Done after \(round) rounds.", tokenCount: 4)))
            return
        }
        let city = model.plan == .newCallEveryRound ? "City \(round)" : "Paris"
        if model.plan == .wordsBesideTheCall {
            await channel.send(.response(action: .appendText("Let me check.", tokenCount: 3)))
        }
        let arguments = model.plan == .cutOffArguments ? #"{"city":"Par"# : #"{"city":"\#(city)"}"#
        await channel.send(.toolCalls(action: .toolCall(id: "call-\(round)", name: tool.name,
                                                        action: .appendArguments(arguments, tokenCount: 4))))
    }
}

/// A count shared by a tool's copies.
final class CallCount: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// Counts the calls it runs.
struct CountingWeather: Tool {
    let name = "cityWeather"
    let description = "The weather in a city."
    let calls = CallCount()
    /// Whether the call throws instead of answering.
    var fails = false

    @Generable
    struct Arguments {
        var city: String
    }

    func call(arguments: Arguments) async throws -> String {
        calls.increment()
        if fails { throw CocoaError(.fileReadUnknown) }
        return "sunny in \(arguments.city)"
    }
}

@Suite struct ToolLoopTests {
    @Test func aModelThatNeverStopsCallingToolsFailsAfterTheRoundLimit() async throws {
        let model = LoopingModel(name: "loop-new", plan: .newCallEveryRound)
        let tool = CountingWeather()
        let session = LanguageModelSession(model: model, tools: [tool])
        do {
            _ = try await session.respond(to: "Weather?")
            Issue.record("a model that only calls tools gets no answer")
        } catch let error as GeneratedContent.ParsingError {
            #expect(error.debugDescription.contains("more than 5 rounds"), "\(error.debugDescription)")
        }
        // Five rounds of calls run; the sixth round's calls are refused.
        #expect(tool.calls.count == 5)
        #expect(model.log.callingModes.count == 6)
        #expect(model.log.toolOutputsSeen == [0, 1, 2, 3, 4, 5])
        #expect(session.isResponding == false)
    }

    @Test func aRepeatedCallIsNotRunAgainAndTheModelMustAnswer() async throws {
        let model = LoopingModel(name: "loop-same", plan: .sameCallEveryRound)
        let tool = CountingWeather()
        let session = LanguageModelSession(model: model, tools: [tool])
        let response = try await session.respond(to: "Weather in Paris?")
        #expect(response.content == "Done after 3 rounds.")
        #expect(tool.calls.count == 1, "the repeated call is answered from the first output")
        #expect(model.log.callingModes.suffix(1) == [.disallowed], "the last round has tool calling disallowed")
        #expect(model.log.callingModes.prefix(2).allSatisfy { $0 != .disallowed })
    }

    @Test func requiredCallsAreMadeOnceThenTheModelMayAnswer() async throws {
        let model = LoopingModel(name: "loop-required", plan: .callOnceThenAnswer)
        let tool = CountingWeather()
        let session = LanguageModelSession(model: model, tools: [tool])
        let response = try await session.respond(to: "Weather?", options: GenerationOptions(toolCallingMode: .required))
        #expect(response.content == "Done after 2 rounds.")
        #expect(model.log.callingModes == [.required, .allowed])
        #expect(tool.calls.count == 1)
    }

    @Test func callsMadeWhileToolCallingIsDisallowedFailInsteadOfLoopingForever() async throws {
        let model = LoopingModel(name: "loop-ignoring", plan: .sameCallIgnoringMode)
        let tool = CountingWeather()
        let session = LanguageModelSession(model: model, tools: [tool])
        do {
            _ = try await session.respond(to: "Weather in Paris?")
            Issue.record("an executor that calls tools when told not to gets no answer")
        } catch let error as GeneratedContent.ParsingError {
            #expect(error.debugDescription.contains("disallowed"), "\(error.debugDescription)")
        }
        #expect(tool.calls.count == 1)
        #expect(model.log.callingModes.count == 3, "the repeat is asked once with calling disallowed, then refused")
        #expect(session.isResponding == false)

        let told = LoopingModel(name: "loop-told", plan: .sameCallIgnoringMode)
        let untouched = CountingWeather()
        let toldSession = LanguageModelSession(model: told, tools: [untouched])
        await #expect(throws: GeneratedContent.ParsingError.self) {
            try await toldSession.respond(to: "Weather?", options: GenerationOptions(toolCallingMode: .disallowed))
        }
        #expect(untouched.calls.count == 0, "a call made against the caller's .disallowed never runs")
    }

    @Test func argumentsCutOffHalfwayNeverReachTheTool() async throws {
        let model = LoopingModel(name: "loop-cut", plan: .cutOffArguments)
        let tool = CountingWeather()
        let session = LanguageModelSession(model: model, tools: [tool])
        do {
            _ = try await session.respond(to: "Weather in Paris?")
            Issue.record("half a call's arguments are not a call")
        } catch let error as GeneratedContent.ParsingError {
            #expect(error.rawContent == #"{"city":"Par"#)
        }
        #expect(tool.calls.count == 0)
    }

    @Test func aFailingCallIsKeptByPreserveTranscript() async throws {
        let model = LoopingModel(name: "loop-failing", plan: .sameCallEveryRound)
        var tool = CountingWeather()
        tool.fails = true
        let session = LanguageModelSession(model: model, tools: [tool])
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        await #expect(throws: LanguageModelSession.ToolCallError.self) {
            try await session.respond(to: "Weather in Paris?")
        }
        let kinds = session.transcript.map { entry -> String in
            switch entry {
            case .toolCalls(let calls): "toolCalls(\(calls.map(\.toolName).joined()))"
            case .instructions: "instructions"
            case .prompt: "prompt"
            default: "other"
            }
        }
        #expect(kinds == ["instructions", "prompt", "toolCalls(cityWeather)"], "the call that failed stays visible for debugging")
    }

    @Test func theAnswersReasoningIsRecordedOnce() async throws {
        let model = LoopingModel(name: "loop-reason", plan: .reasonThenAnswer)
        let session = LanguageModelSession(model: model, tools: [CountingWeather()])
        let response = try await session.respond(to: "Weather?")
        let reasoning = response.transcriptEntries.filter { if case .reasoning = $0 { true } else { false } }
        #expect(reasoning.count == 1)
        #expect(session.transcript.filter { if case .reasoning = $0 { true } else { false } }.count == 1)
    }

    @Test func wordsBesideACallStayInTheConversation() async throws {
        let model = LoopingModel(name: "loop-words", plan: .wordsBesideTheCall)
        let session = LanguageModelSession(model: model, tools: [CountingWeather()])
        let response = try await session.respond(to: "Weather in Paris?")
        #expect(response.content == "Done after 2 rounds.")
        let texts = session.transcript.compactMap { entry -> String? in
            if case .response(let words) = entry { words.segments.map(\.description).joined() } else { nil }
        }
        #expect(texts == ["Let me check.", "Done after 2 rounds."])
    }

    /// A model that answers without the call `required` asks for (a server that ignores `tool_choice`) fails the
    /// request instead of passing its answer off as one made after the calls.
    @Test func anAnswerWithoutTheRequiredCallIsAnError() async throws {
        let model = LoopingModel(name: "loop-answering", plan: .reasonThenAnswer)
        let tool = CountingWeather()
        let session = LanguageModelSession(model: model, tools: [tool])
        await #expect(throws: GeneratedContent.ParsingError.self) {
            _ = try await session.respond(to: "Weather?", options: GenerationOptions(toolCallingMode: .required))
        }
        #expect(tool.calls.count == 0)
        // Without tools there is nothing to call, and the answer stands.
        let plain = LanguageModelSession(model: model)
        let response = try await plain.respond(to: "Weather?", options: GenerationOptions(toolCallingMode: .required))
        #expect(response.content.hasPrefix("Done after"))
    }

    /// Two different tools under one name (here the same description, other arguments) would have one never run,
    /// with the other's arguments; the same tool listed twice, or beside its `AnyTool`, is one tool, offered once.
    @Test func twoDifferentToolsUnderOneNameAreRefused() async throws {
        let model = LoopingModel(name: "loop-clash", plan: .callOnceThenAnswer)
        let clash = LanguageModelSession(model: model, tools: [CountingWeather(), NamesakeWeather()])
        do {
            _ = try await clash.respond(to: "Weather?")
            Issue.record("two tools named cityWeather were accepted")
        } catch let error as LanguageModelSession.ToolCallError {
            #expect(error.tool.name == "cityWeather")
            #expect(error.localizedDescription.contains("it was not called") && error.localizedDescription.contains("also named 'cityWeather'"),
                    "\(error.localizedDescription)")
        }
        #expect(model.log.callingModes.isEmpty, "refused before the model is asked")
        let tool = CountingWeather()
        let twice = LanguageModelSession(model: model, tools: [tool, tool, AnyTool(tool)])
        let response = try await twice.respond(to: "Weather?", options: GenerationOptions(toolCallingMode: .required))
        #expect(response.content == "Done after 2 rounds." && tool.calls.count == 1)
        #expect(model.log.toolNamesOffered.last == ["cityWeather"], "\(model.log.toolNamesOffered)")
    }
}

/// Another tool that takes `CountingWeather`'s name and description, with other arguments.
struct NamesakeWeather: Tool {
    let name = "cityWeather"
    let description = "The weather in a city."

    @Generable
    struct Arguments {
        var place: String
    }

    func call(arguments: Arguments) async throws -> String { "rain in \(arguments.place)" }
}
