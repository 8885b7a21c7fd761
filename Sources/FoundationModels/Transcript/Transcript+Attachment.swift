public import Foundation

#if canImport(ImageIO)
public import ImageIO
#else
/// The orientation of an image's pixels, as ImageIO defines it (EXIF values 1–8).
///
/// Linux has no ImageIO; this stand-in carries the same cases so ``Transcript/ImageAttachment`` code compiles
/// unchanged.
public enum CGImagePropertyOrientation: UInt32, Sendable, Hashable, Codable {
    /// The encoded image is upright.
    case up = 1
    /// Mirrored horizontally.
    case upMirrored
    /// Rotated 180°.
    case down
    /// Mirrored vertically.
    case downMirrored
    /// Mirrored horizontally, then rotated 90° counterclockwise.
    case leftMirrored
    /// Rotated 90° clockwise.
    case right
    /// Mirrored horizontally, then rotated 90° clockwise.
    case rightMirrored
    /// Rotated 90° counterclockwise.
    case left
}
#endif

extension Transcript {
    /// A segment that carries an attachment, such as an image, with an optional label the model can refer to.
    public struct AttachmentSegment: Sendable, Identifiable, Equatable, CustomStringConvertible {
        /// The identifier.
        public var id: String
        /// The attachment.
        public var content: Attachment
        /// A label that names the attachment in the conversation.
        public var label: String?

        /// Creates an attachment segment.
        public init(id: String = UUID().uuidString, content: Attachment, label: String? = nil) {
            self.id = id
            self.content = content
            self.label = label
        }

        /// The label and what is attached.
        public var description: String {
            let name = label.map { "\"\($0)\" " } ?? ""
            switch content {
            case .image(let image): return "[image \(name)\(image.url?.lastPathComponent ?? "")]"
            }
        }
    }

    /// Content attached to a prompt or instructions.
    public enum Attachment: Sendable, Equatable {
        /// An image.
        case image(ImageAttachment)
    }

    /// An image attached to a prompt, for models with the ``LanguageModelCapabilities/Capability/vision``
    /// capability.
    ///
    /// On Linux an image is referenced by its file URL: `CGImage`, `CIImage` and `CVPixelBuffer` (and the
    /// initializers and accessors that use them) exist only on Apple's platforms. The on-device model on Linux
    /// is text-only, so a session with it rejects image attachments with
    /// ``LanguageModelError/unsupportedCapability(_:)``; other executors read the file themselves.
    public struct ImageAttachment: Sendable, Equatable {
        /// The image file, when the image came from one.
        public var url: URL? { storedURL }
        /// How the image's pixels are oriented.
        public var orientation: CGImagePropertyOrientation { storedOrientation }

        private let storedURL: URL?
        private let storedOrientation: CGImagePropertyOrientation

        /// Creates an image attachment from an image file.
        public init(imageURL: URL, orientation: CGImagePropertyOrientation? = nil) {
            storedURL = imageURL
            storedOrientation = orientation ?? .up
        }
    }
}

/// A kind of content that can be attached to prompts and instructions.
public protocol AttachmentContent {}

/// The content of an image ``Attachment``.
public struct ImageAttachmentContent: AttachmentContent, Sendable, Equatable {
    let image: Transcript.ImageAttachment
}

/// Content attached to a prompt or instructions, optionally labelled so the text can refer to it.
///
/// ```swift
/// let prompt = Prompt {
///     "Describe the photo."
///     Attachment(imageURL: photoURL).label("photo")
/// }
/// ```
public struct Attachment<Content: AttachmentContent> {
    let content: Content
    let labelText: String?

    /// The same attachment with a label.
    public func label(_ label: String) -> Attachment<Content> {
        Attachment(content: content, labelText: label)
    }
}

extension Attachment where Content == ImageAttachmentContent {
    /// An image attachment read from a file.
    public init(imageURL: URL, orientation: CGImagePropertyOrientation? = nil) {
        self.init(content: ImageAttachmentContent(image: .init(imageURL: imageURL, orientation: orientation)), labelText: nil)
    }

    var segment: Transcript.Segment {
        .attachment(.init(content: .image(content.image), label: labelText))
    }
}

extension Attachment: PromptRepresentable, InstructionsRepresentable where Content == ImageAttachmentContent {
    /// A prompt holding the attachment.
    public var promptRepresentation: Prompt {
        return Prompt(segments: [segment])
    }

    /// Instructions holding the attachment.
    public var instructionsRepresentation: Instructions {
        return Instructions(segments: [segment])
    }
}
