extension GeneratedContent: Generable {
    /// The schema of any JSON value.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .any)
    }

    /// The content itself.
    public var generatedContent: GeneratedContent {
        self
    }
}
