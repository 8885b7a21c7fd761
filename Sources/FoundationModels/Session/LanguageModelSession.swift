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
/// Reuse a session for a multi-turn conversation — later prompts see earlier turns, and their tokens
/// stay in the model's KV cache instead of being evaluated again — and create a new one for unrelated
/// single-turn requests. A session answers one request at a time: a second request while
/// ``isResponding`` is true throws ``GenerationError/concurrentRequests(_:)``. A failed request leaves
/// the ``transcript`` as it was.
public final class LanguageModelSession: Sendable {
    struct State: Sendable {
        var transcript: Transcript
        var isResponding = false
        /// Entries of failed requests, kept for feedback attachments.
        var rolledBackEntries: [Transcript.Entry] = []
        /// The user-message text each prompt entry was rendered as (schema text included), so later turns
        /// render earlier ones identically and hit the KV cache.
        var renderedPrompts: [String: String] = [:]
        /// Token counts of the last successful request.
        var statistics: GenerationStatistics?
    }

    let state: Mutex<State>
    let registrar = ObservationRegistrar()
    /// The model the session runs.
    let model: SystemLanguageModel
    /// The tools the model may call in every request of the session.
    let tools: [any Tool]

    init(model: SystemLanguageModel, tools: [any Tool], initialTranscript: Transcript) {
        self.model = model
        self.tools = tools
        self.state = Mutex(State(transcript: initialTranscript))
    }

    /// Starts a session, optionally with instructions that define the model's behaviour in every request.
    ///
    /// - Parameters:
    ///   - model: The model to use; `.default` unless you pass another.
    ///   - tools: Tools the model may call during the session.
    ///   - instructions: Instructions given priority over prompts.
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], instructions: Instructions? = nil) {
        self.init(model: model, tools: tools, initialTranscript: Self.transcript(instructions: instructions?.text, tools: tools))
    }

    /// Starts a session with instructions written as a string.
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], instructions: String) {
        self.init(model: model, tools: tools, initialTranscript: Self.transcript(instructions: instructions, tools: tools))
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
        let built = try instructions()
        self.init(model: model, tools: tools, initialTranscript: Self.transcript(instructions: built.text, tools: tools))
    }

    /// Starts a session that continues the conversation in `transcript`; its instructions and tool
    /// definitions come from the transcript's entries.
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], transcript: Transcript) {
        self.init(model: model, tools: tools, initialTranscript: transcript)
    }

    private static func transcript(instructions: String?, tools: [any Tool]) -> Transcript {
        let definitions = tools.filter(\.includesSchemaInInstructions).map { Transcript.ToolDefinition(tool: $0) }
        guard instructions != nil || !definitions.isEmpty else { return Transcript() }
        let segments = instructions.map { [Transcript.Segment.text(.init(content: $0))] } ?? []
        return Transcript(entries: [.instructions(.init(segments: segments, toolDefinitions: definitions))])
    }

    // MARK: Observable state

    /// The full history of the session: instructions, prompts, tool calls and outputs, and responses.
    public var transcript: Transcript {
        registrar.access(self, keyPath: \.transcript)
        return state.withLock { $0.transcript }
    }

    /// Whether the session is generating a response now.
    public var isResponding: Bool {
        registrar.access(self, keyPath: \.isResponding)
        return state.withLock { $0.isResponding }
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
        default: break
        }
    }

    private func notifyDidSet(_ keyPath: PartialKeyPath<LanguageModelSession>) {
        switch keyPath {
        case \LanguageModelSession.transcript: registrar.didSet(self, keyPath: \.transcript)
        case \LanguageModelSession.isResponding: registrar.didSet(self, keyPath: \.isResponding)
        default: break
        }
    }

    /// Token counts of the session's last successful request.
    package var lastStatistics: GenerationStatistics? { state.withLock { $0.statistics } }

    // MARK: Prewarming

    /// Loads the model and evaluates the instructions — and `promptPrefix`, if given — ahead of the first
    /// request, so that request starts from the KV cache.
    ///
    /// Best effort: it returns at once and does the work in the background.
    public func prewarm(promptPrefix: Prompt? = nil) {
        let renderer = ConversationRenderer(model: model, tools: tools)
        let messages = state.withLock { renderer.messages(for: $0.transcript, renderedPrompts: $0.renderedPrompts) }
        let prefixText = promptPrefix?.text
        let model = self.model
        Task.detached(priority: .utility) {
            guard let loaded = try? model.loadedModel() else { return }
            Generator.prefill(messages: messages, userPrefix: prefixText, on: loaded)
        }
    }
}

extension LanguageModelSession: Observable {}
