extension LanguageModelSession {
    // MARK: Text

    /// Streams a text response: each snapshot holds the whole text so far, never a split character.
    ///
    /// ```swift
    /// for try await snapshot in session.streamResponse(to: "Tell me a story.") {
    ///     print(snapshot.content)
    /// }
    /// ```
    public func streamResponse(to prompt: Prompt, options: GenerationOptions = GenerationOptions()) -> ResponseStream<String> {
        stream(prompt.text, schema: nil, includeSchemaInPrompt: false, options: options, as: String.self)
    }

    /// Streams a text response to a prompt written as a string.
    public func streamResponse(to prompt: String, options: GenerationOptions = GenerationOptions()) -> ResponseStream<String> {
        stream(prompt, schema: nil, includeSchemaInPrompt: false, options: options, as: String.self)
    }

    /// Streams a text response to a prompt built by a closure.
    public func streamResponse(
        options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<String> {
        stream(try prompt().text, schema: nil, includeSchemaInPrompt: false, options: options, as: String.self)
    }

    // MARK: Generable types

    /// Streams a value of a generable type as `PartiallyGenerated` snapshots.
    public func streamResponse<Content: Generable>(
        to prompt: Prompt,
        generating type: Content.Type = Content.self,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<Content> {
        stream(prompt.text, schema: type.generationSchema, includeSchemaInPrompt: includeSchemaInPrompt, options: options, as: type)
    }

    /// Streams a value of a generable type for a prompt written as a string.
    public func streamResponse<Content: Generable>(
        to prompt: String,
        generating type: Content.Type = Content.self,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<Content> {
        stream(prompt, schema: type.generationSchema, includeSchemaInPrompt: includeSchemaInPrompt, options: options, as: type)
    }

    /// Streams a value of a generable type for a prompt built by a closure.
    public func streamResponse<Content: Generable>(
        generating type: Content.Type = Content.self,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<Content> {
        stream(try prompt().text, schema: type.generationSchema, includeSchemaInPrompt: includeSchemaInPrompt, options: options, as: type)
    }

    // MARK: Dynamic schemas

    /// Streams content that follows a schema built at run time.
    public func streamResponse(
        to prompt: Prompt,
        schema: GenerationSchema,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<GeneratedContent> {
        stream(prompt.text, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options, as: GeneratedContent.self)
    }

    /// Streams content that follows a schema, for a prompt written as a string.
    public func streamResponse(
        to prompt: String,
        schema: GenerationSchema,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<GeneratedContent> {
        stream(prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options, as: GeneratedContent.self)
    }

    /// Streams content that follows a schema, for a prompt built by a closure.
    public func streamResponse(
        schema: GenerationSchema,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<GeneratedContent> {
        stream(try prompt().text, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options, as: GeneratedContent.self)
    }

    // MARK: Shared path

    /// Starts generating at once; a request made while the session is responding yields a stream that
    /// throws `concurrentRequests`. Dropping the stream cancels generation.
    private func stream<Content: Generable>(
        _ prompt: String,
        schema: GenerationSchema?,
        includeSchemaInPrompt: Bool,
        options: GenerationOptions,
        as type: Content.Type
    ) -> ResponseStream<Content> {
        let outcome = StreamOutcome()
        let (raw, continuation) = AsyncThrowingStream<GeneratedContent, any Error>.makeStream()
        do {
            try beginTurn()
        } catch {
            continuation.finish(throwing: error)
            return ResponseStream(raw: raw, outcome: outcome)
        }
        let request = TurnRequest(prompt: prompt, options: options, schema: schema,
                                  includeSchemaInPrompt: includeSchemaInPrompt, sourceName: String(describing: type))
        let task = Task {
            do {
                let result = try await self.runTurn(request) { continuation.yield($0) }
                outcome.set(.init(content: result.content, entries: result.entries))
                continuation.yield(result.content)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return ResponseStream(raw: raw, outcome: outcome)
    }
}
