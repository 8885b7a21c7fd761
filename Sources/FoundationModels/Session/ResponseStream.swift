import Synchronization

extension LanguageModelSession {
    /// An async sequence of snapshots of a response as it is generated.
    ///
    /// Each snapshot holds the whole response so far — not a delta — as `Content.PartiallyGenerated`,
    /// with the same ``GeneratedContent/id`` throughout. Errors are thrown while iterating.
    ///
    /// ```swift
    /// for try await snapshot in session.streamResponse(to: "Write a haiku.") {
    ///     print(snapshot.content)
    /// }
    /// ```
    public struct ResponseStream<Content>: AsyncSequence where Content: Generable {
        /// A snapshot of partially generated content.
        public struct Snapshot {
            /// The content so far.
            public var content: Content.PartiallyGenerated
            /// The raw content so far; `isComplete` tells whether the response is finished.
            public var rawContent: GeneratedContent
        }

        /// The element type.
        public typealias Element = Snapshot

        let raw: AsyncThrowingStream<GeneratedContent, any Error>
        let outcome: StreamOutcome

        /// Iterates the snapshots.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<GeneratedContent, any Error>.AsyncIterator

            /// The next snapshot, or `nil` when the response is complete.
            public mutating func next() async throws -> Snapshot? {
                guard let raw = try await base.next() else { return nil }
                return Snapshot(content: try Content.PartiallyGenerated(raw), rawContent: raw)
            }
        }

        /// Creates an iterator.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: raw.makeAsyncIterator())
        }

        /// Waits for the response to finish and returns it; throws the stream's error if it failed.
        public nonisolated(nonsending) func collect() async throws -> sending Response<Content> {
            for try await _ in raw {}
            guard let final = outcome.value else {
                throw GenerationError.decodingFailure(.init(debugDescription: "The stream ended without a response."))
            }
            return Response(content: try Content(final.content), rawContent: final.content, transcriptEntries: final.entries)
        }
    }

    /// The final content and transcript entries of a streamed response, set once by the producer.
    final class StreamOutcome: Sendable {
        struct Final: Sendable {
            var content: GeneratedContent
            var entries: ArraySlice<Transcript.Entry>
        }
        private let storage = Mutex<Final?>(nil)
        var value: Final? { storage.withLock { $0 } }
        func set(_ final: Final) { storage.withLock { $0 = final } }
    }
}
