public import Foundation

extension Transcript {
    /// The model's reasoning: what it wrote before its response or tool calls.
    ///
    /// Reasoning entries come from models with the ``LanguageModelCapabilities/Capability/reasoning``
    /// capability; the on-device model on Linux writes none.
    public struct Reasoning: Sendable, Identifiable, Equatable, CustomStringConvertible {
        /// The identifier.
        public var id: String
        /// The reasoning's content.
        public var segments: [Segment]
        /// An opaque signature a provider may require when the reasoning is sent back.
        public var signature: Data?
        /// What the executor reported about the reasoning.
        public var metadata: [String: any Codable & Sendable & Equatable]

        /// Creates a reasoning entry.
        public init(
            id: String = UUID().uuidString,
            metadata: [String: any Sendable & Codable & Equatable] = [:],
            segments: [Segment],
            signature: Data? = nil
        ) {
            self.id = id
            self.metadata = metadata
            self.segments = segments
            self.signature = signature
        }

        /// The segments' text.
        public var description: String { segments.map(\.description).joined(separator: "\n") }

        /// Reasoning entries are equal when their identifiers, content, signatures and metadata are.
        public static func == (lhs: Reasoning, rhs: Reasoning) -> Bool {
            lhs.id == rhs.id && lhs.segments == rhs.segments && lhs.signature == rhs.signature
                && Transcript.metadataEqual(lhs.metadata, rhs.metadata)
        }
    }
}
