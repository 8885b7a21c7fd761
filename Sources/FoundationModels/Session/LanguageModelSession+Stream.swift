import Foundation
import Synchronization

extension LanguageModelSession {
    // The macOS 26 methods, then the macOS 27 ones with context options and metadata. Each snapshot holds the
    // whole response so far, never a split character; errors are thrown while iterating.
    //
    // ```swift
    // for try await snapshot in session.streamResponse(to: "Tell me a story.") {
    //     print(snapshot.content)
    // }
    // ```

    /// Streams a text response to a prompt.
    public func streamResponse(
        to prompt: Prompt,
        options: GenerationOptions = GenerationOptions()
    ) -> sending ResponseStream<String> {
        stream(prompt, schema: nil, options: options, contextOptions: ContextOptions(), metadata: [:], current: false, as: String.self)
    }

    /// Streams a text response to a prompt written as a string.
    @_disfavoredOverload
    public func streamResponse(
        to prompt: String,
        options: GenerationOptions = GenerationOptions()
    ) -> sending ResponseStream<String> {
        stream(Prompt(prompt), schema: nil, options: options, contextOptions: ContextOptions(), metadata: [:], current: false, as: String.self)
    }

    /// Streams a text response to a prompt built by a closure.
    public func streamResponse(
        options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> sending ResponseStream<String> {
        stream(try prompt(), schema: nil, options: options, contextOptions: ContextOptions(), metadata: [:], current: false, as: String.self)
    }

    /// Streams content that follows a schema built at run time.
    public func streamResponse(
        to prompt: Prompt,
        schema: GenerationSchema,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> sending ResponseStream<GeneratedContent> {
        stream(prompt, schema: schema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:], current: false, as: GeneratedContent.self)
    }

    /// Streams content that follows a schema, for a prompt written as a string.
    @_disfavoredOverload
    public func streamResponse(
        to prompt: String,
        schema: GenerationSchema,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> sending ResponseStream<GeneratedContent> {
        stream(Prompt(prompt), schema: schema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:], current: false, as: GeneratedContent.self)
    }

    /// Streams content that follows a schema, for a prompt built by a closure.
    public func streamResponse(
        schema: GenerationSchema,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> sending ResponseStream<GeneratedContent> {
        stream(try prompt(), schema: schema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:], current: false, as: GeneratedContent.self)
    }

    /// Streams a value of a generable type.
    public func streamResponse<Content: Generable>(
        to prompt: Prompt,
        generating type: Content.Type = Content.self,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> sending ResponseStream<Content> {
        stream(prompt, schema: type.generationSchema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:], current: false, as: type)
    }

    /// Streams a value of a generable type for a prompt written as a string.
    @_disfavoredOverload
    public func streamResponse<Content: Generable>(
        to prompt: String,
        generating type: Content.Type = Content.self,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> sending ResponseStream<Content> {
        stream(Prompt(prompt), schema: type.generationSchema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:], current: false, as: type)
    }

    /// Streams a value of a generable type for a prompt built by a closure.
    public func streamResponse<Content: Generable>(
        generating type: Content.Type = Content.self,
        includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> sending ResponseStream<Content> {
        stream(try prompt(), schema: type.generationSchema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:], current: false, as: type)
    }

    /// Streams a text response to a prompt. Takes context options and metadata (macOS 27).
    ///
    /// - Parameters:
    ///   - prompt: The prompt.
    ///   - options: How the model generates the response.
    ///   - contextOptions: Whether the schema is described in the prompt, and how much a reasoning model reasons.
    ///   - metadata: Values recorded with the prompt in the transcript and passed to the executor.
    public func streamResponse(
        to prompt: Prompt,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) -> sending ResponseStream<String> {
        stream(prompt, schema: nil, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: String.self)
    }

    /// Streams a text response to a prompt written as a string. Takes context options and metadata (macOS 27).
    @_disfavoredOverload
    public func streamResponse(
        to prompt: String,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) -> sending ResponseStream<String> {
        stream(Prompt(prompt), schema: nil, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: String.self)
    }

    /// Streams a text response to a prompt built by a closure. Takes context options and metadata (macOS 27).
    public func streamResponse(
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any Sendable & Codable & Equatable] = [:],
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> sending ResponseStream<String> {
        stream(try prompt(), schema: nil, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: String.self)
    }

    /// Streams content that follows a schema built at run time. Takes context options and metadata (macOS 27).
    @_disfavoredOverload
    public func streamResponse(
        to prompt: Prompt,
        schema: GenerationSchema,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) -> sending ResponseStream<GeneratedContent> {
        stream(prompt, schema: schema, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: GeneratedContent.self)
    }

    /// Streams content that follows a schema, for a prompt written as a string. Takes context options and metadata (macOS 27).
    @_disfavoredOverload
    public func streamResponse(
        to prompt: String,
        schema: GenerationSchema,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) -> sending ResponseStream<GeneratedContent> {
        stream(Prompt(prompt), schema: schema, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: GeneratedContent.self)
    }

    /// Streams content that follows a schema, for a prompt built by a closure. Takes context options and metadata (macOS 27).
    @_disfavoredOverload
    public func streamResponse(
        schema: GenerationSchema,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any Sendable & Codable & Equatable] = [:],
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> sending ResponseStream<GeneratedContent> {
        stream(try prompt(), schema: schema, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: GeneratedContent.self)
    }

    /// Streams a value of a generable type. Takes context options and metadata (macOS 27).
    public func streamResponse<Content: Generable>(
        to prompt: Prompt,
        generating type: Content.Type = Content.self,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) -> sending ResponseStream<Content> {
        stream(prompt, schema: type.generationSchema, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: type)
    }

    /// Streams a value of a generable type for a prompt written as a string. Takes context options and metadata (macOS 27).
    @_disfavoredOverload
    public func streamResponse<Content: Generable>(
        to prompt: String,
        generating type: Content.Type = Content.self,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) -> sending ResponseStream<Content> {
        stream(Prompt(prompt), schema: type.generationSchema, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: type)
    }

    /// Streams a value of a generable type for a prompt built by a closure. Takes context options and metadata (macOS 27).
    public func streamResponse<Content: Generable>(
        generating type: Content.Type = Content.self,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any Sendable & Codable & Equatable] = [:],
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> sending ResponseStream<Content> {
        stream(try prompt(), schema: type.generationSchema, options: options, contextOptions: contextOptions, metadata: metadata, current: true, as: type)
    }

    // MARK: Shared path

    /// Starts generating at once; a request made while the session is responding yields a stream that
    /// throws `concurrentRequests`. Dropping the stream cancels generation. A stream requested right after
    /// another was dropped starts once that one's generation has wound down.
    private func stream<Content: Generable>(
        _ prompt: Prompt,
        schema: GenerationSchema?,
        options: GenerationOptions,
        contextOptions: ContextOptions,
        metadata: [String: any Sendable & Codable & Equatable],
        current: Bool,
        as type: Content.Type
    ) -> sending ResponseStream<Content> {
        let outcome = StreamOutcome()
        let (raw, continuation) = AsyncThrowingStream<TurnProgress, any Swift.Error>.makeStream()
        let request = TurnRequest(prompt: prompt, options: options, contextOptions: contextOptions, metadata: metadata,
                                  schema: schema, schemaName: TurnRequest.schemaName(of: type, schema: schema), usesCurrentErrors: current,
                                  accepts: { _ = try Content($0) })
        let current = current || usesCurrentErrors
        let ending = endingStreamToAwait
        if ending == nil {
            do {
                try beginTurn(usesCurrentErrors: current)
            } catch {
                outcome.fail(error)
                continuation.finish(throwing: error)
                return ResponseStream(raw: raw, outcome: outcome, session: self, current: current)
            }
        }
        let end = StreamEnd()
        let task = Task {
            defer {
                self.state.withLock { state in
                    end.markOver()
                    if state.endingStream === end { state.endingStream = nil }
                }
            }
            do {
                // The dropped stream seen when this one was asked for, even if this one was dropped since: this
                // one's end must not come before that one's, or a request waiting for this one would start while
                // that one still responds. (A separate task, so this one's cancellation does not cut the wait.)
                if let ending {
                    await Task { await ending.wait() }.value
                    try Task.checkCancellation()
                    try self.beginTurn(usesCurrentErrors: current)
                }
                let result = try await self.runTurn(request) { continuation.yield($0) }
                outcome.set(.init(content: result.content, entries: result.entries, usage: result.usage))
                continuation.yield(TurnProgress(content: result.content, entries: result.entries, usage: result.usage))
                continuation.finish()
            } catch {
                outcome.fail(error)
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { [weak self] termination in
            guard case .cancelled = termination else { return }
            task.cancel()
            self?.state.withLock { state in
                if !end.isOver { state.endingStream = end }
            }
        }
        return ResponseStream(raw: raw, outcome: outcome, session: self, current: current)
    }
}
