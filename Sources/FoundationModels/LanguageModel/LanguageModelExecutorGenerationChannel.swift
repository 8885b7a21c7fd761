public import Foundation

/// A type you use to send model output deltas and updates to the framework.
///
/// An executor sends events as its model produces them — text fragments of the response, reasoning, tool
/// calls, metadata and token usage — and the session turns them into snapshots, transcript entries and
/// ``LanguageModelSession/Usage``:
///
/// ```swift
/// func respond(
///     to request: LanguageModelExecutorGenerationRequest,
///     model: MyModel,
///     streamingInto channel: LanguageModelExecutorGenerationChannel
/// ) async throws {
///     for try await piece in myRuntime.generate(request) {
///         await channel.send(.response(action: .appendText(piece.text, tokenCount: piece.tokens)))
///     }
///     await channel.send(.response(action: .updateUsage(
///         input: .init(totalTokenCount: 120, cachedTokenCount: 96),
///         output: .init(totalTokenCount: 31, reasoningTokenCount: 0))))
/// }
/// ```
///
/// Events with the same `entryID` (or none) build one transcript entry; text with the same `segmentID` (or none)
/// builds one segment.
public struct LanguageModelExecutorGenerationChannel: AsyncSequence, Sendable {
    /// The element type: one event.
    public typealias Element = any Event

    private let stream: AsyncThrowingStream<any Event, any Swift.Error>
    private let continuation: AsyncThrowingStream<any Event, any Swift.Error>.Continuation

    /// Creates an empty channel.
    public init() {
        (stream, continuation) = AsyncThrowingStream<any Event, any Swift.Error>.makeStream()
    }

    /// Sends one event to the channel's reader.
    public nonisolated(nonsending) func send(_ event: some Event) async {
        continuation.yield(event)
    }

    /// Sends an event without waiting (for engines that report from their own threads).
    package func yield(_ event: some Event) {
        continuation.yield(event)
    }

    /// Ends the sequence: the reader's loop finishes, or throws `error`.
    package func finish(throwing error: (any Swift.Error)? = nil) {
        continuation.finish(throwing: error)
    }

    /// Creates the iterator. A channel has one reader.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator())
    }

    /// Iterates the events in the order they were sent.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<any Event, any Swift.Error>.AsyncIterator

        /// The next event, or `nil` once the executor is done.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> (any Event)? {
            try await base.next(isolation: actor)
        }

        /// The next event, or `nil` once the executor is done.
        public mutating func next() async throws -> (any Event)? {
            try await base.next()
        }
    }

    /// One update from an executor: a ``Response``, ``Reasoning`` or ``ToolCalls`` event.
    public protocol Event: Sendable {
        /// Which kind of entry the event updates.
        var kind: EventKind { get }
    }

    /// The kind of transcript entry an event updates.
    public struct EventKind: Sendable {
        enum Value: Sendable, Equatable { case response, reasoning, toolCalls }
        let value: Value
    }
}

extension LanguageModelExecutorGenerationChannel {
    /// Key-value metadata an executor attaches to an entry — model identifiers, request identifiers.
    public struct Metadata: Sendable {
        /// The values.
        public var values: [String: any Sendable & Codable & Equatable]

        init(values: [String: any Sendable & Codable & Equatable]) {
            self.values = values
        }
    }

    /// Token counts of a request: its input (the transcript) and its output.
    public struct Usage: Sendable {
        /// The input's token counts.
        public var input: Input
        /// The output's token counts.
        public var output: Output

        /// Input token counts.
        public struct Input: Sendable {
            /// The total number of input tokens from the transcript.
            public var totalTokenCount: Int
            /// The number of input tokens that were served from a cache.
            public var cachedTokenCount: Int

            /// Creates input token counts for the transcript submitted to the model.
            public init(totalTokenCount: Int, cachedTokenCount: Int) {
                self.totalTokenCount = totalTokenCount
                self.cachedTokenCount = cachedTokenCount
            }
        }

        /// Output token counts.
        public struct Output: Sendable {
            /// The total number of tokens the model produced, reasoning included.
            public var totalTokenCount: Int
            /// The tokens spent on reasoning.
            public var reasoningTokenCount: Int

            /// Creates output token counts.
            public init(totalTokenCount: Int, reasoningTokenCount: Int) {
                self.totalTokenCount = totalTokenCount
                self.reasoningTokenCount = reasoningTokenCount
            }
        }

        /// Creates usage counts.
        public init(input: Input, output: Output) {
            self.input = input
            self.output = output
        }
    }

    /// Text to append to a streaming entry's segment.
    public struct TextFragment: Sendable {
        /// The text.
        public var content: String
        /// The segment the text belongs to; `nil` continues the entry's current text segment.
        public var segmentID: String?
        /// The number of tokens the text carries.
        public var tokenCount: Int

        init(content: String, segmentID: String?, tokenCount: Int) {
            self.content = content
            self.segmentID = segmentID
            self.tokenCount = tokenCount
        }
    }

    /// Replace a streaming entry's current text segment with content.
    ///
    /// The `tokenCount` is the producer's count of tokens carried by `content`.
    public struct TextSegmentReplacement: Sendable {
        /// The new text of the segment.
        public var content: String
        /// The segment to replace; `nil` means the entry's current text segment.
        public var segmentID: String?
        /// The number of tokens the text carries.
        public var tokenCount: Int

        init(content: String, segmentID: String?, tokenCount: Int) {
            self.content = content
            self.segmentID = segmentID
            self.tokenCount = tokenCount
        }
    }

    /// An opaque signature over reasoning, for models whose providers verify it when the reasoning is sent back.
    public struct ReasoningSignature: Sendable {
        /// The signature.
        public var signature: Data
        /// The tokens the signature stands for.
        public var tokenCount: Int

        init(signature: Data, tokenCount: Int) {
            self.signature = signature
            self.tokenCount = tokenCount
        }
    }
}
