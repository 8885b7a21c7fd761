/// A type that can be used as a prompt to the model.
///
/// `String`, ``Prompt``, arrays of representable values and every ``ConvertibleToGeneratedContent`` value
/// (including all ``Generable`` types) conform. A tool's `Output` must conform too. Conform your own types to
/// describe them in any format that is easy for people to read; that works well for the model too.
public protocol PromptRepresentable {
    /// A prompt representation of this value.
    @PromptBuilder var promptRepresentation: Prompt { get }
}

extension String: PromptRepresentable {
    /// A prompt holding this text.
    public var promptRepresentation: Prompt {
        return Prompt(components: [self])
    }
}

extension Array: PromptRepresentable where Element: PromptRepresentable {
    /// A prompt holding each element's prompt, one after the other.
    public var promptRepresentation: Prompt {
        return Prompt(segments: flatMap(\.promptRepresentation.segments))
    }
}
