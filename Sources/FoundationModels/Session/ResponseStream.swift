import Synchronization

extension LanguageModelSession {
    /// An async sequence of snapshots of a response as it is generated.
    ///
    /// Each snapshot holds the whole response so far — not a delta — as `Content.PartiallyGenerated`,
    /// with the same ``GeneratedContent/id`` throughout. Errors are thrown while iterating.
    ///
    /// ```swift
    /// for try await snapshot in session.streamResponse(to: "Write a haiku.") {
    ///     print(snapshot.content, snapshot.usage.output.totalTokenCount)
    /// }
    /// ```
    public struct ResponseStream<Content>: AsyncSequence where Content: Generable {
        /// A snapshot of partially generated content.
        public struct Snapshot {
            /// The content so far. A property whose value is still arriving and cannot be read yet (an enum case
            /// half written) is `nil`, as is an array's last element in that state.
            public var content: Content.PartiallyGenerated
            /// The raw content so far; `isComplete` tells whether the response is finished.
            public var rawContent: GeneratedContent
            /// The transcript entries of the request so far: the prompt, any tool calls and outputs, and the
            /// response being generated.
            public var transcriptEntries: ArraySlice<Transcript.Entry>
            /// The tokens used so far.
            public var usage: Usage
        }

        /// The element type.
        public typealias Element = Snapshot

        let raw: AsyncThrowingStream<TurnProgress, any Swift.Error>
        let outcome: StreamOutcome
        let session: LanguageModelSession
        let current: Bool

        /// Iterates the snapshots.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<TurnProgress, any Swift.Error>.AsyncIterator
            let outcome: StreamOutcome
            let session: LanguageModelSession
            let current: Bool
            /// Whether this iterator has returned `nil` or thrown: it then returns `nil`, as iterators do.
            var isFinished = false

            /// The next snapshot, or `nil` when the response is complete.
            public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> Snapshot? {
                guard !isFinished else { return nil }
                do {
                    while let progress = try await base.next(isolation: actor) {
                        if let snapshot = try snapshot(progress) { return snapshot }
                    }
                    isFinished = true
                    try checkEnd()
                    return nil
                } catch {
                    isFinished = true
                    throw error
                }
            }

            /// The next snapshot, or `nil` when the response is complete.
            public mutating func next() async throws -> Snapshot? {
                try await next(isolation: nil)
            }

            /// Throws when the snapshots ended without a response, so a loop never ends as if a half response
            /// were whole: `CancellationError` when the task reading them was cancelled (which ends the stream
            /// and its generation, and may drop the last snapshot), or the stream's error when an earlier loop
            /// already received it.
            private func checkEnd() throws {
                switch outcome.result {
                // Generation finished, but a cancelled reader may have missed the final snapshot.
                case .success: if Task.isCancelled { throw CancellationError() }
                case .failure(let error): throw error
                case nil: throw CancellationError()
                }
            }

            /// The snapshot of `progress`, or `nil` for content that cannot be read until more of it arrives
            /// (a value whose partial form is the type itself, such as an enum, while it is being written).
            private func snapshot(_ progress: TurnProgress) throws -> Snapshot? {
                let content: Content.PartiallyGenerated
                do { content = try Content.PartiallyGenerated(progress.content) } catch {
                    if !progress.content.isComplete { return nil }
                    throw session.publicError(
                        GeneratedContent.ParsingError(rawContent: progress.content.jsonString, underlyingError: error, debugDescription: "\(error)"),
                        usesCurrentErrors: current, entries: [])
                }
                return Snapshot(content: content, rawContent: progress.content, transcriptEntries: progress.entries, usage: progress.usage)
            }
        }

        /// Creates an iterator.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: raw.makeAsyncIterator(), outcome: outcome, session: session, current: current)
        }

        /// Waits for the response to finish and returns it; throws the stream's error if it failed, also after an
        /// iteration that has already received that error.
        public nonisolated(nonsending) func collect() async throws -> sending Response<Content> {
            for try await _ in raw {}
            if case .failure(let error) = outcome.result { throw error }
            // Snapshots end without a response only when the task collecting them was cancelled.
            guard case .success(let final) = outcome.result else { throw CancellationError() }
            return Response(content: try session.convert(final.content, to: Content.self, current: current),
                            rawContent: final.content, transcriptEntries: final.entries, usage: final.usage)
        }
    }

    /// The final content, transcript entries and usage of a streamed response, set once by the producer.
    final class StreamOutcome: Sendable {
        struct Final: Sendable {
            var content: GeneratedContent
            var entries: ArraySlice<Transcript.Entry>
            var usage: Usage
        }
        private let storage = Mutex<Result<Final, any Swift.Error>?>(nil)
        /// The response, or the error that ended the stream; `nil` while it runs.
        var result: Result<Final, any Swift.Error>? { storage.withLock { $0 } }
        func set(_ final: Final) { storage.withLock { $0 = .success(final) } }
        /// Keeps the error, which the stream hands to its first reader only, for a later ``ResponseStream/collect()``.
        func fail(_ error: any Swift.Error) { storage.withLock { $0 = .failure(error) } }
    }
}
