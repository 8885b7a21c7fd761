extension Int: Generable {
    /// The schema of a whole number.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .integer(GenerationSchema.NumericBounds()))
    }

    /// Reads a whole number.
    ///
    /// - Throws: `DecodingError.typeMismatch` if the content isn't a number, or isn't a whole number that fits.
    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind else {
            throw content.typeMismatch(Int.self, expected: "a whole number")
        }
        guard let integer = Int(exactly: value) else {
            throw DecodingError.typeMismatch(
                Int.self,
                DecodingError.Context(codingPath: [], debugDescription: "Expected a whole number but found \(value).")
            )
        }
        self = integer
    }

    /// The number as generated content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .number(Double(self)))
    }
}
