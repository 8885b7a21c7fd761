public import Foundation

/// A language model served by any OpenAI-compatible `/v1/chat/completions` endpoint: llama.cpp's `llama-server`,
/// vLLM, Ollama, a hosted API, or a fleet of them behind a load balancer.
///
/// ```swift
/// let model = ChatCompletionsLanguageModel(
///     endpoint: URL(string: "http://127.0.0.1:8080")!, model: "qwen2.5-0.5b-instruct",
///     apiKeyEnvironmentVariable: "OPENAI_API_KEY", enforcesSchemas: true)
/// let session = LanguageModelSession(model: model, instructions: "Answer briefly.")
/// let answer = try await session.respond(to: "What is the capital of France?")
/// ```
///
/// Responses stream over server-sent events. Tools are offered as OpenAI `tools`; the calls the server returns
/// are run by the session, whose next request carries their output. Guided generation sends the schema as
/// `response_format` `json_schema` (properties in declaration order) and is offered only when `enforcesSchemas`
/// says the server constrains its output to it; either way every structured answer is checked against the
/// schema before it becomes a value, and one that does not follow it throws ``GeneratedContent/ParsingError``.
public struct ChatCompletionsLanguageModel: LanguageModel {
    /// The executor that sends this model's requests.
    public typealias Executor = ChatCompletionsExecutor

    /// Where the server is and how to reach it.
    public var configuration: ChatCompletionsConfiguration
    /// Whether the server constrains its output to a `response_format` JSON schema (llama-server, vLLM and
    /// OpenAI do), which makes guided generation available.
    public var enforcesSchemas: Bool
    /// Whether the server's model calls tools (OpenAI `tools`), which makes tool calling available.
    public var supportsToolCalling: Bool

    /// Creates a model served at `endpoint`.
    ///
    /// - Parameters:
    ///   - endpoint: The server's base URL, such as `http://127.0.0.1:8080`.
    ///   - model: The model name the server knows.
    ///   - apiKeyEnvironmentVariable: The environment variable holding the API key, if the server needs one.
    ///   - enforcesSchemas: Whether the server enforces `response_format` JSON schemas; only then does the model
    ///     declare ``LanguageModelCapabilities/Capability/guidedGeneration``.
    ///   - supportsToolCalling: Whether the server's model calls tools.
    ///   - requestTimeout: The longest wait for the next bytes of a response, in seconds.
    ///   - resourceTimeout: The longest time one response may take, in seconds.
    ///   - retryPolicy: How requests turned away with 429 or 503 are retried.
    public init(
        endpoint: URL,
        model: String,
        apiKeyEnvironmentVariable: String? = nil,
        enforcesSchemas: Bool = false,
        supportsToolCalling: Bool = true,
        requestTimeout: TimeInterval = 60,
        resourceTimeout: TimeInterval = 600,
        retryPolicy: ChatCompletionsRetryPolicy = .default
    ) {
        self.init(
            configuration: ChatCompletionsConfiguration(
                endpoint: endpoint, model: model, apiKeyEnvironmentVariable: apiKeyEnvironmentVariable,
                requestTimeout: requestTimeout, resourceTimeout: resourceTimeout, retryPolicy: retryPolicy),
            enforcesSchemas: enforcesSchemas, supportsToolCalling: supportsToolCalling)
    }

    /// Creates a model from a configuration.
    public init(configuration: ChatCompletionsConfiguration, enforcesSchemas: Bool = false, supportsToolCalling: Bool = true) {
        self.configuration = configuration
        self.enforcesSchemas = enforcesSchemas
        self.supportsToolCalling = supportsToolCalling
    }

    /// Tool calling when ``supportsToolCalling``, guided generation when ``enforcesSchemas``.
    public var capabilities: LanguageModelCapabilities {
        var capabilities: [LanguageModelCapabilities.Capability] = []
        if enforcesSchemas { capabilities.append(.guidedGeneration) }
        if supportsToolCalling { capabilities.append(.toolCalling) }
        return LanguageModelCapabilities(capabilities: capabilities)
    }

    /// The configuration: one executor serves every model with the same endpoint, model name and settings.
    public var executorConfiguration: ChatCompletionsConfiguration { configuration }
}
