extension Bool: Generable {
    /// The schema of `true` or `false`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .boolean)
    }

    /// Reads a Boolean.
    ///
    /// - Throws: `DecodingError.typeMismatch` if the content isn't a Boolean.
    public init(_ content: GeneratedContent) throws {
        guard case .bool(let value) = content.kind else {
            throw content.typeMismatch(Bool.self, expected: "a Boolean")
        }
        self = value
    }

    /// The Boolean as generated content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .bool(self))
    }
}
