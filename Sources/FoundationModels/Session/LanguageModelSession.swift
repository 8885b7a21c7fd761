public import Observation
import Synchronization

/// A single context that you use to generate content with, keeping state between requests.
///
/// ```swift
/// let session = LanguageModelSession(instructions: "You are a concise assistant.")
/// let answer = try await session.respond(to: "What is a haiku?")
/// print(answer.content)
/// ```
///
/// A session runs any ``LanguageModel`` — the on-device ``SystemLanguageModel`` by default — through the
/// model's ``LanguageModel/Executor``. Reuse a session for a multi-turn conversation (later prompts see earlier
/// turns, and with the on-device model their tokens stay in the KV cache), and create a new one for unrelated
/// single-turn requests. A session answers one request at a time: a second request while ``isResponding`` is
/// true throws ``LanguageModelSession/Error/concurrentRequests``. A failed request leaves the ``transcript``
/// as it was, unless ``transcriptErrorHandlingPolicy`` says to preserve it.
///
/// Errors follow the API generation a call uses, as on Apple's platforms they follow the SDK an app is built
/// with: a session made with one of the macOS 26 initializers and asked through the macOS 26 methods throws
/// ``GenerationError``; a session made from `some LanguageModel`, dynamic instructions or a profile, or a
/// request that passes context options or metadata, throws ``LanguageModelError``,
/// ``SystemLanguageModel/Error``, ``LanguageModelSession/Error`` and ``GeneratedContent/ParsingError``.
public final class LanguageModelSession: Sendable {
    struct State: Sendable {
        var transcript: Transcript
        var isResponding = false
        /// Entries of failed requests, kept for feedback attachments.
        var rolledBackEntries: [Transcript.Entry] = []
        /// Token counts and timings of the last successful request (on-device model only).
        var statistics: GenerationStatistics?
        /// Every response's usage, added up.
        var usage = Usage.zero
        var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy?
        /// Whether ``SessionPropertyValues/history`` was set during the request in progress.
        var historyChangedWhileResponding = false
        /// The generation of a stream dropped before it ended: cancelled, and over once the engine step or tool
        /// it is in sees that (it clears this when it ends).
        var endingStream: StreamEnd?
    }

    let state: Mutex<State>
    let registrar = ObservationRegistrar()
    /// The model the session runs, behind its executor.
    let backend: ModelBackend
    /// The tools the model may call in every request of the session.
    let tools: [any Tool]
    /// Whether the session throws the macOS 27 error types (see the type's discussion).
    let usesCurrentErrors: Bool
    /// The values dynamic instructions, profiles and tools share.
    let sessionProperties = SessionPropertyValues()
    /// The profile or dynamic instructions worked out again for every request; `nil` for a fixed setup.
    let dynamicSetup: DynamicSetup?

    init(backend: ModelBackend, tools: [any Tool], initialTranscript: Transcript, usesCurrentErrors: Bool, dynamicSetup: DynamicSetup? = nil) {
        self.backend = backend
        self.tools = tools
        self.usesCurrentErrors = usesCurrentErrors
        self.dynamicSetup = dynamicSetup
        self.state = Mutex(State(transcript: initialTranscript))
        sessionProperties.attach(to: self)
    }

    /// Starts a session, optionally with instructions that define the model's behaviour in every request.
    ///
    /// - Parameters:
    ///   - model: The model to use; `.default` unless you pass another.
    ///   - tools: Tools the model may call during the session.
    ///   - instructions: Instructions given priority over prompts.
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], instructions: Instructions? = nil) {
        self.init(backend: ModelBackend(model), tools: tools,
                  initialTranscript: Self.transcript(instructions: instructions, tools: tools), usesCurrentErrors: false)
    }

    /// Starts a session with instructions written as a string.
    @_disfavoredOverload
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], instructions: String? = nil) {
        self.init(model: model, tools: tools, instructions: instructions.map { Instructions($0) })
    }

    /// Starts a session with instructions built by a closure.
    ///
    /// ```swift
    /// let session = LanguageModelSession {
    ///     "You are a travel agent."
    ///     "Answer in one sentence."
    /// }
    /// ```
    public convenience init(
        model: SystemLanguageModel = .default,
        tools: [any Tool] = [],
        @InstructionsBuilder instructions: () throws -> Instructions
    ) rethrows {
        self.init(model: model, tools: tools, instructions: try instructions())
    }

    /// Starts a session that continues the conversation in `transcript`; its instructions and tool
    /// definitions come from the transcript's entries.
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], transcript: Transcript) {
        self.init(backend: ModelBackend(model), tools: tools, initialTranscript: transcript, usesCurrentErrors: false)
    }

    static func transcript(instructions: Instructions?, tools: [any Tool]) -> Transcript {
        let definitions = tools.filter(\.includesSchemaInInstructions).map { Transcript.ToolDefinition(tool: $0) }
        guard instructions != nil || !definitions.isEmpty else { return Transcript() }
        let segments = instructions?.transcriptSegments ?? []
        return Transcript(entries: [.instructions(.init(segments: segments, toolDefinitions: definitions))])
    }

    // MARK: Observable state

    /// The full history of the session: instructions, prompts, reasoning, tool calls and outputs, and responses.
    public var transcript: Transcript {
        registrar.access(self, keyPath: \.transcript)
        return state.withLock { $0.transcript }
    }

    /// Whether the session is generating a response now.
    public var isResponding: Bool {
        registrar.access(self, keyPath: \.isResponding)
        return state.withLock { $0.isResponding }
    }

    /// The total accumulated usage across all responses generated by this session.
    ///
    /// The value increases monotonically over the lifetime of the session.
    public var usage: Usage {
        registrar.access(self, keyPath: \.usage)
        return state.withLock { $0.usage }
    }

    /// The session's policy for managing the transcript when errors occur; `nil` reverts it.
    public var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy? {
        get {
            registrar.access(self, keyPath: \.transcriptErrorHandlingPolicy)
            return state.withLock { $0.transcriptErrorHandlingPolicy }
        }
        set { mutate([\.transcriptErrorHandlingPolicy]) { $0.transcriptErrorHandlingPolicy = newValue } }
    }

    /// Changes state under the lock, telling observers about the key paths it touches.
    func mutate<R: Sendable>(_ keyPaths: [PartialKeyPath<LanguageModelSession>], _ body: (inout State) -> R) -> R {
        for keyPath in keyPaths { notifyWillSet(keyPath) }
        defer { for keyPath in keyPaths { notifyDidSet(keyPath) } }
        return state.withLock { state in body(&state) }
    }

    private func notifyWillSet(_ keyPath: PartialKeyPath<LanguageModelSession>) {
        switch keyPath {
        case \LanguageModelSession.transcript: registrar.willSet(self, keyPath: \.transcript)
        case \LanguageModelSession.isResponding: registrar.willSet(self, keyPath: \.isResponding)
        case \LanguageModelSession.usage: registrar.willSet(self, keyPath: \.usage)
        case \LanguageModelSession.transcriptErrorHandlingPolicy: registrar.willSet(self, keyPath: \.transcriptErrorHandlingPolicy)
        default: break
        }
    }

    private func notifyDidSet(_ keyPath: PartialKeyPath<LanguageModelSession>) {
        switch keyPath {
        case \LanguageModelSession.transcript: registrar.didSet(self, keyPath: \.transcript)
        case \LanguageModelSession.isResponding: registrar.didSet(self, keyPath: \.isResponding)
        case \LanguageModelSession.usage: registrar.didSet(self, keyPath: \.usage)
        case \LanguageModelSession.transcriptErrorHandlingPolicy: registrar.didSet(self, keyPath: \.transcriptErrorHandlingPolicy)
        default: break
        }
    }

    /// Token counts and timings of the session's last successful request (on-device model only).
    package var lastStatistics: GenerationStatistics? { state.withLock { $0.statistics } }

    /// Set for a task to have the on-device engine record how narrowly each greedy decision was made
    /// (``GenerationStatistics/margins``), for measuring near-ties.
    @TaskLocal package static var recordsDecisionMargins = false

    // MARK: Prewarming

    /// Loads the model and evaluates the instructions — and `promptPrefix`, if given — ahead of the first
    /// request, so that request starts from the KV cache.
    ///
    /// Best effort: it returns at once and the executor does the work in the background. On the on-device model
    /// a request made before that work is done waits for it, then starts from it.
    public func prewarm(promptPrefix: Prompt? = nil) {
        var transcript = state.withLock { $0.transcript }
        if let promptPrefix {
            transcript.append(.prompt(Transcript.Prompt(segments: promptPrefix.transcriptSegments)))
        }
        backend.prewarm(transcript)
    }
}

extension LanguageModelSession: Observable {}
