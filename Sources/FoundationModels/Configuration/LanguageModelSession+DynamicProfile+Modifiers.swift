extension LanguageModelSession.DynamicProfile {
    /// The profile changed by `modifier`.
    public func modifier<Modifier: LanguageModelSession.DynamicProfileModifier>(_ modifier: Modifier) -> some LanguageModelSession.DynamicProfile {
        LanguageModelSession.ModifiedDynamicProfile(content: self, modifier: modifier)
    }
}

extension LanguageModelSession.DynamicProfile {
    /// Runs the profile's requests with `model`.
    public func model(_ model: some LanguageModel) -> some LanguageModelSession.DynamicProfile {
        modifier(_ProfileSetting { $0.model = ModelBackend(model) })
    }

    /// The temperature of requests whose options leave it unset.
    public func temperature(_ temperature: Double?) -> some LanguageModelSession.DynamicProfile {
        modifier(_ProfileSetting { $0.temperature = .some(temperature) })
    }

    /// The sampling mode of requests whose options leave it unset.
    public func samplingMode(_ samplingMode: GenerationOptions.SamplingMode?) -> some LanguageModelSession.DynamicProfile {
        modifier(_ProfileSetting { $0.samplingMode = .some(samplingMode) })
    }

    /// The response length limit of requests whose options leave it unset.
    public func maximumResponseTokens(_ maximumResponseTokens: Int?) -> some LanguageModelSession.DynamicProfile {
        modifier(_ProfileSetting { $0.maximumResponseTokens = .some(maximumResponseTokens) })
    }

    /// The reasoning level of requests whose context options leave it unset.
    public func reasoningLevel(_ reasoningLevel: ContextOptions.ReasoningLevel?) -> some LanguageModelSession.DynamicProfile {
        modifier(_ProfileSetting { $0.reasoningLevel = .some(reasoningLevel) })
    }

    /// The tool-calling mode of requests whose options leave it unset.
    @available(*, deprecated, renamed: "toolCallingMode(_:)")
    public func toolCalling(_ toolCallingMode: GenerationOptions.ToolCallingMode?) -> some LanguageModelSession.DynamicProfile {
        self.toolCallingMode(toolCallingMode)
    }

    /// The tool-calling mode of requests whose options leave it unset.
    public func toolCallingMode(_ toolCallingMode: GenerationOptions.ToolCallingMode?) -> some LanguageModelSession.DynamicProfile {
        modifier(_ProfileSetting { $0.toolCallingMode = .some(toolCallingMode) })
    }

    /// Changes the history the model sees (the session's transcript keeps every entry).
    @available(*, deprecated, renamed: "historyTransform(_:)")
    public func inputFilter(_ filter: @escaping ([Transcript.Entry]) -> [Transcript.Entry]) -> some LanguageModelSession.DynamicProfile {
        historyTransform(filter)
    }

    /// Changes the history the model sees — for example to drop old tool traffic; the session's transcript keeps
    /// every entry.
    public func historyTransform(_ transform: @escaping ([Transcript.Entry]) -> [Transcript.Entry]) -> some LanguageModelSession.DynamicProfile {
        modifier(_ProfileSetting { $0.historyTransforms.append(transform) })
    }

    /// How the session's transcript is handled when a request fails.
    public func transcriptErrorHandlingPolicy(_ transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy?) -> some LanguageModelSession.DynamicProfile {
        modifier(_ProfileSetting { $0.transcriptErrorHandlingPolicy = .some(transcriptErrorHandlingPolicy) })
    }

    /// Runs `action` when a prompt joins the transcript, before the model answers it.
    public func onPrompt(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        onPrompt { _ in try await action() }
    }

    /// Runs `action` with each prompt before the model answers it; an error fails the request.
    public func onPrompt(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping (Transcript.Prompt) async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        nonisolated(unsafe) let action = action
        return modifier(_ProfileSetting { $0.onPrompt.append(action) })
    }

    /// Runs `action` when a response joins the transcript.
    public func onResponse(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        onResponse { _ in try await action() }
    }

    /// Runs `action` with each response before the request returns; an error fails the request.
    public func onResponse(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping (Transcript.Response) async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        nonisolated(unsafe) let action = action
        return modifier(_ProfileSetting { $0.onResponse.append(action) })
    }

    /// Runs `action` before each tool call.
    public func onToolCall(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        onToolCall { _ in try await action() }
    }

    /// Runs `action` with each tool call before the tool runs; an error fails the request.
    public func onToolCall(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping (Transcript.ToolCall) async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        nonisolated(unsafe) let action = action
        return modifier(_ProfileSetting { $0.onToolCall.append(action) })
    }

    /// Runs `action` after each tool call.
    public func onToolOutput(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        onToolOutput { _, _ in try await action() }
    }

    /// Runs `action` with each tool call and its output; an error fails the request.
    public func onToolOutput(
        @_inheritActorContext perform action: nonisolated(nonsending) sending @escaping (Transcript.ToolCall, Transcript.ToolOutput) async throws -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        nonisolated(unsafe) let action = action
        return modifier(_ProfileSetting { $0.onToolOutput.append(action) })
    }

    /// Runs `action` when this profile becomes the session's active one (at the first request, or when a
    /// condition switches to it).
    public func onActivate(@_inheritActorContext perform action: sending @escaping @isolated(any) () async -> Void) -> some LanguageModelSession.DynamicProfile {
        nonisolated(unsafe) let action = action
        return modifier(_ProfileSetting { $0.onActivate.append((key: $0.path.joined(separator: "/"), action: action)) })
    }

    /// Runs `action` when a condition switches the session away from this profile.
    public func onDeactivate(@_inheritActorContext perform action: sending @escaping @isolated(any) () async -> Void) -> some LanguageModelSession.DynamicProfile {
        nonisolated(unsafe) let action = action
        return modifier(_ProfileSetting { $0.onDeactivate.append((key: $0.path.joined(separator: "/"), action: action)) })
    }
}

/// A built-in modifier: one change to the resolved profile.
struct _ProfileSetting: LanguageModelSession.DynamicProfileModifier, PrimitiveProfileModifier {
    let change: (inout ResolvedProfile) -> Void

    init(_ change: @escaping (inout ResolvedProfile) -> Void) {
        self.change = change
    }

    func body(content: Content) -> some LanguageModelSession.DynamicProfile {
        content
    }

    func apply(to profile: inout ResolvedProfile) {
        change(&profile)
    }
}
