/// A prompt from a person to the model.
///
/// Build it from a string or any ``PromptRepresentable``, or with a result builder that accepts control flow;
/// components are joined with newlines:
///
/// ```swift
/// let prompt = Prompt {
///     "Write a haiku about \(topic)."
///     if brief {
///         "Keep it short."
///     }
/// }
/// ```
public struct Prompt: Sendable {
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
    public init(_ content: some PromptRepresentable) {
        self = content.promptRepresentation
    }

    /// Creates a value whose components are those of each argument, in order.
    init<each Component: PromptRepresentable>(_ components: repeat each Component) {
        var segments: [Transcript.Segment] = []
        for component in repeat each components {
            segments += component.promptRepresentation.segments
        }
        self.segments = segments
    }

    /// Creates a value from the content of a builder closure.
    ///
    /// - Parameter content: A ``PromptBuilder`` closure.
    /// - Throws: Rethrows what `content` throws.
    public init(@PromptBuilder _ content: () throws -> Prompt) rethrows {
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

extension Prompt: PromptRepresentable {
    /// This value itself.
    public var promptRepresentation: Prompt {
        // An explicit `return` opts out of the requirement's result builder, which would recurse here.
        return self
    }
}
