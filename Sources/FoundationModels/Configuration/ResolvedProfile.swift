/// What a profile stands for at one moment: instructions and tools, the model, the options it sets, and the
/// hooks to run. A value set by a modifier nearer the profile wins over one set further out.
struct ResolvedProfile {
    var instructions = ResolvedInstructions()
    var model: ModelBackend?
    var temperature: Double??
    var samplingMode: GenerationOptions.SamplingMode??
    var maximumResponseTokens: Int??
    var reasoningLevel: ContextOptions.ReasoningLevel??
    var toolCallingMode: GenerationOptions.ToolCallingMode??
    var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy??
    var historyTransforms: [([Transcript.Entry]) -> [Transcript.Entry]] = []
    var onPrompt: [(Transcript.Prompt) async throws -> Void] = []
    var onResponse: [(Transcript.Response) async throws -> Void] = []
    var onToolCall: [(Transcript.ToolCall) async throws -> Void] = []
    var onToolOutput: [(Transcript.ToolCall, Transcript.ToolOutput) async throws -> Void] = []
    /// Activation hooks by the position of their modifier in the profile, so a branch switch can be told.
    var onActivate: [(key: String, action: @isolated(any) () async -> Void)] = []
    var onDeactivate: [(key: String, action: @isolated(any) () async -> Void)] = []
    /// Where in the profile resolution is, for the activation keys.
    var path: [String] = []

    /// `options` with the profile's values where the request left them unset.
    func applying(to options: GenerationOptions) -> GenerationOptions {
        var options = options
        if options.temperature == nil, let temperature { options.temperature = temperature }
        if options.samplingMode == nil, let samplingMode { options.samplingMode = samplingMode }
        if options.maximumResponseTokens == nil, let maximumResponseTokens { options.maximumResponseTokens = maximumResponseTokens }
        if options.toolCallingMode == nil, let toolCallingMode { options.toolCallingMode = toolCallingMode }
        return options
    }

    /// `options` with the profile's reasoning level where the request left it unset.
    func applying(to options: ContextOptions) -> ContextOptions {
        var options = options
        if options.reasoningLevel == nil, let reasoningLevel { options.reasoningLevel = reasoningLevel }
        return options
    }

    /// The history as the model should see it.
    func transformedHistory(_ entries: [Transcript.Entry]) -> [Transcript.Entry] {
        historyTransforms.reduce(entries) { entries, transform in transform(entries) }
    }
}

/// The building blocks of profiles that resolve themselves instead of through a body.
protocol PrimitiveDynamicProfile {
    func resolve(into result: inout ResolvedProfile)
}

extension LanguageModelSession.DynamicProfile {
    /// Works out what the profile stands for now, reading session properties in bodies.
    func resolve(into result: inout ResolvedProfile) {
        if let primitive = self as? any PrimitiveDynamicProfile {
            primitive.resolve(into: &result)
        } else {
            result.path.append(String(describing: Self.self))
            body.resolve(into: &result)
            result.path.removeLast()
        }
    }
}

extension LanguageModelSession.Profile: PrimitiveDynamicProfile {
    func resolve(into result: inout ResolvedProfile) {
        instructions.resolve(into: &result.instructions)
    }
}

extension LanguageModelSession.ConditionalDynamicProfile: PrimitiveDynamicProfile {
    func resolve(into result: inout ResolvedProfile) {
        switch branch {
        case .trueContent(let content):
            result.path.append("true")
            content.resolve(into: &result)
        case .falseContent(let content):
            result.path.append("false")
            content.resolve(into: &result)
        }
        result.path.removeLast()
    }
}

extension LanguageModelSession.DynamicProfileModifierContent: PrimitiveDynamicProfile {
    func resolve(into result: inout ResolvedProfile) {
        resolveContent(&result)
    }
}

extension LanguageModelSession.ModifiedDynamicProfile: PrimitiveDynamicProfile {
    func resolve(into result: inout ResolvedProfile) {
        result.path.append(String(describing: Modifier.self))
        defer { result.path.removeLast() }
        if let primitive = modifier as? any PrimitiveProfileModifier {
            // The modifier's values first, so the content's own (nearer) modifiers override them.
            primitive.apply(to: &result)
            content.resolve(into: &result)
            return
        }
        let content = self.content
        modifier.body(content: LanguageModelSession.DynamicProfileModifierContent { content.resolve(into: &$0) }).resolve(into: &result)
    }
}

extension Never: PrimitiveDynamicProfile {
    func resolve(into result: inout ResolvedProfile) {}
}

/// The built-in modifiers, which change the resolved profile directly.
protocol PrimitiveProfileModifier {
    func apply(to profile: inout ResolvedProfile)
}
