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
    /// - Throws: `DecodingError.typeMismatch` if the content isn't a finite number, or lies outside Decimal's range.
    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind, value.isFinite else {
            throw content.typeMismatch(Decimal.self, expected: "a number")
        }
        // The shortest text form reads exactly; it fails only beyond Decimal's exponents (1e-130, 1e200).
        guard let decimal = Decimal(string: "\(value)") else {
            throw DecodingError.typeMismatch(Decimal.self, DecodingError.Context(
                codingPath: [], debugDescription: "The number \(value) is outside the range a Decimal holds."))
        }
        self = decimal
    }

    /// The number as generated content; `NaN` has no JSON number, so it is `null`.
    public var generatedContent: GeneratedContent {
        isNaN ? GeneratedContent(kind: .null) : GeneratedContent(kind: .number(doubleValue))
    }
}
