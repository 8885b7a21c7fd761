import FoundationModels

/// An app's view model on the main actor: it explains refusals and picks a model by availability, as code
/// written for Apple's framework does. Compiling it is the check: the refusal's explanation and a tool's
/// call run on the caller's actor, so their non-Sendable results may be awaited here.
@MainActor final class AssistantViewModel {
    var explanation = ""
    var usesCloud = false

    func explain(_ refusal: LanguageModelSession.GenerationError.Refusal) async throws {
        explanation = try await refusal.explanation.content
    }

    func callTool(_ tool: AnyTool, with arguments: GeneratedContent) async throws -> Prompt {
        try await tool.call(arguments: arguments)
    }

    func makeSession() -> LanguageModelSession {
        let cloud = PrivateCloudComputeLanguageModel()
        usesCloud = cloud.isAvailable && !cloud.quotaUsage.isLimitReached && cloud.supportsLocale()
        return usesCloud ? LanguageModelSession(model: cloud) : LanguageModelSession(model: SystemLanguageModel.default)
    }

    func handle(_ error: any Error) -> String {
        switch error {
        case PrivateCloudComputeLanguageModel.Error.quotaLimitReached(let info):
            info.limitIncreaseSuggestion?.show()
            return "Try again after \(String(describing: info.resetDate))."
        case let error as PrivateCloudComputeLanguageModel.Error:
            return error.debugDescription
        default:
            return "\(error)"
        }
    }
}

/// Profile hooks written as closures over main-actor state, which Apple's modifiers accept: each closure
/// inherits the actor it is written on.
@MainActor final class ConversationStats {
    var prompts = 0
    var responses = 0
    var toolCalls = 0
    var isActive = false

    func profile() -> some LanguageModelSession.DynamicProfile {
        LanguageModelSession.Profile { Instructions("Answer briefly.") }
            .onPrompt { self.prompts += 1 }
            .onResponse { (_: Transcript.Response) in self.responses += 1 }
            .onToolCall { (_: Transcript.ToolCall) in self.toolCalls += 1 }
            .onToolOutput { self.toolCalls += 0 }
            .onActivate { self.isActive = true }
            .onDeactivate { self.isActive = false }
    }
}
