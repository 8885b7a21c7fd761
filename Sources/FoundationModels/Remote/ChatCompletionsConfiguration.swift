public import Foundation

/// Where and how a ``ChatCompletionsExecutor`` reaches an OpenAI-compatible server: the identity of one executor.
///
/// Sessions whose models have equal configurations share an executor.
public struct ChatCompletionsConfiguration: Hashable, Sendable {
    /// The server's base URL, such as `http://127.0.0.1:8080` or `https://api.example.com/v1`; a URL that already
    /// ends in `/chat/completions` is used as is.
    public var endpoint: URL
    /// The model name sent in each request's `model` field.
    public var model: String
    /// The environment variable holding the API key sent as a bearer token, or `nil` to send none.
    ///
    /// The key itself is read for each request, so it never becomes part of the configuration.
    public var apiKeyEnvironmentVariable: String?
    /// The longest wait, in seconds, for the next bytes of a response (connecting included).
    public var requestTimeout: TimeInterval
    /// The longest time, in seconds, one response may take in all.
    public var resourceTimeout: TimeInterval
    /// How requests the server turns away with 429 or 503 are retried.
    public var retryPolicy: ChatCompletionsRetryPolicy

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - endpoint: The server's base URL.
    ///   - model: The model name the server knows.
    ///   - apiKeyEnvironmentVariable: The environment variable holding the API key, if the server needs one.
    ///   - requestTimeout: The longest wait for the next bytes of a response, in seconds; NaN, zero or less
    ///     means the default of 60, and the longest is about 23 days.
    ///   - resourceTimeout: The longest time one response may take, in seconds; NaN, zero or less means the
    ///     default of 600, and the longest is about 23 days.
    ///   - retryPolicy: How requests turned away with 429 or 503 are retried.
    public init(
        endpoint: URL,
        model: String,
        apiKeyEnvironmentVariable: String? = nil,
        requestTimeout: TimeInterval = 60,
        resourceTimeout: TimeInterval = 600,
        retryPolicy: ChatCompletionsRetryPolicy = .default
    ) {
        self.endpoint = endpoint
        self.model = model
        self.apiKeyEnvironmentVariable = apiKeyEnvironmentVariable
        // Finite and positive: the transports turn timeouts into integers, and NaN would break equality.
        self.requestTimeout = Self.usableTimeout(requestTimeout, fallback: 60)
        self.resourceTimeout = Self.usableTimeout(resourceTimeout, fallback: 600)
        self.retryPolicy = retryPolicy
    }

    /// `seconds` when it is a usable timeout, `fallback` for NaN, zero or less, and at most
    /// ``PlainHTTPStream/longestWait`` (infinity included).
    static func usableTimeout(_ seconds: TimeInterval, fallback: TimeInterval) -> TimeInterval {
        guard seconds > 0 else { return fallback }  // also NaN, which compares false
        return min(seconds, PlainHTTPStream.longestWait)
    }

    /// The URL requests are posted to: the endpoint with `/v1/chat/completions` (or `/chat/completions` after a
    /// trailing `/v1`) appended, unless it already names the route.
    public var chatCompletionsURL: URL {
        var path = endpoint.path
        while path.hasSuffix("/") { path.removeLast() }
        if path.hasSuffix("/chat/completions") { return endpoint }
        let suffix = path.hasSuffix("/v1") ? "/chat/completions" : "/v1/chat/completions"
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            return endpoint.appendingPathComponent(String(suffix.dropFirst()))
        }
        components.path = path + suffix
        return components.url ?? endpoint
    }
}
