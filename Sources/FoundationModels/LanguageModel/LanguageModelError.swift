public import Foundation

/// A failure that may occur while generating a response when using any language model.
///
/// ```swift
/// do {
///     let answer = try await session.respond(to: question)
/// } catch let error as LanguageModelError {
///     switch error {
///     case .contextSizeExceeded(let info):
///         print("\(info.tokenCount) tokens do not fit in \(info.contextSize)")
///     default:
///         print(error.localizedDescription)
///     }
/// }
/// ```
///
/// Executors throw these; a session passes them on. Sessions created with the macOS 26 initializers and
/// asked through the macOS 26 methods report the same failures as ``LanguageModelSession/GenerationError``
/// instead, as apps built against the macOS 26 SDK see on Apple's platforms.
public enum LanguageModelError: LocalizedError, CustomDebugStringConvertible {
    /// The session's transcript exceeded the model's context size.
    case contextSizeExceeded(ContextSizeExceeded)
    /// The session has been rate limited.
    case rateLimited(RateLimited)
    /// The guardrails flagged the prompt, a tool's output or the response.
    case guardrailViolation(GuardrailViolation)
    /// The model refused the request.
    case refusal(Refusal)
    /// The request needs a capability the model does not have.
    case unsupportedCapability(UnsupportedCapability)
    /// The transcript holds content the model cannot read, such as corrupted data or a custom content format. (An
    /// image sent to a text-only model is ``unsupportedCapability(_:)``.)
    case unsupportedTranscriptContent(UnsupportedTranscriptContent)
    /// An unsupported generation guide was used (for example an unsupported regular-expression feature).
    case unsupportedGenerationGuide(UnsupportedGenerationGuide)
    /// The model does not support the language of the request.
    case unsupportedLanguageOrLocale(UnsupportedLanguageOrLocale)
    /// The model did not respond in time.
    case timeout(Timeout)

    /// Information about exceeding the context window size.
    public struct ContextSizeExceeded: Sendable {
        /// The model's context size in tokens.
        public var contextSize: Int
        /// The tokens the request needed.
        public var tokenCount: Int
        /// A description for developers.
        public var debugDescription: String
        /// Executor-specific details.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(contextSize: Int, tokenCount: Int, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.contextSize = contextSize
            self.tokenCount = tokenCount
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about a rate limiting event.
    public struct RateLimited: Sendable {
        /// When requests are accepted again, if known.
        public var resetDate: Date?
        /// A description for developers.
        public var debugDescription: String
        /// Executor-specific details.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(resetDate: Date?, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.resetDate = resetDate
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about a guardrail violation.
    public struct GuardrailViolation: Sendable {
        /// A description for developers.
        public var debugDescription: String
        /// Executor-specific details.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about a refusal.
    public struct Refusal: Sendable {
        /// A description for developers.
        public var debugDescription: String
        /// Executor-specific details.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about a missing capability.
    public struct UnsupportedCapability: Sendable {
        /// The capability the request needs.
        public var capability: LanguageModelCapabilities.Capability
        /// A description for developers.
        public var debugDescription: String
        /// Executor-specific details.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(capability: LanguageModelCapabilities.Capability, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.capability = capability
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about transcript content the model cannot take.
    public struct UnsupportedTranscriptContent: Sendable {
        /// The entries holding the content.
        public var unsupportedContent: [Transcript.Entry]
        /// A description for developers.
        public var debugDescription: String
        /// Executor-specific details.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(unsupportedContent: [Transcript.Entry], debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.unsupportedContent = unsupportedContent
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about an unsupported generation guide.
    public struct UnsupportedGenerationGuide: Sendable {
        /// The name of the schema holding the guide, if known.
        public var schemaName: String?
        /// A description for developers, naming the guide.
        public var debugDescription: String
        /// Executor-specific details.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(schemaName: String?, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.schemaName = schemaName
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about an unsupported language.
    public struct UnsupportedLanguageOrLocale: Sendable {
        /// The language of the request.
        public var languageCode: Locale.LanguageCode
        /// A description for developers.
        public var debugDescription: String
        /// Executor-specific details.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(languageCode: Locale.LanguageCode, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.languageCode = languageCode
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about a timeout.
    public struct Timeout: Sendable {
        /// A description for developers.
        public var debugDescription: String
        /// Executor-specific details.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// The specifics of the failure, for developers.
    public var debugDescription: String {
        switch self {
        case .contextSizeExceeded(let info): info.debugDescription
        case .rateLimited(let info): info.debugDescription
        case .guardrailViolation(let info): info.debugDescription
        case .refusal(let info): info.debugDescription
        case .unsupportedCapability(let info): info.debugDescription
        case .unsupportedTranscriptContent(let info): info.debugDescription
        case .unsupportedGenerationGuide(let info): info.debugDescription
        case .unsupportedLanguageOrLocale(let info): info.debugDescription
        case .timeout(let info): info.debugDescription
        }
    }

    /// What failed, followed by the specifics.
    public var errorDescription: String? {
        let reason = switch self {
        case .contextSizeExceeded: "The content exceeds the model's context size."
        case .rateLimited: "The request was rate limited."
        case .guardrailViolation: "The content was flagged by the safety guardrails."
        case .refusal: "The model refused the request."
        case .unsupportedCapability(let info): "The model does not support \(info.capability)."
        case .unsupportedTranscriptContent: "The transcript holds content the model cannot take."
        case .unsupportedGenerationGuide: "A generation guide cannot be enforced."
        case .unsupportedLanguageOrLocale: "The language or locale is not supported."
        case .timeout: "The model did not respond in time."
        }
        return "\(reason) \(debugDescription)"
    }
}
