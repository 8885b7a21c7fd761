import Foundation
import FMEngine
import FMLlama

/// Token counting (Apple's 26.4 API), with the model's real tokenizer and chat template.
///
/// Counts are of the text exactly as a session renders it: instructions as the system message, a prompt as
/// a user message, tools and schemas as the text they add to the prompt, transcript entries as the whole
/// rendered conversation. Templates add a few tokens per message (role markers), which the message counts
/// include.
extension SystemLanguageModel {
    /// The tokens `instructions` take as a session's system message, with everything the model's use case
    /// adds to it (the `.contentTagging` preamble).
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/assetsUnavailable(_:)`` when the model cannot be loaded.
    public nonisolated(nonsending) func tokenCount(for instructions: Instructions) async throws -> Int {
        let entry = Transcript.Entry.instructions(Transcript.Instructions(
            segments: [.text(Transcript.TextSegment(content: instructions.text))], toolDefinitions: []))
        let system = ConversationRenderer(model: self).messages(for: Transcript(entries: [entry])).filter { $0.role == "system" }
        return try await count(messages: system)
    }

    /// The tokens a prompt takes as a user message.
    public nonisolated(nonsending) func tokenCount(for prompt: some PromptRepresentable) async throws -> Int {
        try await count(messages: [ChatMessage(role: "user", content: prompt.promptRepresentation.text)])
    }

    /// The tokens the tools' definitions and calling instructions add to the system message.
    public nonisolated(nonsending) func tokenCount(for tools: [any Tool]) async throws -> Int {
        guard !tools.isEmpty else { return 0 }
        let definitions = tools.filter(\.includesSchemaInInstructions).map { Transcript.ToolDefinition(tool: $0) }
        var parts: [String] = []
        if !definitions.isEmpty { parts.append(ToolCallFormat.render(definitions)) }
        parts.append(ToolCallFormat.usage(for: tools.map { Transcript.ToolDefinition(tool: $0) }))
        return try await count(text: "\n\n" + parts.joined(separator: "\n\n"))
    }

    /// The tokens a schema's description adds to a prompt (`includeSchemaInPrompt: true`).
    public nonisolated(nonsending) func tokenCount(for schema: GenerationSchema) async throws -> Int {
        try await count(text: "\n\n" + UseCasePrompting.schemaInstruction(for: schema, useCase: useCase))
    }

    /// The tokens of transcript entries rendered as a conversation, as a session would send them: with tools in
    /// the instructions, that includes how to call them, which a session with those tools adds.
    public nonisolated(nonsending) func tokenCount(for transcriptEntries: some Collection<Transcript.Entry>) async throws -> Int {
        let transcript = Transcript(entries: transcriptEntries)
        var tools: [Transcript.ToolDefinition] = []
        for case .instructions(let instructions) in transcript {
            tools += instructions.toolDefinitions.filter { definition in !tools.contains { $0.name == definition.name } }
        }
        let renderer = ConversationRenderer(model: self, tools: tools)
        return try await count(messages: renderer.messages(for: transcript))
    }

    // Loading the model and tokenizing are blocking work: both run on a dispatch thread.

    private func count(messages: [ChatMessage]) async throws -> Int {
        let llama = try await loadedForCounting().llama
        guard !messages.isEmpty else { return 0 }
        return try await Engine.offload {
            try Self.tokens(llama.renderChat(messages, addAssistantPrefix: false), llama: llama, addSpecial: llama.addsBeginningOfSequence)
        }
    }

    private func count(text: String) async throws -> Int {
        let llama = try await loadedForCounting().llama
        // Text on its own is counted as text, as it is read inside a conversation.
        return try await Engine.offload { try Self.tokens(text, llama: llama, addSpecial: false, parseSpecial: false) }
    }

    private static func tokens(_ text: String, llama: LlamaModel, addSpecial: Bool, parseSpecial: Bool = true) throws -> Int {
        do { return try llama.tokenize(text, addSpecial: addSpecial, parseSpecial: parseSpecial).count } catch {
            throw LanguageModelSession.GenerationError.decodingFailure(.init(debugDescription: "Tokenization failed: \(error)"))
        }
    }

    private func loadedForCounting() async throws -> LoadedModel {
        guard isReady else {
            throw LanguageModelSession.GenerationError.assetsUnavailable(.init(debugDescription: missingModelMessage))
        }
        do { return try await ModelRegistry.shared.engine(at: modelURL.path, adapterPath: adapter?.fileURL.path).model } catch {
            throw LanguageModelSession.GenerationError.assetsUnavailable(.init(debugDescription: "\(error)"))
        }
    }
}
