extension String: Generable {
    /// The schema of any string.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .string(GenerationSchema.StringGuides()))
    }

    /// Reads a string.
    ///
    /// - Throws: `DecodingError.typeMismatch` if the content isn't a string.
    public init(_ content: GeneratedContent) throws {
        guard case .string(let value) = content.kind else {
            throw content.typeMismatch(String.self, expected: "a string")
        }
        self = value
    }

    /// The string as generated content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .string(self))
    }
}
