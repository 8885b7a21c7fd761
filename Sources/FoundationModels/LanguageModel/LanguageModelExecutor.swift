/// A protocol that defines the interface for responding to session requests.
///
/// An executor is the bridge between the framework's types and the system that generates the tokens: a
/// local inference engine, a server API. A ``LanguageModel`` pairs with exactly one executor type, and the
/// framework creates the executor from the ``Configuration`` the model provides — once per distinct
/// configuration, shared by every session.
///
/// ```swift
/// struct EchoExecutor: LanguageModelExecutor {
///     typealias Model = EchoModel
///     init(configuration: String) {}
///     func respond(
///         to request: LanguageModelExecutorGenerationRequest,
///         model: EchoModel,
///         streamingInto channel: LanguageModelExecutorGenerationChannel
///     ) async throws {
///         await channel.send(.response(action: .appendText("Hello", tokenCount: 1)))
///     }
/// }
/// ```
public protocol LanguageModelExecutor: Sendable {
    /// The values that identify one executor instance.
    associatedtype Configuration: Hashable, Sendable
    /// The model type this executor runs.
    associatedtype Model: LanguageModel

    /// Prepares for a request that will continue `transcript` — loading weights, filling a cache.
    ///
    /// Best effort: it returns at once. The default does nothing.
    func prewarm(model: Self.Model, transcript: Transcript)

    /// Creates an executor from a configuration.
    init(configuration: Self.Configuration) throws

    /// Generates the response to `request`, sending text, tool calls, reasoning, metadata and usage to
    /// `channel` as they are produced; returns when the response is complete.
    ///
    /// The session has already checked the request against the model's ``LanguageModel/capabilities``.
    /// When the model calls tools, send them as ``LanguageModelExecutorGenerationChannel/ToolCalls`` events and
    /// return: the session runs the tools and sends a new request whose transcript holds their output.
    ///
    /// - Throws: ``LanguageModelError`` for failures a caller can act on (context size, guardrails, …).
    nonisolated(nonsending) func respond(
        to request: LanguageModelExecutorGenerationRequest,
        model: Self.Model,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws
}

extension LanguageModelExecutor {
    /// Does nothing: executors without a warm-up step need not implement it.
    public func prewarm(model: Self.Model, transcript: Transcript) {}
}
