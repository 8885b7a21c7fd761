import Foundation
import FoundationModels

/// Every failure a macOS 27 app handles, by type.
func answer(_ question: String, in session: LanguageModelSession) async -> String {
    do {
        return try await session.respond(to: question, options: GenerationOptions(), contextOptions: ContextOptions()).content
    } catch let error as LanguageModelError {
        switch error {
        case .contextSizeExceeded(let info):
            return "Too long: \(info.tokenCount) tokens for a window of \(info.contextSize)."
        case .rateLimited(let info):
            return "Try again after \(info.resetDate?.description ?? "a while")."
        case .guardrailViolation(let info):
            return "Blocked: \(info.debugDescription)"
        case .refusal(let info):
            return "Refused: \(info.debugDescription)"
        case .unsupportedCapability(let info):
            return "The model can't do \(info.capability)."
        case .unsupportedTranscriptContent(let info):
            return "Unsupported content in \(info.unsupportedContent.count) entries."
        case .unsupportedGenerationGuide(let info):
            return "Unsupported guide in \(info.schemaName ?? "a schema")."
        case .unsupportedLanguageOrLocale(let info):
            return "Unsupported language \(info.languageCode)."
        case .timeout:
            return "Timed out."
        }
    } catch let error as LanguageModelSession.Error {
        switch error {
        case .concurrentRequests: return "Busy."
        case .transcriptMutationWhileResponding: return "Changed while responding."
        }
    } catch let error as GeneratedContent.ParsingError {
        return "Unreadable output: \(error.rawContent)"
    } catch SystemLanguageModel.Error.assetsUnavailable(let info) {
        return "Model missing: \(info.debugDescription)"
    } catch let error as LanguageModelSession.ToolCallError {
        return "The tool \(error.tool.name) failed: \(error.underlyingError)"
    } catch {
        return error.localizedDescription
    }
}
