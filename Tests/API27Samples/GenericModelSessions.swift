import FoundationModels

// Code in the style of Apple's macOS 27 documentation. This target only has to compile: it proves that code
// written against Apple's framework builds unchanged here.

/// A session for whichever model the caller picks: the on-device one or a package's.
func makeAssistant(using model: some LanguageModel, tools: [any Tool] = []) -> LanguageModelSession {
    LanguageModelSession(model: model, tools: tools, instructions: "You are a helpful assistant.")
}

/// Summarizes text with any model, greedily, and reports the tokens it took.
func summarize(_ text: String, with model: some LanguageModel) async throws -> (summary: String, tokens: Int) {
    let session = LanguageModelSession(model: model) {
        "Summarize the text in one sentence."
    }
    let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 120)
    let response = try await session.respond(to: text, options: options)
    let usage = response.usage
    print("input \(usage.input.totalTokenCount) (\(usage.input.cachedTokenCount) cached), output \(usage.output.totalTokenCount)")
    return (response.content, session.usage.totalTokenCount)
}

/// A model the capabilities decide about.
func describeCapabilities(of model: some LanguageModel) -> [String] {
    var found: [String] = []
    if model.capabilities.contains(.guidedGeneration) { found.append("guided generation") }
    if model.capabilities.contains(.toolCalling) { found.append("tool calling") }
    if model.capabilities.contains(.reasoning) { found.append("reasoning") }
    if model.capabilities.contains(.vision) { found.append("vision") }
    return found
}

@Generable
struct TripIdea {
    @Guide(description: "A short title")
    var title: String
    @Guide(.count(3))
    var activities: [String]
}

/// Guided generation with context options and metadata, streamed.
func planTrip(to city: String, with model: some LanguageModel) async throws -> TripIdea {
    let session = LanguageModelSession(model: model, transcript: Transcript())
    let stream = session.streamResponse(
        to: "Plan a day in \(city).",
        generating: TripIdea.self,
        options: GenerationOptions(samplingMode: .random(probabilityThreshold: 0.9, seed: 7), temperature: 0.7),
        contextOptions: ContextOptions(includeSchemaInPrompt: true, reasoningLevel: nil),
        metadata: ["feature": "trip-planner"]
    )
    for try await snapshot in stream {
        print(snapshot.content.title ?? "…", snapshot.usage.output.totalTokenCount, snapshot.transcriptEntries.count)
    }
    return try await stream.collect().content
}

/// The sampling mode as a value: optional, equatable, and inspectable.
func describe(_ options: GenerationOptions) -> String {
    guard let mode = options.samplingMode else { return "the model's default" }
    if mode == .greedy { return "greedy" }
    switch mode.kind {
    case .greedy: return "greedy"
    case .top(let k, let seed): return "top \(k), seed \(seed.map(String.init) ?? "none")"
    case .nucleus(let threshold, let seed): return "nucleus \(threshold), seed \(seed.map(String.init) ?? "none")"
    }
}

/// Tool calling modes and the session's transcript policy.
func lookUpFirst(_ session: LanguageModelSession) async throws -> String {
    session.transcriptErrorHandlingPolicy = .preserveTranscript
    let options = GenerationOptions(samplingMode: nil, temperature: nil, maximumResponseTokens: nil, toolCallingMode: .required)
    switch options.toolCallingMode?.kind {
    case .allowed?, .required?, .disallowed?, nil: break
    }
    return try await session.respond(to: "What's the weather in Lisbon?", options: options, contextOptions: ContextOptions()).content
}
