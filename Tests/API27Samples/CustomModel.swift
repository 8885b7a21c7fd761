import Foundation
import FoundationModels

/// A model served by some other runtime, as a package would add one.
struct EchoModel: LanguageModel {
    typealias Executor = EchoExecutor
    var prefix = "Echo: "
    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities(capabilities: [.toolCalling, .reasoning]) }
    var executorConfiguration: EchoExecutor.Configuration { .init(endpoint: "local") }
}

struct EchoExecutor: LanguageModelExecutor {
    typealias Model = EchoModel

    struct Configuration: Hashable, Sendable {
        var endpoint: String
    }

    init(configuration: Configuration) throws {}

    func respond(
        to request: LanguageModelExecutorGenerationRequest,
        model: EchoModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let entryID = UUID().uuidString
        await channel.send(.reasoning(action: .appendText("Repeating the prompt.", tokenCount: 4)))
        await channel.send(.reasoning(action: .updateSignature(Data([1, 2, 3]), tokenCount: 0)))
        guard case .prompt(let prompt)? = request.transcript.last(where: { if case .prompt = $0 { true } else { false } }) else {
            throw LanguageModelError.unsupportedTranscriptContent(.init(unsupportedContent: Array(request.transcript), debugDescription: "No prompt."))
        }
        if let tool = request.enabledToolDefinitions.first, request.generationOptions.toolCallingMode == .required {
            await channel.send(.toolCalls(entryID: nil, action: .toolCall(id: "1", name: tool.name, action: .appendArguments("{}", tokenCount: 1))))
            return
        }
        let text = model.prefix + prompt.segments.map(\.description).joined()
        await channel.send(.response(entryID: entryID, action: .updateMetadata(["modelID": "echo-1", "requestID": request.id.uuidString])))
        await channel.send(.response(entryID: entryID, action: .appendText(text, tokenCount: text.count / 4)))
        await channel.send(.response(entryID: entryID, action: .updateUsage(
            input: .init(totalTokenCount: 12, cachedTokenCount: 0), output: .init(totalTokenCount: text.count / 4, reasoningTokenCount: 4))))
    }
}

/// The custom model and the on-device one are used the same way.
func compareModels(_ prompt: String) async throws -> [String] {
    var answers: [String] = []
    for session in [makeAssistant(using: EchoModel()), makeAssistant(using: SystemLanguageModel.default)] {
        answers.append(try await session.respond(to: prompt).content)
    }
    return answers
}
