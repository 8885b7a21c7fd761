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
    /// The text of each component, in order; joined with newlines to form ``text``.
    package private(set) var components: [String]

    /// Creates an empty value (what a builder's `if` without `else` produces when the condition is false).
    init() {
        components = []
    }

    /// Creates a value from already rendered component texts.
    package init(components: [String]) {
        self.components = components
    }

    /// Creates a value from a representable value.
    ///
    /// - Parameter content: The content, for example a `String` or a ``Generable`` value.
    public init(_ content: some PromptRepresentable) {
        self = content.promptRepresentation
    }

    /// Creates a value whose components are those of each argument, in order.
    init<each Component: PromptRepresentable>(_ components: repeat each Component) {
        var texts: [String] = []
        for component in repeat each components {
            texts += component.promptRepresentation.components
        }
        self.components = texts
    }

    /// Creates a value from the content of a builder closure.
    ///
    /// - Parameter content: A ``PromptBuilder`` closure.
    /// - Throws: Rethrows what `content` throws.
    public init(@PromptBuilder _ content: () throws -> Prompt) rethrows {
        self = try content()
    }

    /// The plain text given to the model: the components joined with newlines.
    package var text: String {
        components.joined(separator: "\n")
    }
}

extension Prompt: PromptRepresentable {
    /// This value itself.
    public var promptRepresentation: Prompt {
        // An explicit `return` opts out of the requirement's result builder, which would recurse here.
        return self
    }
}
