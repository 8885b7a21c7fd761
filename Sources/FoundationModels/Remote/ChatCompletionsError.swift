public import Foundation

/// A failure talking to an OpenAI-compatible server that is not about the model's output.
///
/// Rate limiting that outlasts the retries is reported as ``LanguageModelError/rateLimited(_:)``, a response that
/// takes too long as ``LanguageModelError/timeout(_:)``, a prompt beyond the server's context as
/// ``LanguageModelError/contextSizeExceeded(_:)``, and a structured answer that does not follow its schema as
/// ``GeneratedContent/ParsingError``.
///
/// ```swift
/// do {
///     _ = try await session.respond(to: "Hello")
/// } catch let error as ChatCompletionsError {
///     print(error.localizedDescription)  // e.g. "The server answered HTTP 404: model not found"
/// }
/// ```
public enum ChatCompletionsError: LocalizedError, CustomDebugStringConvertible, Sendable, Equatable {
    /// The server could not be reached: no connection, unknown host, or the connection broke.
    case unreachable(endpoint: URL, reason: String)
    /// The server answered with an HTTP error status; `message` is the error message it sent (or its body).
    case httpError(status: Int, message: String)
    /// The configuration names an API key variable that is not set in the environment.
    case missingAPIKey(environmentVariable: String)
    /// The server's answer is not a complete chat completion: not a completion at all, cut short before the
    /// server said it was done, or stopped by an error the server reported inside the stream without a status.
    case invalidResponse(String)

    /// A description for developers.
    public var debugDescription: String {
        switch self {
        case .unreachable(let endpoint, let reason):
            "The server at \(endpoint.absoluteString) could not be reached: \(reason)"
        case .httpError(let status, let message):
            "The server answered HTTP \(status): \(message)"
        case .missingAPIKey(let name):
            "The environment variable \(name), which should hold the API key, is not set."
        case .invalidResponse(let detail):
            "The server's answer is not a complete chat completion: \(detail)"
        }
    }

    /// What went wrong.
    public var errorDescription: String? { debugDescription }
}
