extension Array: Generable where Element: Generable {
    /// An array's partially generated form holds the elements' partially generated forms.
    public typealias PartiallyGenerated = [Element.PartiallyGenerated]

    /// The schema of an array of `Element`.
    public static var generationSchema: GenerationSchema {
        var definitions: [GenerationSchema.Definition] = []
        let items = SchemaResolver.schema(for: Element.self).embedded(into: &definitions)
        return GenerationSchema(root: .array(GenerationSchema.ArrayNode(items: items)), definitions: definitions)
    }
}

extension Array: ConvertibleToGeneratedContent where Element: ConvertibleToGeneratedContent {
    /// The elements as generated content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .array(map(\.generatedContent)))
    }
}

extension Array: ConvertibleFromGeneratedContent where Element: ConvertibleFromGeneratedContent {
    /// Reads an array, converting each element.
    ///
    /// - Throws: `DecodingError.typeMismatch` if the content isn't an array, or an element's error with its index
    ///   in the coding path.
    public init(_ content: GeneratedContent) throws {
        guard case .array(let elements) = content.kind else {
            throw content.typeMismatch([Element].self, expected: "an array")
        }
        var converted: [Element] = []
        converted.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do {
                converted.append(try ContentKey.prefixingErrors(with: ContentKey(index: index)) { try Element(element) })
            } catch where index == elements.count - 1 && !element.isComplete {
                // In a streamed snapshot the last element may be one that cannot be read until more of it arrives.
                break
            }
        }
        self = converted
    }
}
