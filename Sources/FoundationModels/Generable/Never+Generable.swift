extension Never: Generable {
    /// A schema no value satisfies (an empty union).
    ///
    /// `Never` is generable only so that macro-expansion helpers such as `GenerationGuide<[Never]>` type-check.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .anyOf(GenerationSchema.UnionNode(name: "Never", choices: [])))
    }

    /// Always throws: no content represents `Never`.
    public init(_ content: GeneratedContent) throws {
        throw content.typeMismatch(Never.self, expected: "no value (Never has no values)")
    }

    /// Unreachable: there are no `Never` values.
    public var generatedContent: GeneratedContent {
        switch self {}
    }
}
