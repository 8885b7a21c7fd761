extension Float: Generable {
    /// The schema of a number.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .number(GenerationSchema.NumericBounds()))
    }

    /// Reads a number.
    ///
    /// - Throws: `DecodingError.typeMismatch` if the content isn't a number.
    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind else {
            throw content.typeMismatch(Float.self, expected: "a number")
        }
        self = Float(value)
    }

    /// The number as generated content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .number(Double(self)))
    }
}
