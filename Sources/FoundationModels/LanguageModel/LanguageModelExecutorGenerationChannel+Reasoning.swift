public import Foundation

extension LanguageModelExecutorGenerationChannel {
    /// An update to a reasoning entry: the model's thinking before its answer.
    public struct Reasoning: Event {
        /// The reasoning entry the event updates; `nil` means the request's current one.
        public var entryID: String?
        /// What to do.
        public var action: Action

        /// ``EventKind`` of reasoning.
        public var kind: EventKind { EventKind(value: .reasoning) }

        /// One change to a reasoning entry.
        public enum Action: Sendable {
            /// Appends text to a segment.
            case appendText(TextFragment)
            /// Replaces the text of a segment.
            case replaceTextSegment(TextSegmentReplacement)
            /// Sets the reasoning's signature.
            case updateSignature(ReasoningSignature)
            /// Merges metadata into the entry's.
            case updateMetadata(Metadata)
            /// Reports the request's token usage so far.
            case updateUsage(Usage)
        }
    }
}

extension LanguageModelExecutorGenerationChannel.Reasoning.Action {
    /// Appends `text`, which carries `tokenCount` tokens, to a text segment of the reasoning.
    public static func appendText(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Self {
        .appendText(.init(content: text, segmentID: segmentID, tokenCount: tokenCount))
    }

    /// Replaces the text of a segment of the reasoning.
    public static func replaceTextSegment(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Self {
        .replaceTextSegment(.init(content: text, segmentID: segmentID, tokenCount: tokenCount))
    }

    /// Sets the reasoning's signature.
    public static func updateSignature(_ signature: Data, tokenCount: Int) -> Self {
        .updateSignature(.init(signature: signature, tokenCount: tokenCount))
    }

    /// Merges `values` into the reasoning's metadata.
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

extension LanguageModelExecutorGenerationChannel.Event where Self == LanguageModelExecutorGenerationChannel.Reasoning {
    /// An update to a reasoning entry.
    public static func reasoning(entryID: String? = nil, action: LanguageModelExecutorGenerationChannel.Reasoning.Action) -> Self {
        LanguageModelExecutorGenerationChannel.Reasoning(entryID: entryID, action: action)
    }
}
