/// A type that can be initialized from generated content.
///
/// `@Generable` synthesises the conformance; a manual one can map differently named keys:
///
/// ```swift
/// struct Person: ConvertibleFromGeneratedContent {
///     var name: String
///     init(_ content: GeneratedContent) throws {
///         name = try content.value(forProperty: "firstName")
///     }
/// }
/// ```
public protocol ConvertibleFromGeneratedContent: SendableMetatype {
    /// Creates an instance from generated content.
    ///
    /// - Parameter content: The content to read.
    /// - Throws: An error (usually a `DecodingError`) when the content doesn't have the expected shape.
    init(_ content: GeneratedContent) throws
}
