/// Guides that control how values are generated.
///
/// Pass guides to the `@Guide` macro or to ``GenerationSchema/Property``. All bounds are inclusive, and several guides
/// on one property combine (bounds intersect, the last pattern applies):
///
/// ```swift
/// @Guide(description: "Daily plans", .count(3)) var days: [DayPlan]
/// @Guide(.range(1...5)) var rating: Int
/// @Guide(.anyOf(["small", "large"])) var size: String
/// ```
public struct GenerationGuide<Value>: Sendable {
    /// The constraints this guide adds, in an inspectable form.
    package var constraints: [GuideConstraint]

    /// Creates a guide from constraints.
    package init(_ constraints: [GuideConstraint]) {
        self.constraints = constraints
    }
}

/// One constraint from a ``GenerationGuide``, independent of the guided type.
package indirect enum GuideConstraint: Sendable, Hashable {
    /// The string must be exactly this value.
    case constant(String)
    /// The string must be one of these values.
    case anyOf([String])
    /// The string must match this pattern.
    case pattern(RegexPattern)
    /// The number must be at least this value.
    case minimum(Double)
    /// The number must be at most this value.
    case maximum(Double)
    /// The array must have at least this many elements.
    case minimumCount(Int)
    /// The array must have at most this many elements.
    case maximumCount(Int)
    /// Each element of the array must satisfy these constraints.
    case element([GuideConstraint])
}

/// The text of a regular expression used as a pattern guide, when it can be recovered.
///
/// Swift's `Regex` has no public way to get its pattern back. The `@Generable` macro passes the literal's source
/// text (``GenerationGuide/_pattern(_:source:)``); otherwise the standard library's reprinted pattern is used when
/// available. A pattern whose text is unknown is kept so the decoder can report it as unsupported.
package struct RegexPattern: Sendable, Hashable {
    /// The pattern text, or `nil` if it couldn't be recovered.
    package var source: String?

    /// Creates a pattern record.
    package init(source: String?) {
        self.source = source
    }

    /// The pattern of a regex, as reprinted by the standard library (if it can).
    package init<Output>(_ regex: Regex<Output>) {
        source = regex._literalPattern
    }
}

extension GenerationGuide where Value == String {
    /// Enforces that the string be precisely the given value.
    ///
    /// - Parameter value: The only allowed string.
    public static func constant(_ value: String) -> GenerationGuide<String> {
        GenerationGuide([.constant(value)])
    }

    /// Enforces that the string be one of the provided values.
    ///
    /// - Parameter values: The allowed strings.
    public static func anyOf(_ values: [String]) -> GenerationGuide<String> {
        GenerationGuide([.anyOf(values)])
    }

    /// Enforces that the string follows the pattern.
    ///
    /// The pattern text is recovered with the standard library's reprinting, which doesn't work for every regex;
    /// when it fails, generating with the schema throws `unsupportedGuide` instead of ignoring the guide.
    ///
    /// - Parameter regex: The pattern the whole string must match.
    public static func pattern<Output>(_ regex: Regex<Output>) -> GenerationGuide<String> {
        GenerationGuide([.pattern(RegexPattern(regex))])
    }

    /// Enforces that the string follows a pattern whose source text is known (used by macro expansion).
    ///
    /// The `@Generable` and `@Guide` macros call this with the regex literal's text, because a `Regex` value can't
    /// reliably give its pattern back. Don't call it directly.
    ///
    /// - Parameters:
    ///   - regex: The pattern the whole string must match.
    ///   - source: The regex's pattern text, without the enclosing slashes.
    public static func _pattern<Output>(_ regex: Regex<Output>, source: String) -> GenerationGuide<String> {
        GenerationGuide([.pattern(RegexPattern(source: source))])
    }
}

extension GenerationGuide where Value == Int {
    /// Enforces a minimum value (inclusive).
    public static func minimum(_ value: Int) -> GenerationGuide<Int> {
        GenerationGuide([.minimum(Double(value))])
    }

    /// Enforces a maximum value (inclusive).
    public static func maximum(_ value: Int) -> GenerationGuide<Int> {
        GenerationGuide([.maximum(Double(value))])
    }

    /// Enforces that the value lies within a closed range.
    public static func range(_ range: ClosedRange<Int>) -> GenerationGuide<Int> {
        GenerationGuide([.minimum(Double(range.lowerBound)), .maximum(Double(range.upperBound))])
    }
}

extension GenerationGuide where Value == Float {
    /// Enforces a minimum value (inclusive).
    public static func minimum(_ value: Float) -> GenerationGuide<Float> {
        GenerationGuide([.minimum(value.decimalValue)])
    }

    /// Enforces a maximum value (inclusive).
    public static func maximum(_ value: Float) -> GenerationGuide<Float> {
        GenerationGuide([.maximum(value.decimalValue)])
    }

    /// Enforces that the value lies within a closed range.
    public static func range(_ range: ClosedRange<Float>) -> GenerationGuide<Float> {
        GenerationGuide([.minimum(range.lowerBound.decimalValue), .maximum(range.upperBound.decimalValue)])
    }
}

extension GenerationGuide where Value == Double {
    /// Enforces a minimum value (inclusive).
    public static func minimum(_ value: Double) -> GenerationGuide<Double> {
        GenerationGuide([.minimum(value)])
    }

    /// Enforces a maximum value (inclusive).
    public static func maximum(_ value: Double) -> GenerationGuide<Double> {
        GenerationGuide([.maximum(value)])
    }

    /// Enforces that the value lies within a closed range.
    public static func range(_ range: ClosedRange<Double>) -> GenerationGuide<Double> {
        GenerationGuide([.minimum(range.lowerBound), .maximum(range.upperBound)])
    }
}

extension GenerationGuide {
    /// Enforces a minimum number of elements (inclusive).
    public static func minimumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>([.minimumCount(count)])
    }

    /// Enforces a maximum number of elements (inclusive).
    ///
    /// Especially useful for tagging, where it also reduces tokens and decoding time.
    public static func maximumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>([.maximumCount(count)])
    }

    /// Enforces that the number of elements lies within a closed range.
    public static func count<Element>(_ range: ClosedRange<Int>) -> GenerationGuide<[Element]>
    where Value == [Element] {
        GenerationGuide<[Element]>([.minimumCount(range.lowerBound), .maximumCount(range.upperBound)])
    }

    /// Enforces exactly the given number of elements.
    public static func count<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>([.minimumCount(count), .maximumCount(count)])
    }

    /// Applies a guide to each element of the array.
    ///
    /// ```swift
    /// @Guide(.element(.range(0...9)), .count(4)) var digits: [Int]
    /// ```
    public static func element<Element>(_ guide: GenerationGuide<Element>) -> GenerationGuide<[Element]>
    where Value == [Element] {
        GenerationGuide<[Element]>([.element(guide.constraints)])
    }
}

extension GenerationGuide where Value == [Never] {
    /// A placeholder so `.minimumCount(_:)` type-checks inside `@Guide` before the element type is known.
    ///
    /// Only used for macro expansion; calling it traps.
    public static func minimumCount(_ count: Int) -> GenerationGuide<Value> {
        fatalError("GenerationGuide<[Never]>.\(#function) should not be called.")
    }

    /// A placeholder so `.maximumCount(_:)` type-checks inside `@Guide` before the element type is known.
    ///
    /// Only used for macro expansion; calling it traps.
    public static func maximumCount(_ count: Int) -> GenerationGuide<Value> {
        fatalError("GenerationGuide<[Never]>.\(#function) should not be called.")
    }

    /// A placeholder so `.count(_:)` type-checks inside `@Guide` before the element type is known.
    ///
    /// Only used for macro expansion; calling it traps.
    public static func count(_ range: ClosedRange<Int>) -> GenerationGuide<Value> {
        fatalError("GenerationGuide<[Never]>.\(#function) should not be called.")
    }

    /// A placeholder so `.count(_:)` type-checks inside `@Guide` before the element type is known.
    ///
    /// Only used for macro expansion; calling it traps.
    @_disfavoredOverload
    public static func count(_ count: Int) -> GenerationGuide<Value> {
        fatalError("GenerationGuide<[Never]>.\(#function) should not be called.")
    }
}
