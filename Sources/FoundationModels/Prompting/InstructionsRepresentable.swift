/// A type that can be used as instructions to the model.
///
/// `String`, ``Instructions``, arrays of representable values and every ``ConvertibleToGeneratedContent`` value
/// (including all ``Generable`` types) conform. Conform your own types to describe them in any format that is easy
/// for people to read; that works well for the model too.
public protocol InstructionsRepresentable {
    /// An instructions representation of this value.
    @InstructionsBuilder var instructionsRepresentation: Instructions { get }
}

extension String: InstructionsRepresentable {
    /// Instructions holding this text.
    public var instructionsRepresentation: Instructions {
        return Instructions(components: [self])
    }
}

extension Array: InstructionsRepresentable where Element: InstructionsRepresentable {
    /// Instructions holding each element's instructions, one after the other.
    public var instructionsRepresentation: Instructions {
        return Instructions(segments: flatMap(\.instructionsRepresentation.segments))
    }
}
