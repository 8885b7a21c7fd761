import FoundationModels

// Response bodies are written through GeneratedContent, whose JSON writer keeps member order.
extension GeneratedContent {
    /// JSON `null`.
    static let null = GeneratedContent(kind: .null)

    /// A Boolean value.
    static func bool(_ value: Bool) -> GeneratedContent { GeneratedContent(kind: .bool(value)) }

    /// An integer value.
    static func integer(_ value: Int) -> GeneratedContent { GeneratedContent(kind: .number(Double(value))) }

    /// An array value.
    static func array(_ elements: [GeneratedContent]) -> GeneratedContent { GeneratedContent(kind: .array(elements)) }
}
