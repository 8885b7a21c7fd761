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
        GeneratedContent(kind: .number(decimalValue))
    }
}

extension Float {
    /// The `Double` of the shortest decimal that reads back as this `Float` (`0.1`, not `0.10000000149011612`):
    /// what a user means by a `Float` literal, and what the decoder's exact decimal bounds and JSON should hold.
    var decimalValue: Double {
        guard isFinite, let value = Double("\(self)") else { return Double(self) }
        return value
    }
}
