public import Foundation

/// Everything an executor needs to generate one response.
///
/// The transcript holds the whole conversation: instructions, earlier turns, the prompt of this request
/// (its last prompt entry) and, after tool calls, their outputs.
public struct LanguageModelExecutorGenerationRequest: Sendable {
    /// The request's identifier.
    public var id: UUID
    /// The conversation so far, ending with what the model responds to.
    public var transcript: Transcript
    /// The tools the model may call in this request.
    public var enabledToolDefinitions: [Transcript.ToolDefinition]
    /// The schema the response must follow, or `nil` for text.
    public var schema: GenerationSchema?
    /// Sampling, temperature, length and tool-calling options.
    public var generationOptions: GenerationOptions
    /// Schema-in-prompt and reasoning options.
    public var contextOptions: ContextOptions
    /// The metadata the caller passed with the request.
    public var metadata: [String: any Sendable & Codable & Equatable]
    /// Strings that end a text response where one first appears, left out of it (the `stop` of `fm serve`'s chat
    /// completions). The on-device executor honours them for text responses and refuses them with a schema or
    /// tools, whose value a cut would break.
    package var stopSequences: [String] = []
    /// Whether the model may call several tools in one turn (`parallel_tool_calls` of `fm serve`'s chat completions);
    /// `false` allows one call per turn.
    package var allowsParallelToolCalls = true
    /// For a text response, report each sampled token's log-probability with this many likeliest alternatives
    /// (`logprobs` and `top_logprobs` of `fm serve`'s chat completions); `nil` reports none. The on-device executor
    /// sends them as the response's ``Transcript/Response/tokenLogprobsKey`` metadata, and refuses them with a
    /// schema or tools, whose tokens are partly forced by the grammar rather than sampled.
    package var logprobAlternatives: Int?

    /// Creates a request.
    public init(
        id: UUID,
        transcript: Transcript,
        enabledTools: [Transcript.ToolDefinition],
        schema: GenerationSchema? = nil,
        generationOptions: GenerationOptions,
        contextOptions: ContextOptions,
        metadata: [String: any Sendable & Codable & Equatable]
    ) {
        self.id = id
        self.transcript = transcript
        self.enabledToolDefinitions = enabledTools
        self.schema = schema
        self.generationOptions = generationOptions
        self.contextOptions = contextOptions
        self.metadata = metadata
    }
}
