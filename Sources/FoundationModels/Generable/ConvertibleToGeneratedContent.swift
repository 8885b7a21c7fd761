/// A type that can be converted to generated content.
///
/// Every such value can also be used in instructions and prompts: the default representations render
/// ``generatedContent`` as compact JSON text.
public protocol ConvertibleToGeneratedContent: InstructionsRepresentable, PromptRepresentable {
    /// This value as generated content.
    var generatedContent: GeneratedContent { get }
}

extension ConvertibleToGeneratedContent {
    /// The instructions form of this value: its generated content as JSON text.
    public var instructionsRepresentation: Instructions {
        return Instructions(components: [generatedContent.compactJSONString])
    }

    /// The prompt form of this value: its generated content as JSON text.
    public var promptRepresentation: Prompt {
        return Prompt(components: [generatedContent.compactJSONString])
    }
}
