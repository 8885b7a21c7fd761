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
    public init(_ content: some InstructionsRepresentable) {
        self = content.instructionsRepresentation
    }

    /// Creates a value whose components are those of each argument, in order.
    init<each Component: InstructionsRepresentable>(_ components: repeat each Component) {
        var texts: [String] = []
        for component in repeat each components {
            texts += component.instructionsRepresentation.components
        }
        self.components = texts
    }

    /// Creates a value from the content of a builder closure.
    ///
    /// - Parameter content: A ``InstructionsBuilder`` closure.
    /// - Throws: Rethrows what `content` throws.
    public init(@InstructionsBuilder _ content: () throws -> Instructions) rethrows {
        self = try content()
    }

    /// The plain text given to the model: the components joined with newlines.
    package var text: String {
        components.joined(separator: "\n")
    }
}

extension Instructions: InstructionsRepresentable {
    /// This value itself.
    public var instructionsRepresentation: Instructions {
        // An explicit `return` opts out of the requirement's result builder, which would recurse here.
        return self
    }
}
