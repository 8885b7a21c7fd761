/// A type that the model can generate, guided by the type's schema.
///
/// Apply the `@Generable` macro to a structure or enumeration to conform it; the macro synthesises
/// ``generationSchema``, `init(_:)`, ``ConvertibleToGeneratedContent/generatedContent`` and a
/// ``PartiallyGenerated`` mirror type whose properties are all optional, for streaming.
///
/// ```swift
/// @Generable(description: "Basic profile information about a cat")
/// struct CatProfile {
///     var name: String
///     @Guide(description: "The age of the cat", .range(0...20))
///     var age: Int
/// }
/// ```
public protocol Generable: ConvertibleFromGeneratedContent, ConvertibleToGeneratedContent {
    /// A representation of partially generated content, used while a response streams in.
    associatedtype PartiallyGenerated: ConvertibleFromGeneratedContent = Self

    /// The schema that guides the model when it generates this type.
    ///
    /// The schema is also described to the model in the prompt, so it counts toward the context window.
    static var generationSchema: GenerationSchema { get }
}

extension Generable {
    /// The partially generated form of this value.
    ///
    /// Converts a complete value into its ``Generable/PartiallyGenerated`` counterpart by round-tripping through
    /// ``ConvertibleToGeneratedContent/generatedContent``.
    public func asPartiallyGenerated() -> PartiallyGenerated {
        if let same = self as? PartiallyGenerated {
            return same
        }
        do {
            return try PartiallyGenerated(generatedContent)
        } catch {
            // A partial type must accept everything the full type produces; anything else is a bug in the conformance.
            preconditionFailure("\(PartiallyGenerated.self) cannot represent \(Self.self)'s content: \(error)")
        }
    }
}

