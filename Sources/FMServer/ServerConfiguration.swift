public import FoundationModels

/// How `fm serve` listens, which model it serves, and the limits it enforces.
public struct ServerConfiguration: Sendable {
    /// The address to bind; `127.0.0.1` keeps the server local.
    public var host: String = "127.0.0.1"
    /// The port; 0 picks a free one (the server reports which).
    public var port: Int = 8080
    /// The model that answers every request.
    public var model: SystemLanguageModel
    /// The name `/v1/models` lists and requests give as `model` (`default` is accepted too).
    public var modelName: String
    /// The largest request body, in bytes.
    public var maximumBodyBytes: Int = 4 << 20
    /// The most tokens one response may have; also the limit of requests that give none.
    public var maximumTokens: Int = 4_096
    /// Sequences generated at once, which the engine decodes together, one batch per step. A request counts the
    /// answers it decodes at once: a chat completion its `n`, a `/v1/tag` request its parallel texts (at most this
    /// many, so that any request can run alone).
    public var concurrentRequests: Int = 16
    /// Requests that may wait for a turn; more are answered 429.
    public var queuedRequests: Int = 64
    /// How long one request may take, from its arrival and waiting for a turn included, before it is cancelled
    /// and answered 504.
    public var requestTimeout: Duration = .seconds(300)
    /// How long a connection may stay silent before it is closed: idle between requests, or stalled partway
    /// through sending one. A request being answered is never cut by it (that is ``requestTimeout``).
    public var idleTimeout: Duration = .seconds(60)
    /// When set, every route but `/health` requires `Authorization: Bearer <key>`.
    public var apiKey: String?
    /// Texts of one `/v1/tag` request decoded together.
    public var tagParallel: Int = 8

    /// Creates a configuration for `model`, listed as `modelName`.
    public init(model: SystemLanguageModel, modelName: String) {
        self.model = model
        self.modelName = modelName
    }
}
