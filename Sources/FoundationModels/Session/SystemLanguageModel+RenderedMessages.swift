import FMLlama

extension SystemLanguageModel {
    /// The chat messages, as (role, text), that this model's executor sends for a guided request of `schema`
    /// with `prompt` after `transcript`.
    ///
    /// Benchmarks replay these on another engine (llama-server) so both sides evaluate the same prompt and
    /// differ only in how they decode.
    package func renderedMessages(after transcript: Transcript, prompt: String, schema: GenerationSchema) -> [(role: String, content: String)] {
        let entry = Transcript.Prompt(segments: [.text(.init(content: prompt))], responseFormat: Transcript.ResponseFormat(schema: schema))
        let messages = ConversationRenderer(model: self).messages(for: Transcript(entries: Array(transcript) + [.prompt(entry)]))
        return messages.map { ($0.role, $0.content) }
    }
}
