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
        // `Int.max` has no Double of its own: it is written as 2^63, the nearest one, which must read back. (A
        // JSON integer a little above `Int.max` rounds to the same Double and reads as `Int.max` too.)
        if value == 0x1p63 {
            self = .max
            return
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
