import FMLlama
import Foundation
import FoundationModels
import Testing

@Suite("Token counting with the real tokenizer", .serialized, .timeLimit(.minutes(5)))
struct TokenCountTests {
    static func llama() throws -> LlamaModel {
        try LlamaModel(path: DefaultModel.model.modelURL.path)
    }

    @Test func promptAndInstructionCountsMatchTheTokenizer() async throws {
        let model = DefaultModel.model
        let llama = try Self.llama()
        let text = "Summarize the plot of Hamlet in two sentences."
        let expectedPrompt = try llama.tokenize(llama.renderChat([ChatMessage(role: "user", content: text)], addAssistantPrefix: false),
                                                addSpecial: llama.addsBeginningOfSequence).count
        #expect(try await model.tokenCount(for: Prompt(text)) == expectedPrompt)
        let expectedInstructions = try llama.tokenize(llama.renderChat([ChatMessage(role: "system", content: "Be brief.")], addAssistantPrefix: false),
                                                      addSpecial: llama.addsBeginningOfSequence).count
        #expect(try await model.tokenCount(for: Instructions("Be brief.")) == expectedInstructions)
        #expect(try await model.tokenCount(for: Prompt(text + " " + text)) > expectedPrompt)
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
