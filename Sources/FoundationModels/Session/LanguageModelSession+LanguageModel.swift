extension LanguageModelSession {
    /// Starts a session with any language model, with instructions built by a closure.
    ///
    /// ```swift
    /// func makeSession(with model: some LanguageModel) -> LanguageModelSession {
    ///     LanguageModelSession(model: model) {
    ///         "You are a travel agent."
    ///     }
    /// }
    /// ```
    public convenience init<Failure: Swift.Error>(
        model: some LanguageModel,
        tools: [any Tool] = [],
        @InstructionsBuilder instructions: () throws(Failure) -> Instructions
    ) throws(Failure) {
        let built = try instructions()
        self.init(backend: ModelBackend(model), tools: tools,
                  initialTranscript: Self.transcript(instructions: built, tools: tools), usesCurrentErrors: true)
    }

    /// Starts a session with any language model that continues the conversation in `transcript`.
    public convenience init(model: some LanguageModel, tools: [any Tool] = [], transcript: Transcript) {
        self.init(backend: ModelBackend(model), tools: tools, initialTranscript: transcript, usesCurrentErrors: true)
    }

    /// Starts a session with any language model, optionally with instructions.
    ///
    /// - Parameters:
    ///   - model: The model; its executor is created from its configuration and shared by equal ones.
    ///   - tools: Tools the model may call during the session (the model needs the tool-calling capability).
    ///   - instructions: Instructions given priority over prompts.
    public convenience init(model: some LanguageModel, tools: [any Tool] = [], instructions: Instructions? = nil) {
        self.init(backend: ModelBackend(model), tools: tools,
                  initialTranscript: Self.transcript(instructions: instructions, tools: tools), usesCurrentErrors: true)
    }

    /// Starts a session with any language model and instructions written as a string.
    @_disfavoredOverload
    public convenience init(model: some LanguageModel, tools: [any Tool] = [], instructions: String? = nil) {
        self.init(model: model, tools: tools, instructions: instructions.map { Instructions($0) })
    }
}
