/// A reference, by label, to an image attached earlier in the conversation: a value the model generates to
/// point at one of the images it was shown.
///
/// Use it as a property of a `@Generable` type, then look the image up in the session's transcript:
///
/// ```swift
/// @Generable
/// struct BestShot {
///     var photo: ImageReference
///     var reason: String
/// }
///
/// let response = try await session.respond(to: prompt, generating: BestShot.self)
/// let image = response.content.photo.resolve(in: session.transcript)
/// ```
///
/// The model writes the label it was given with ``Attachment/label(_:)``. On Linux the on-device model
/// reads no images; executors of vision models use this the same way.
public struct ImageReference: Sendable, Equatable {
    /// The label of the referenced attachment.
    public let attachmentLabel: String

    /// The image attachment whose label is ``attachmentLabel`` — the most recent one when several share it —
    /// or `nil` when the transcript holds none.
    public func resolve(in transcript: Transcript) -> Transcript.ImageAttachment? {
        for entry in transcript.reversed() {
            for case .attachment(let attachment) in Self.segments(of: entry).reversed() where attachment.label == attachmentLabel {
                switch attachment.content {
                case .image(let image): return image
                }
            }
        }
        return nil
    }

    private static func segments(of entry: Transcript.Entry) -> [Transcript.Segment] {
        switch entry {
        case .instructions(let instructions): instructions.segments
        case .prompt(let prompt): prompt.segments
        case .reasoning(let reasoning): reasoning.segments
        case .toolOutput(let output): output.segments
        case .response(let response): response.segments
        case .toolCalls: []
        }
    }

    /// The schema: an object with the attachment's label.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(
            type: Self.self,
            description: "A reference to an attached image",
            properties: [
                GenerationSchema.Property(name: "attachmentLabel", description: "The label of the attached image", type: String.self)
            ]
        )
    }

    /// The reference as generated content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["attachmentLabel": attachmentLabel])
    }

    /// A reference while it is being generated.
    public struct PartiallyGenerated: Identifiable, ConvertibleFromGeneratedContent, Equatable {
        /// The identity of the value being generated.
        public var id: GenerationID
        /// The label so far.
        public var attachmentLabel: String.PartiallyGenerated?

        /// Reads a partial reference.
        public init(_ content: GeneratedContent) throws {
            id = content.id ?? GenerationID()
            attachmentLabel = try content.value(forProperty: "attachmentLabel")
        }
    }
}

extension ImageReference: Generable {
    /// Reads a reference from generated content.
    ///
    /// - Throws: When the content has no `attachmentLabel` string.
    public init(_ content: GeneratedContent) throws {
        attachmentLabel = try content.value(forProperty: "attachmentLabel")
    }
}
