extension SystemLanguageModel {
    /// The tokens of instructions plus the tools' definitions, as ``TokenUsage``.
    public nonisolated(nonsending) func tokenUsage(for instructions: Instructions, tools: [any Tool] = []) async throws -> TokenUsage {
        let instructionTokens = try await tokenCount(for: instructions)
        let toolTokens = try await tokenCount(for: tools)
        return TokenUsage(tokenCount: instructionTokens + toolTokens)
    }

    /// The tokens of a prompt, as ``TokenUsage``.
    public nonisolated(nonsending) func tokenUsage(for prompt: Prompt) async throws -> TokenUsage {
        TokenUsage(tokenCount: try await tokenCount(for: prompt))
    }

    /// The tokens of transcript entries, as ``TokenUsage``.
    public nonisolated(nonsending) func tokenUsage(for transcriptEntries: some Collection<Transcript.Entry>) async throws -> TokenUsage {
        TokenUsage(tokenCount: try await tokenCount(for: transcriptEntries))
    }
}
