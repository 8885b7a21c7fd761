public import Foundation

extension Decimal: Generable {
    /// The schema of a number.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .number(GenerationSchema.NumericBounds()))
    }

    /// Reads a number as a decimal.
    ///
    /// The number's shortest decimal form is used, so `0.1` reads as exactly `0.1`.
    ///
    /// - Throws: `DecodingError.typeMismatch` if the content isn't a finite number.
    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind, value.isFinite, let decimal = Decimal(string: "\(value)") else {
            throw content.typeMismatch(Decimal.self, expected: "a number")
        }
        self = decimal
    }

    /// The number as generated content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .number(doubleValue))
    }
}
