public import Foundation

extension LanguageModelSession {
    /// An error that may occur while generating a response.
    ///
    /// Deprecated in macOS 27, where the framework throws ``LanguageModelError``, ``SystemLanguageModel/Error``,
    /// ``LanguageModelSession/Error`` and ``GeneratedContent/ParsingError`` to apps built with the new SDK. Here a
    /// session used through the macOS 26 API — one of its initializers, and methods without context options
    /// or metadata — keeps throwing this type, so code written for macOS 26 works unchanged.
    @available(macOS, introduced: 26.0, deprecated: 27.0)
    @available(iOS, introduced: 26.0, deprecated: 27.0)
    @available(visionOS, introduced: 26.0, deprecated: 27.0)
    public enum GenerationError: Swift.Error, LocalizedError, Sendable {
        /// The context about an error.
        public struct Context: Sendable {
            /// A description for developers of what went wrong.
            public let debugDescription: String

            /// Creates a context.
            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        /// A refusal produced by the model instead of guided-generation output.
        public struct Refusal: Sendable {
            /// The transcript entries leading up to the refusal.
            let transcriptEntries: [Transcript.Entry]
            /// The model of the session that refused, which explains its own refusal; `nil` for a refusal made
            /// with the public initializer, which the default model explains.
            let backend: ModelBackend?

            /// Creates a refusal from the entries that led to it.
            public init(transcriptEntries: [Transcript.Entry]) {
                self.transcriptEntries = transcriptEntries
                self.backend = nil
            }

            init(transcriptEntries: [Transcript.Entry], backend: ModelBackend) {
                self.transcriptEntries = transcriptEntries
                self.backend = backend
            }

            /// Asks the model for a natural-language explanation of the refusal.
            public nonisolated(nonsending) var explanation: Response<String> {
                get async throws {
                    try await explanationSession().respond(to: Self.explanationPrompt)
                }
            }

            /// The explanation, streamed.
            public var explanationStream: ResponseStream<String> {
                explanationSession().streamResponse(to: Self.explanationPrompt)
            }

            private static let explanationPrompt = "Briefly explain why you cannot help with the previous request."

            private func explanationSession() -> LanguageModelSession {
                guard let backend else { return LanguageModelSession(model: .default, tools: [], transcript: Transcript(entries: transcriptEntries)) }
                return LanguageModelSession(backend: backend, tools: [], initialTranscript: Transcript(entries: transcriptEntries), usesCurrentErrors: false)
            }
        }

        /// The session's tokens — instructions, prompts, responses, tool and schema text — exceed the context window.
        @available(macOS, deprecated: 27.0, message: "Use ``LanguageModelError/contextSizeExceeded(_:)`` instead.")
        @available(iOS, deprecated: 27.0, message: "Use ``LanguageModelError/contextSizeExceeded(_:)`` instead.")
        @available(visionOS, deprecated: 27.0, message: "Use ``LanguageModelError/contextSizeExceeded(_:)`` instead.")
        case exceededContextWindowSize(Context)
        /// The model file is missing or could not be loaded.
        @available(macOS, deprecated: 27.0, message: "Use ``SystemLanguageModel/Error/assetsUnavailable(_:)`` instead.")
        @available(iOS, deprecated: 27.0, message: "Use ``SystemLanguageModel/Error/assetsUnavailable(_:)`` instead.")
        @available(visionOS, deprecated: 27.0, message: "Use ``SystemLanguageModel/Error/assetsUnavailable(_:)`` instead.")
        case assetsUnavailable(Context)
        /// The guardrails flagged the prompt or the response.
        @available(macOS, deprecated: 27.0, message: "Use ``LanguageModelError/guardrailViolation(_:)`` instead.")
        @available(iOS, deprecated: 27.0, message: "Use ``LanguageModelError/guardrailViolation(_:)`` instead.")
        @available(visionOS, deprecated: 27.0, message: "Use ``LanguageModelError/guardrailViolation(_:)`` instead.")
        case guardrailViolation(Context)
        /// The model's output could not be turned into the requested type (for example, it was cut short).
        @available(macOS, deprecated: 27.0, message: "Use ``GeneratedContent/ParsingError`` instead.")
        @available(iOS, deprecated: 27.0, message: "Use ``GeneratedContent/ParsingError`` instead.")
        @available(visionOS, deprecated: 27.0, message: "Use ``GeneratedContent/ParsingError`` instead.")
        case decodingFailure(Context)
        /// A generation guide (for example a regular-expression feature) cannot be enforced.
        @available(macOS, deprecated: 27.0, message: "Use ``LanguageModelError/unsupportedGenerationGuide(_:)`` instead.")
        @available(iOS, deprecated: 27.0, message: "Use ``LanguageModelError/unsupportedGenerationGuide(_:)`` instead.")
        @available(visionOS, deprecated: 27.0, message: "Use ``LanguageModelError/unsupportedGenerationGuide(_:)`` instead.")
        case unsupportedGuide(Context)
        /// The prompt or requested response language is not supported.
        @available(macOS, deprecated: 27.0, message: "Use ``LanguageModelError/unsupportedLanguageOrLocale(_:)`` instead.")
        @available(iOS, deprecated: 27.0, message: "Use ``LanguageModelError/unsupportedLanguageOrLocale(_:)`` instead.")
        @available(visionOS, deprecated: 27.0, message: "Use ``LanguageModelError/unsupportedLanguageOrLocale(_:)`` instead.")
        case unsupportedLanguageOrLocale(Context)
        /// Too many requests; never thrown on Linux, which has no background rate limit.
        @available(macOS, deprecated: 27.0, message: "Use ``LanguageModelError/rateLimited(_:)`` instead.")
        @available(iOS, deprecated: 27.0, message: "Use ``LanguageModelError/rateLimited(_:)`` instead.")
        @available(visionOS, deprecated: 27.0, message: "Use ``LanguageModelError/rateLimited(_:)`` instead.")
        case rateLimited(Context)
        /// A request started while the same session was still responding.
        @available(macOS, deprecated: 27.0, message: "Use ``LanguageModelSession/Error/concurrentRequests`` instead.")
        @available(iOS, deprecated: 27.0, message: "Use ``LanguageModelSession/Error/concurrentRequests`` instead.")
        @available(visionOS, deprecated: 27.0, message: "Use ``LanguageModelSession/Error/concurrentRequests`` instead.")
        case concurrentRequests(Context)
        /// The model refused to produce the requested guided-generation output.
        @available(macOS, deprecated: 27.0, message: "Use ``LanguageModelError/refusal(_:)`` instead.")
        @available(iOS, deprecated: 27.0, message: "Use ``LanguageModelError/refusal(_:)`` instead.")
        @available(visionOS, deprecated: 27.0, message: "Use ``LanguageModelError/refusal(_:)`` instead.")
        case refusal(Refusal, Context)

        var context: Context {
            switch self {
            case .exceededContextWindowSize(let c), .assetsUnavailable(let c), .guardrailViolation(let c),
                .decodingFailure(let c), .unsupportedGuide(let c), .unsupportedLanguageOrLocale(let c),
                .rateLimited(let c), .concurrentRequests(let c), .refusal(_, let c):
                return c
            }
        }

        /// A description of the error with its specifics.
        public var errorDescription: String? {
            "\(failureReason ?? "Generation failed.") \(context.debugDescription)"
        }

        /// Why the request failed.
        public var failureReason: String? {
            switch self {
            case .exceededContextWindowSize: "The content exceeds the model's context window."
            case .assetsUnavailable: "The model is not available."
            case .guardrailViolation: "The content was flagged by the safety guardrails."
            case .decodingFailure: "The response could not be decoded into the requested type."
            case .unsupportedGuide: "A generation guide cannot be enforced."
            case .unsupportedLanguageOrLocale: "The language or locale is not supported."
            case .rateLimited: "The request was rate limited."
            case .concurrentRequests: "The session is already responding to another request."
            case .refusal: "The model refused the request."
            }
        }

        /// What to do about it.
        public var recoverySuggestion: String? {
            switch self {
            case .exceededContextWindowSize: "Start a new session, shorten the instructions or prompt, or split the input."
            case .assetsUnavailable: SystemLanguageModel.installSuggestion
            case .guardrailViolation: "Rephrase the content, or use .permissiveContentTransformations for text output."
            case .decodingFailure: "Raise maximumResponseTokens or simplify the requested type."
            case .unsupportedGuide: "Use only the supported regular-expression features and guides."
            case .unsupportedLanguageOrLocale: "Use a supported language."
            case .rateLimited: "Retry later."
            case .concurrentRequests: "Wait until isResponding is false, or use another session."
            case .refusal: "Read the refusal's explanation."
            }
        }
    }

    /// An error thrown by a tool the model called.
    public struct ToolCallError: Swift.Error, LocalizedError, Sendable {
        /// The tool that threw.
        public var tool: any Tool
        /// The error the tool threw.
        public var underlyingError: any Swift.Error

        /// Creates a tool call error.
        public init(tool: any Tool, underlyingError: any Swift.Error) {
            self.tool = tool
            self.underlyingError = underlyingError
        }

        /// A description naming the tool and its error.
        public var errorDescription: String? {
            "The tool \"\(tool.name)\" failed: \(underlyingError.localizedDescription)"
        }
    }
}
