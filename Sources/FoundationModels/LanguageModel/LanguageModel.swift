/// A protocol that you use to interface with a model.
///
/// A type that adopts the protocol describes a model — its ``capabilities`` and the
/// ``executorConfiguration`` its ``Executor`` is built from — and stays light: the executor does the work of
/// turning a request into tokens and streaming the result back. Pass any conforming value to
/// ``LanguageModelSession/init(model:tools:instructions:)-(LanguageModel,[Tool],String?)``:
///
/// ```swift
/// func summarize(_ text: String, with model: some LanguageModel) async throws -> String {
///     let session = LanguageModelSession(model: model, instructions: "Summarize in one sentence.")
///     return try await session.respond(to: text).content
/// }
/// ```
///
/// ``SystemLanguageModel`` is the built-in conformer; on Linux its executor runs a GGUF model in-process
/// through llama.cpp. A package can ship its own model and executor (a server client, another runtime), and
/// sessions drive it exactly like the built-in one.
public protocol LanguageModel: Sendable {
    /// The executor type that runs this model.
    associatedtype Executor: LanguageModelExecutor where Self == Self.Executor.Model

    /// What the model can do; the session refuses requests that need a capability the model lacks.
    var capabilities: LanguageModelCapabilities { get }

    /// A configuration for an executor capable of running this model.
    ///
    /// The framework creates one executor per distinct configuration and reuses it for every session whose
    /// model has an equal configuration.
    var executorConfiguration: Self.Executor.Configuration { get }
}
