extension LanguageModelSession {
    // The macOS 26 methods, then the macOS 27 ones with context options and metadata. Calls that use no 27
    // parameter resolve to the 26 methods (fewer defaulted arguments win).
    //
    // ```swift
    // let response = try await session.respond(to: Prompt("Suggest a name for a cat."))
    // let tags = try await session.respond(to: text, generating: ContentTaggingResult.self).content
    // ```
    //
    // Every method throws what ``runTurn(_:progress:)`` throws: ``GenerationError`` for a session used through
    // the macOS 26 API, otherwise ``LanguageModelError`` and the other macOS 27 error types; ``ToolCallError``
    // when a tool fails.

    /// Produces a text response to a prompt.
    @discardableResult
    public nonisolated(nonsending) func respond(
        to prompt: Prompt,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<String> {
        try await perform(prompt, schema: nil, options: options, contextOptions: ContextOptions(), metadata: [:], current: false, as: String.self)
    }

    /// Produces a text response to a prompt written as a string.
    @discardableResult
    @_disfavoredOverload
    public nonisolated(nonsending) func respond(
        to prompt: String,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<String> {
        try await perform(Prompt(prompt), schema: nil, options: options, contextOptions: ContextOptions(), metadata: [:], current: false, as: String.self)
    }

    /// Produces a text response to a prompt built by a closure.
    @discardableResult
    public nonisolated(nonsending) func respond(
        options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<String> {
        try await perform(try prompt(), schema: nil, options: options, contextOptions: ContextOptions(), metadata: [:], current: false, as: String.self)
    }

    /// Produces content that follows a schema built at run time.
    @discardableResult
    public nonisolated(nonsending) func respond(
        to prompt: Prompt,
        schema: GenerationSchema,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<GeneratedContent> {
        try await perform(prompt, schema: schema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:], current: false, as: GeneratedContent.self)
    }

    /// Produces content that follows a schema, for a prompt written as a string.
    @discardableResult
    @_disfavoredOverload
    public nonisolated(nonsending) func respond(
        to prompt: String,
        schema: GenerationSchema,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<GeneratedContent> {
        try await perform(Prompt(prompt), schema: schema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:], current: false, as: GeneratedContent.self)
    }

    /// Produces content that follows a schema, for a prompt built by a closure.
    @discardableResult
    public nonisolated(nonsending) func respond(
        schema: GenerationSchema,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<GeneratedContent> {
        try await perform(try prompt(), schema: schema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:], current: false, as: GeneratedContent.self)
    }

    /// Produces a value of a generable type. The output is guaranteed to parse into `type` and to honour
    /// every guide: decoding is constrained by the type's schema token by token.
    ///
    /// ```swift
    /// let tags = try await session.respond(to: text, generating: ContentTaggingResult.self).content
    /// ```
    ///
    /// - Parameters:
    ///   - prompt: The prompt to respond to.
    ///   - type: The type to generate.
    ///   - includeSchemaInPrompt: Describes the schema in the prompt to guide the model (default); turn off
    ///     only when the model already knows the format, for example from examples earlier in the session.
    ///   - options: How to sample tokens, and the most tokens to generate.
    /// - Returns: The generated value, with the raw content and the transcript entries the request added.
    @discardableResult
    public nonisolated(nonsending) func respond<Content: Generable>(
        to prompt: Prompt,
        generating type: Content.Type = Content.self,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        try await perform(prompt, schema: type.generationSchema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:], current: false, as: type)
    }

    /// Produces a value of a generable type for a prompt written as a string.
    @discardableResult
    @_disfavoredOverload
    public nonisolated(nonsending) func respond<Content: Generable>(
        to prompt: String,
        generating type: Content.Type = Content.self,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        try await perform(Prompt(prompt), schema: type.generationSchema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:], current: false, as: type)
    }

    /// Produces a value of a generable type for a prompt built by a closure.
    @discardableResult
    public nonisolated(nonsending) func respond<Content: Generable>(
        generating type: Content.Type = Content.self,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<Content> {
        try await perform(try prompt(), schema: type.generationSchema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:], current: false, as: type)
    }

    /// Produces a text response to a prompt. Takes context options and metadata (macOS 27).
    ///
    /// - Parameters:
    ///   - prompt: The prompt.
    ///   - options: How the model generates the response.
    ///   - contextOptions: Whether the schema is described in the prompt, and how much a reasoning model reasons.
    ///   - metadata: Values recorded with the prompt in the transcript and passed to the executor.
    @discardableResult
    public nonisolated(nonsending) func respond(
        to prompt: Prompt,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) async throws -> Response<String> {
        try await perform(prompt, schema: nil, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: String.self)
    }

    /// Produces a text response to a prompt written as a string. Takes context options and metadata (macOS 27).
    @discardableResult
    @_disfavoredOverload
    public nonisolated(nonsending) func respond(
        to prompt: String,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) async throws -> Response<String> {
        try await perform(Prompt(prompt), schema: nil, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: String.self)
    }

    /// Produces a text response to a prompt built by a closure. Takes context options and metadata (macOS 27).
    @discardableResult
    public nonisolated(nonsending) func respond(
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any Sendable & Codable & Equatable] = [:],
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<String> {
        try await perform(try prompt(), schema: nil, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: String.self)
    }

    /// Produces content that follows a schema built at run time. Takes context options and metadata (macOS 27).
    @discardableResult
    @_disfavoredOverload
    public nonisolated(nonsending) func respond(
        to prompt: Prompt,
        schema: GenerationSchema,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) async throws -> Response<GeneratedContent> {
        try await perform(prompt, schema: schema, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: GeneratedContent.self)
    }

    /// Produces content that follows a schema, for a prompt written as a string. Takes context options and metadata (macOS 27).
    @discardableResult
    @_disfavoredOverload
    public nonisolated(nonsending) func respond(
        to prompt: String,
        schema: GenerationSchema,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) async throws -> Response<GeneratedContent> {
        try await perform(Prompt(prompt), schema: schema, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: GeneratedContent.self)
    }

    /// Produces content that follows a schema, for a prompt built by a closure. Takes context options and metadata (macOS 27).
    @discardableResult
    @_disfavoredOverload
    public nonisolated(nonsending) func respond(
        schema: GenerationSchema,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any Sendable & Codable & Equatable] = [:],
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<GeneratedContent> {
        try await perform(try prompt(), schema: schema, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: GeneratedContent.self)
    }

    /// Produces a value of a generable type. Takes context options and metadata (macOS 27).
    @discardableResult
    public nonisolated(nonsending) func respond<Content: Generable>(
        to prompt: Prompt,
        generating type: Content.Type = Content.self,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) async throws -> Response<Content> {
        try await perform(prompt, schema: type.generationSchema, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: type)
    }

    /// Produces a value of a generable type for a prompt written as a string. Takes context options and metadata (macOS 27).
    @discardableResult
    @_disfavoredOverload
    public nonisolated(nonsending) func respond<Content: Generable>(
        to prompt: String,
        generating type: Content.Type = Content.self,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) async throws -> Response<Content> {
        try await perform(Prompt(prompt), schema: type.generationSchema, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: type)
    }

    /// Produces a value of a generable type for a prompt built by a closure. Takes context options and metadata (macOS 27).
    @discardableResult
    public nonisolated(nonsending) func respond<Content: Generable>(
        generating type: Content.Type = Content.self,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any Sendable & Codable & Equatable] = [:],
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<Content> {
        try await perform(try prompt(), schema: type.generationSchema, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: type)
    }

    // MARK: Shared path

    private nonisolated(nonsending) func perform<Content: Generable>(
        _ prompt: Prompt,
        schema: GenerationSchema?,
        options: GenerationOptions,
        contextOptions: ContextOptions,
        metadata: [String: any Sendable & Codable & Equatable],
        current: Bool,
        as type: Content.Type
    ) async throws -> Response<Content> {
        let request = TurnRequest(prompt: prompt, options: options, contextOptions: contextOptions, metadata: metadata,
                                  schema: schema, schemaName: TurnRequest.schemaName(of: type, schema: schema), usesCurrentErrors: current,
                                  accepts: { _ = try Content($0) })
        try await awaitEndingStream()
        try beginTurn(usesCurrentErrors: request.usesCurrentErrors || usesCurrentErrors)
        let result = try await runTurn(request)
        return Response(content: try convert(result.content, to: type, current: current),
                        rawContent: result.content, transcriptEntries: result.entries, usage: result.usage)
    }

    /// The content as `Content`, or the parsing error (``GenerationError/decodingFailure(_:)`` for the 26 API).
    func convert<Content: Generable>(_ content: GeneratedContent, to type: Content.Type, current: Bool) throws -> Content {
        do { return try Content(content) } catch {
            throw publicError(GeneratedContent.ParsingError(rawContent: content.jsonString, underlyingError: error, debugDescription: "\(error)"),
                              usesCurrentErrors: current || usesCurrentErrors, entries: [])
        }
    }
}
