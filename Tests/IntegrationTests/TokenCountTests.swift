import FMLlama
import Foundation
import FoundationModels
import Testing

@Suite("Token counting with the real tokenizer", .serialized, .timeLimit(.minutes(5)))
struct TokenCountTests {
    static func llama() throws -> LlamaModel {
        try LlamaModel(path: DefaultModel.model.modelURL.path)
    }

    /// The counts agree with what a session really evaluates: the engine's prompt is the rendered transcript
    /// plus the opening of the assistant's turn, so the difference to the count of the same entries is that
    /// opening — a few tokens, the same whatever the instructions and prompt.
    @Test func countsAgreeWithWhatTheSessionEvaluates() async throws {
        _ = DefaultModel.model
        var openings: [Int] = []
        for (useCase, instructions, prompt) in [
            (SystemLanguageModel.UseCase.general, "Be brief.", "Hello"),
            (.general, "Answer like a pirate, in one short sentence.", "Summarize the plot of Hamlet in two sentences, please."),
        ] {
            let model = SystemLanguageModel(useCase: useCase)
            let session = LanguageModelSession(model: model, instructions: instructions)
            let response = try await session.respond(to: prompt, options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 2))
            let sent = session.transcript.filter { if case .response = $0 { false } else { true } }
            let counted = try await model.tokenCount(for: sent)
            openings.append(response.usage.input.totalTokenCount - counted)
            // The instructions alone, with the use case's preamble, are part of the count, never more than it.
            let instructionTokens = try await model.tokenCount(for: Instructions(instructions))
            let promptTokens = try await model.tokenCount(for: Prompt(prompt))
            #expect(instructionTokens + promptTokens >= counted - 4 && instructionTokens < counted, "\(useCase): \(instructionTokens) + \(promptTokens) against \(counted)")
        }
        #expect(Set(openings).count == 1 && (1...8).contains(openings[0]), "\(openings)")
    }

    /// Under `.contentTagging` a session's system message carries the use case's preamble: counting the
    /// instructions alone must include it.
    @Test func instructionCountsIncludeTheUseCasePreamble() async throws {
        _ = DefaultModel.model
        let general = try await SystemLanguageModel(useCase: .general).tokenCount(for: Instructions("Be brief."))
        let tagging = try await SystemLanguageModel(useCase: .contentTagging).tokenCount(for: Instructions("Be brief."))
        #expect(tagging > general + 10, "general \(general), content tagging \(tagging)")
        #expect(try await SystemLanguageModel(useCase: .general).tokenCount(for: Prompt("Hello Hello Hello"))
            > (try await SystemLanguageModel(useCase: .general).tokenCount(for: Prompt("Hello"))))
    }

    @Test func transcriptToolAndSchemaCounts() async throws {
        let model = DefaultModel.model
        let entries: [Transcript.Entry] = [
            .prompt(.init(segments: [.text(.init(content: "Hello"))])),
            .response(.init(segments: [.text(.init(content: "Hi there!"))])),
        ]
        let llama = try Self.llama()
        let rendered = llama.renderChat([ChatMessage(role: "user", content: "Hello"), ChatMessage(role: "assistant", content: "Hi there!")],
                                        addAssistantPrefix: false)
        #expect(try await model.tokenCount(for: entries) == (try llama.tokenize(rendered, addSpecial: llama.addsBeginningOfSequence).count))
        #expect(try await model.tokenCount(for: [any Tool]()) == 0)
        #expect(try await model.tokenCount(for: [WeatherTool()]) > 20)
        #expect(try await model.tokenCount(for: WeatherTool.Arguments.generationSchema) > 5)
        // A transcript whose instructions carry a tool counts the tool's definition and how to call it, as a
        // session with that tool sends them: what the tool's own count says, give or take a token where texts join.
        let instructions = Transcript.Instructions(segments: [.text(.init(content: "Be brief."))], toolDefinitions: [])
        var withTool = instructions
        withTool.toolDefinitions = [Transcript.ToolDefinition(tool: WeatherTool())]
        let prompt = Transcript.Entry.prompt(.init(segments: [.text(.init(content: "Hello"))]))
        let added = try await model.tokenCount(for: [.instructions(withTool), prompt]) - model.tokenCount(for: [.instructions(instructions), prompt])
        let toolCount = try await model.tokenCount(for: [WeatherTool()])
        #expect(abs(added - toolCount) <= 2, "the tool adds \(added) tokens to the transcript, \(toolCount) on its own")
    }

    @Test func overflowThrowsWithTheNumbers() async throws {
        let model = DefaultModel.model
        let prompt = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 600)
        let needed = try await model.tokenCount(for: Prompt(prompt))
        #expect(needed > model.contextSize)
        do {
            _ = try await LanguageModelSession(model: model).respond(to: prompt, options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4))
            Issue.record("expected exceededContextWindowSize")
        } catch LanguageModelSession.GenerationError.exceededContextWindowSize(let context) {
            #expect(context.debugDescription.contains("\(model.contextSize)"))
            #expect(context.debugDescription.contains("tokens"))
        }
    }

    @Test func tokenUsageSpellingAgreesWithTokenCount() async throws {
        let model = DefaultModel.model
        let usage = try await model.tokenUsage(for: Instructions("Be brief."), tools: [WeatherTool()])
        let expected = try await model.tokenCount(for: Instructions("Be brief.")) + model.tokenCount(for: [WeatherTool()])
        #expect(usage.tokenCount == expected)
        #expect(try await model.tokenUsage(for: Prompt("Hi")).tokenCount == model.tokenCount(for: Prompt("Hi")))
        #expect(SystemLanguageModel.TokenUsage(tokenCount: 1024).formattedPercent(ofContextSize: 4096).hasPrefix("25"))
    }
}
