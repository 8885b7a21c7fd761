extension LanguageModelExecutorGenerationChannel {
    /// An update to the response entry: text, attachments, custom segments, metadata or usage.
    public struct Response: Event {
        /// The entry the event updates; `nil` means the request's response entry.
        public var entryID: String?
        /// What to do.
        public var action: Action

        /// ``EventKind`` of a response.
        public var kind: EventKind { EventKind(value: .response) }

        /// One change to a response entry.
        public enum Action: Sendable {
            /// Appends text to a segment.
            case appendText(TextFragment)
            /// Replaces the text of a segment.
            case replaceTextSegment(TextSegmentReplacement)
            /// Adds or replaces (by identifier) a custom segment.
            case updateCustomSegment(any Transcript.CustomSegment)
            /// Adds an attachment segment.
            case addAttachmentSegment(Transcript.AttachmentSegment)
            /// Removes an attachment segment.
            case removeAttachmentSegment(id: String)
            /// Merges metadata into the entry's.
            case updateMetadata(Metadata)
            /// Reports the request's token usage so far.
            case updateUsage(Usage)
        }
    }
}

extension LanguageModelExecutorGenerationChannel.Response.Action {
    /// Appends `text`, which carries `tokenCount` tokens, to a text segment of the response.
    public static func appendText(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Self {
        .appendText(.init(content: text, segmentID: segmentID, tokenCount: tokenCount))
    }

    /// Replaces the text of a segment of the response.
    public static func replaceTextSegment(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Self {
        .replaceTextSegment(.init(content: text, segmentID: segmentID, tokenCount: tokenCount))
    }

    /// Merges `values` into the response's metadata.
    public static func updateMetadata(_ values: [String: any Sendable & Codable & Equatable]) -> Self {
        .updateMetadata(.init(values: values))
    }

    /// Reports the request's token usage so far.
    public static func updateUsage(
        input: LanguageModelExecutorGenerationChannel.Usage.Input,
        output: LanguageModelExecutorGenerationChannel.Usage.Output
    ) -> Self {
        .updateUsage(.init(input: input, output: output))
    }
}

extension LanguageModelExecutorGenerationChannel.Event where Self == LanguageModelExecutorGenerationChannel.Response {
    /// An update to the response entry.
    ///
    /// ```swift
    /// await channel.send(.response(action: .appendText("Hello", tokenCount: 1)))
    /// ```
    public static func response(entryID: String? = nil, action: LanguageModelExecutorGenerationChannel.Response.Action) -> Self {
        LanguageModelExecutorGenerationChannel.Response(entryID: entryID, action: action)
    }
}
