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
        let response = try await session.respond(to: "What is the weather in Paris?", options: Self.options)

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
        #expect(response.content.contains("31") || response.content.lowercased().contains("sunny"),
                "the answer uses the tool's output: \(response.content)")
        #expect(session.transcript.count == 1 + kinds.count)
    }

    @Test func throwingToolSurfacesToolCallError() async throws {
        let session = LanguageModelSession(model: DefaultModel.model, tools: [BrokenTool()],
                                           instructions: "You are a helpful assistant. Use the tools to answer questions about the weather.")
        do {
            _ = try await session.respond(to: "What is the weather in Paris?", options: Self.options)
            Issue.record("expected ToolCallError")
        } catch let error as LanguageModelSession.ToolCallError {
            #expect(error.tool.name == "getWeather")
            #expect(error.underlyingError is BrokenTool.Outage)
        }
        #expect(session.transcript.count == 1, "the failed request left the transcript as it was")
        #expect(!session.isResponding)
    }

    /// A text answer in a session with tools (written under the tool-calling grammar) that runs into the end of
    /// the window throws `exceededContextWindowSize`, as the same answer without tools does, so the documented
    /// recovery (a new session) applies; not a decoding failure.
    @Test func aTextAnswerThatReachesTheWindowEndThrowsExceededContextWindowSize() async throws {
        let model = DefaultModel.model
        let session = LanguageModelSession(model: model, tools: [WeatherTool()])
        // The prompt is grown until it leaves only a few tokens of the window, so any answer longer than a few
        // tokens runs into its end, whatever the thread count does to the greedy choice.
        func tokens(_ text: String) async throws -> Int {
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
        await #expect {
            try await session.respond(to: prompt, options: options)
        } throws: { error in
            // The answer ran into the end of the window (the prompt itself fitted).
            guard case .exceededContextWindowSize(let context) = error as? LanguageModelSession.GenerationError,
                  context.debugDescription.contains("The response reached the end of the context window") else {
                Issue.record("\(error)")
                return false
            }
            return true
        }
        #expect(session.transcript.count == 1, "the instructions (with the tool) only")
        #expect(!session.isResponding)
    }
}
