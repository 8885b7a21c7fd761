extension Transcript {
    /// Content of a type you define, carried in a transcript segment.
    ///
    /// ```swift
    /// struct Citation: Transcript.CustomSegment {
    ///     var id = UUID().uuidString
    ///     var content: Source        // any Codable, Equatable, Sendable value
    ///     var description: String { "Source: \(content.title)" }
    /// }
    /// let prompt = Prompt { "Summarize this source."; Citation(content: source) }
    /// ```
    ///
    /// The on-device model reads a custom segment as its ``description``; other executors may interpret the
    /// content their own way.
    public protocol CustomSegment: InstructionsRepresentable, PromptRepresentable, CustomStringConvertible, Equatable,
        Identifiable, Sendable
    {
        /// The content's type.
        associatedtype Content: Decodable, Encodable, Equatable, Sendable
        /// The segment's identifier.
        var id: String { get }
        /// The content.
        var content: Self.Content { get }
    }
}

extension Transcript.CustomSegment {
    /// A prompt holding this segment.
    public var promptRepresentation: Prompt {
        return Prompt(segments: [.custom(self)])
    }

    /// Instructions holding this segment.
    public var instructionsRepresentation: Instructions {
        return Instructions(segments: [.custom(self)])
    }

    /// Whether `other` is a segment of the same type with an equal value.
    public func isEqual(to other: some Transcript.CustomSegment) -> Bool {
        (other as? Self) == self
    }

    /// The segment's identifier and its content.
    public var description: String { "\(content)" }
}
