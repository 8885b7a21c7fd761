extension LanguageModelSession {
    // MARK: Text

    /// Produces a text response to a prompt.
    ///
    /// ```swift
    /// let response = try await session.respond(to: Prompt("Suggest a name for a cat."))
    /// ```
    ///
    /// - Throws: ``GenerationError`` (for example `exceededContextWindowSize` or `concurrentRequests`),
    ///   or ``ToolCallError`` when a tool fails.
    @discardableResult
    public nonisolated(nonsending) func respond(
        to prompt: Prompt,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<String> {
        try await perform(prompt.text, schema: nil, includeSchemaInPrompt: false, options: options, as: String.self)
    }

    /// Produces a text response to a prompt written as a string.
    @discardableResult
    public nonisolated(nonsending) func respond(
        to prompt: String,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<String> {
        try await perform(prompt, schema: nil, includeSchemaInPrompt: false, options: options, as: String.self)
    }

    /// Produces a text response to a prompt built by a closure.
    @discardableResult
    public nonisolated(nonsending) func respond(
        options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<String> {
        try await perform(try prompt().text, schema: nil, includeSchemaInPrompt: false, options: options, as: String.self)
    }

    // MARK: Generable types

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
        try await perform(prompt.text, schema: type.generationSchema, includeSchemaInPrompt: includeSchemaInPrompt, options: options, as: type)
    }

    /// Produces a value of a generable type for a prompt written as a string.
    @discardableResult
    public nonisolated(nonsending) func respond<Content: Generable>(
        to prompt: String,
        generating type: Content.Type = Content.self,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        try await perform(prompt, schema: type.generationSchema, includeSchemaInPrompt: includeSchemaInPrompt, options: options, as: type)
    }

    /// Produces a value of a generable type for a prompt built by a closure.
    @discardableResult
    public nonisolated(nonsending) func respond<Content: Generable>(
        generating type: Content.Type = Content.self,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<Content> {
        try await perform(try prompt().text, schema: type.generationSchema, includeSchemaInPrompt: includeSchemaInPrompt, options: options, as: type)
    }

    // MARK: Dynamic schemas

    /// Produces content that follows a schema built at run time.
    @discardableResult
    public nonisolated(nonsending) func respond(
        to prompt: Prompt,
        schema: GenerationSchema,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<GeneratedContent> {
        try await perform(prompt.text, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options, as: GeneratedContent.self)
    }

    /// Produces content that follows a schema, for a prompt written as a string.
    @discardableResult
    public nonisolated(nonsending) func respond(
        to prompt: String,
        schema: GenerationSchema,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<GeneratedContent> {
        try await perform(prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options, as: GeneratedContent.self)
    }

    /// Produces content that follows a schema, for a prompt built by a closure.
    @discardableResult
    public nonisolated(nonsending) func respond(
        schema: GenerationSchema,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<GeneratedContent> {
        try await perform(try prompt().text, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options, as: GeneratedContent.self)
    }

    // MARK: Shared path

    private nonisolated(nonsending) func perform<Content: Generable>(
        _ prompt: String,
        schema: GenerationSchema?,
        includeSchemaInPrompt: Bool,
        options: GenerationOptions,
        as type: Content.Type
    ) async throws -> Response<Content> {
        try beginTurn()
        let request = TurnRequest(prompt: prompt, options: options, schema: schema,
                                  includeSchemaInPrompt: includeSchemaInPrompt, sourceName: String(describing: type))
        let result = try await runTurn(request)
        let content: Content
        do { content = try Content(result.content) } catch {
            throw GenerationError.decodingFailure(.init(debugDescription: "\(error)"))
        }
        return Response(content: content, rawContent: result.content, transcriptEntries: result.entries)
    }
}
