import Foundation
import FoundationModels
import Synchronization
import Testing

/// The cities a tool was called with.
final class CallLog: Sendable {
    let cities = Mutex<[String]>([])
}

/// A weather tool that records the arguments it was called with.
struct WeatherTool: Tool {
    let name = "getWeather"
    let description = "Get the current weather for a city."
    let calls = CallLog()

    @Generable
    struct Arguments {
        @Guide(description: "The city to get the weather for")
        var city: String
    }

    func call(arguments: Arguments) async throws -> String {
        calls.cities.withLock { $0.append(arguments.city) }
        return "The weather in \(arguments.city) is 31 degrees and sunny."
    }
}

/// A tool that always fails.
struct BrokenTool: Tool {
    struct Outage: Error, Equatable {}

    let name = "getWeather"
    let description = "Get the current weather for a city."

    @Generable
    struct Arguments {
        @Guide(description: "The city to get the weather for")
        var city: String
    }

    func call(arguments: Arguments) async throws -> String {
        throw Outage()
    }
}

@Suite("Tool calling with the real default model", .serialized, .timeLimit(.minutes(10)))
struct ToolCallingTests {
    static let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 64)

    @Test func weatherToolIsCalledAndItsOutputUsed() async throws {
        let tool = WeatherTool()
        let session = LanguageModelSession(model: DefaultModel.model, tools: [tool],
                                           instructions: "You are a helpful assistant. Use the tools to answer questions about the weather.")
        // The first round must call a tool (whether `tiny` chooses to on its own is a near-tie that moves between
        // machines); the rounds after it may answer. The answer comes after the output in the transcript it was
        // written from (how outputs are rendered into that prompt is `ConversationRendererTests`' part).
        var options = Self.options
        options.toolCallingMode = .required
        let response = try await session.respond(to: "What is the weather in Paris?", options: options)

        let cities = tool.calls.cities.withLock { $0 }
        #expect(!cities.isEmpty, "the model called the tool")
        #expect(cities.allSatisfy { !$0.isEmpty })
        let kinds = response.transcriptEntries.map { entry -> String in
            switch entry {
            case .prompt: "prompt"
            case .toolCalls: "toolCalls"
            case .toolOutput: "toolOutput"
            case .response: "response"
            case .instructions: "instructions"
            case .reasoning: "reasoning"
            }
        }
        #expect(kinds.first == "prompt" && kinds.last == "response")
        #expect(kinds.contains("toolCalls") && kinds.contains("toolOutput"))
        // The tool's output is in the transcript the answer was written after, as the tool returned it.
        let outputs = response.transcriptEntries.compactMap { entry -> String? in
            guard case .toolOutput(let output) = entry else { return nil }
            return output.segments.compactMap { segment in
                if case .text(let text) = segment { text.content } else { nil }
            }.joined()
        }
        let lastOutput = try #require(kinds.lastIndex(of: "toolOutput"))
        #expect(lastOutput < kinds.count - 1 && outputs.allSatisfy { $0.contains("31") && $0.contains("sunny") }, "\(outputs)")
        #expect(session.transcript.count == 1 + kinds.count)
    }

    @Test func throwingToolSurfacesToolCallError() async throws {
        let session = LanguageModelSession(model: DefaultModel.model, tools: [BrokenTool()],
                                           instructions: "You are a helpful assistant. Use the tools to answer questions about the weather.")
        var options = Self.options
        options.toolCallingMode = .required
        do {
            _ = try await session.respond(to: "What is the weather in Paris?", options: options)
            Issue.record("expected ToolCallError")
        } catch let error as LanguageModelSession.ToolCallError {
            #expect(error.tool.name == "getWeather")
            #expect(error.underlyingError is BrokenTool.Outage)
        }
        #expect(session.transcript.count == 1, "the failed request left the transcript as it was")
        #expect(!session.isResponding)
    }

    /// A required call that the token limit cuts off before it is whole fails as a guided value cut off there does
    /// (`decodingFailure`); it is never an empty answer, which would drop the call without a word.
    @Test func aRequiredCallCutByTheTokenLimitThrows() async throws {
        for limit in [3, 12] {
            let tool = WeatherTool()
            let session = LanguageModelSession(model: DefaultModel.model, tools: [tool],
                                               instructions: "You are a helpful assistant. Use the tools to answer questions about the weather.")
            let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: limit, toolCallingMode: .required)
            do {
                let response = try await session.respond(to: "What is the weather in Paris?", options: options)
                Issue.record("limit \(limit): answered \(response.content.debugDescription)")
            } catch LanguageModelSession.GenerationError.decodingFailure(let context) {
                #expect(context.debugDescription.contains("maximumResponseTokens (\(limit))"), "\(context.debugDescription)")
            }
            #expect(tool.calls.cities.withLock { $0 }.isEmpty)
            #expect(session.transcript.count == 1, "the failed request left the transcript as it was")
        }
    }

    /// A text answer in a session with tools (written under the tool-calling grammar) that runs into the end of
    /// the window throws `exceededContextWindowSize`, as the same answer without tools does, so the documented
    /// recovery (a new session) applies; not a decoding failure.
    @Test func aTextAnswerThatReachesTheWindowEndThrowsExceededContextWindowSize() async throws {
        let model = DefaultModel.model
        // The prompt is grown until it leaves only a few tokens of the window, so an answer longer than a few
        // tokens runs into its end.
        func tokens(_ text: String) async throws -> Int {
            let session = LanguageModelSession(model: model, tools: [WeatherTool()])
            let prompt = Transcript.Entry.prompt(Transcript.Prompt(segments: [.text(Transcript.TextSegment(content: text))]))
            return try await model.tokenCount(for: Array(session.transcript) + [prompt])
        }
        let sentence = "Tell me a long story about a lighthouse keeper and the sea. "
        let limit = model.contextSize - 8
        // From an estimate a few sentences short, so the loops below take a handful of steps.
        let empty = try await tokens("")
        let perTen = try await tokens(String(repeating: sentence, count: 10)) - empty
        var prompt = String(repeating: sentence, count: max(0, (limit - empty) * 10 / max(perTen, 1) - 3))
        while try await tokens(prompt + sentence) <= limit { prompt += sentence }
        while try await tokens(prompt + "sea ") <= limit { prompt += "sea " }
        #expect(try await tokens(prompt) > limit - 4, "the prompt fills the window but for a few tokens")
        // Calls disallowed: the answer is text, still written under the tool-calling grammar.
        var options = GenerationOptions(toolCallingMode: .disallowed)
        options.samplingMode = .greedy
        // A model may still end its answer within the tokens left (a whole answer, no error); fewer tokens left
        // give it less room, and one of the prompts must run into the window's end.
        var cut = false
        for _ in 0..<3 where !cut {
            let session = LanguageModelSession(model: model, tools: [WeatherTool()])
            do {
                let response = try await session.respond(to: prompt, options: options)
                #expect(session.transcript.count == 3, "\(response.content)")
            } catch {
                // The answer ran into the end of the window (the prompt itself fitted).
                guard case .exceededContextWindowSize(let context) = error as? LanguageModelSession.GenerationError,
                      context.debugDescription.contains("The response reached the end of the context window") else {
                    Issue.record("\(error)")
                    return
                }
                cut = true
                #expect(session.transcript.count == 1, "the instructions (with the tool) only")
            }
            #expect(!session.isResponding)
            prompt += "sea "
        }
        #expect(cut, "no answer ran into the end of the window")
    }
}
