extension Optional where Wrapped: Generable {
    /// An optional's partially generated form is its wrapped type's (used by macro-generated partial types).
    public typealias PartiallyGenerated = Wrapped.PartiallyGenerated
}

extension Optional: ConvertibleToGeneratedContent, PromptRepresentable, InstructionsRepresentable
where Wrapped: ConvertibleToGeneratedContent {
    /// The wrapped value as generated content, or ``GeneratedContent/null``.
    public var generatedContent: GeneratedContent {
        switch self {
        case .some(let value): value.generatedContent
        case .none: .null
        }
    }
}

extension Optional: ConvertibleFromGeneratedContent where Wrapped: ConvertibleFromGeneratedContent {
    /// Reads `nil` from `null` content, and the wrapped value from anything else.
    ///
    /// - Throws: The wrapped type's error for non-null content it can't read.
    public init(_ content: GeneratedContent) throws {
        if content.kind == .null {
            self = .none
        } else {
            self = .some(try Wrapped(content))
        }
    }
}
