/// Details you provide that define the model's intended behavior on prompts.
///
/// Build it from a string or any ``InstructionsRepresentable``, or with a result builder that accepts control flow;
/// components are joined with newlines:
///
/// ```swift
/// let instructions = Instructions {
///     "Your job is to create an itinerary for the user."
///     if brief {
///         "Keep it short."
///     }
/// }
/// ```
public struct Instructions: Sendable {
    /// The content, in order: text components, attachments and custom segments.
    package private(set) var segments: [Transcript.Segment]

    /// Creates an empty value (what a builder's `if` without `else` produces when the condition is false).
    init() {
        segments = []
    }

    /// Creates a value from already rendered component texts.
    package init(components: [String]) {
        segments = components.map { .text(.init(content: $0)) }
    }

    /// Creates a value from segments.
    package init(segments: [Transcript.Segment]) {
        self.segments = segments
    }

    /// Creates a value from a representable value.
    ///
    /// - Parameter content: The content, for example a `String` or a ``Generable`` value.
    public init(_ content: some InstructionsRepresentable) {
        self = content.instructionsRepresentation
    }

    /// Creates a value whose components are those of each argument, in order.
    init<each Component: InstructionsRepresentable>(_ components: repeat each Component) {
        var segments: [Transcript.Segment] = []
        for component in repeat each components {
            segments += component.instructionsRepresentation.segments
        }
        self.segments = segments
    }

    /// Creates a value from the content of a builder closure.
    ///
    /// - Parameter content: A ``InstructionsBuilder`` closure.
    /// - Throws: Rethrows what `content` throws.
    public init(@InstructionsBuilder _ content: () throws -> Instructions) rethrows {
        self = try content()
    }

    /// The text components, in order.
    package var components: [String] {
        segments.compactMap { if case .text(let text) = $0 { text.content } else { nil } }
    }

    /// The plain text given to the model: every segment's text, joined with newlines.
    package var text: String { segments.modelText }

    /// The content as transcript segments: runs of text joined into one text segment (as the model reads
    /// them), other segments as they are.
    package var transcriptSegments: [Transcript.Segment] { segments.joiningTextRuns }
}

extension Instructions: InstructionsRepresentable {
    /// This value itself.
    public var instructionsRepresentation: Instructions {
        // An explicit `return` opts out of the requirement's result builder, which would recurse here.
        return self
    }
}
