extension LanguageModelSession {
    /// Answers each prompt as the first request of its own fresh session (started from `transcript`),
    /// decoding up to `parallel` of them together in one llama.cpp batch.
    ///
    /// A Linux addition for batch jobs such as `fm tag --parallel`: every prompt gets exactly what
    /// `LanguageModelSession(model:transcript:).respond(to:schema:options:)` would give it, errors included,
    /// but the model evaluates many sequences per forward pass. Results are in prompt order.
    package static func respondIndependently(
        to prompts: [String],
        schema: GenerationSchema?,
        model: SystemLanguageModel,
        transcript: Transcript = Transcript(),
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(),
        parallel: Int
    ) async -> [Result<GeneratedContent, any Error>] {
        struct Item {
            var index: Int
            var session: LanguageModelSession
            var request: TurnRequest
            var prepared: PreparedTurn
            var job: GenerationJob
            var textSchema: GenerationSchema?
        }
        var results = [Result<GeneratedContent, any Error>?](repeating: nil, count: prompts.count)
        var items: [Item] = []
        for (index, prompt) in prompts.enumerated() {
            let session = LanguageModelSession(model: model, transcript: transcript)
            let request = TurnRequest(prompt: prompt, options: options, schema: schema,
                                      includeSchemaInPrompt: includeSchemaInPrompt, sourceName: "GeneratedContent")
            do {
                let prepared = try session.prepare(request)
                let messages = session.messages(adding: [.prompt(prepared.promptEntry)], renderer: prepared.renderer,
                                                promptID: prepared.promptEntry.id, userText: prepared.userText,
                                                includeSchema: includeSchemaInPrompt)
                let (job, textSchema) = try session.plainJob(request, messages: messages, on: prepared.loaded)
                items.append(Item(index: index, session: session, request: request, prepared: prepared, job: job, textSchema: textSchema))
            } catch {
                results[index] = .failure(error)
            }
        }
        if let loaded = items.first?.prepared.loaded {
            let outcomes = await BatchGenerator.run(items.map(\.job), slots: parallel, on: loaded)
            for (item, outcome) in zip(items, outcomes) {
                results[item.index] = Result {
                    let generated = try outcome.get()
                    let content = try item.session.plainContent(generated, request: item.request, textSchema: item.textSchema, id: item.prepared.id)
                    return try item.session.commit(content, outcome: generated, request: item.request, prepared: item.prepared,
                                                   added: [.prompt(item.prepared.promptEntry)]).content
                }.mapError { error in
                    (error as? GenerationFailure).map(Self.generationError(for:)) ?? error
                }
            }
        }
        return results.map { $0! }
    }
}
