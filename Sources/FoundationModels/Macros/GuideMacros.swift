/// Describes a stored property of a ``Generable`` type to the model.
///
/// ```swift
/// @Guide(description: "A one sentence profile about the cat's personality")
/// var profile: String
/// ```
///
/// Use it only on stored properties; on a computed or static property it is an error.
///
/// - Parameter description: A short natural-language description of the property.
@attached(peer)
public macro Guide(description: String) =
    #externalMacro(module: "FoundationModelsMacros", type: "GuideMacro")

/// Describes a stored property of a ``Generable`` type and constrains the values the model can
/// generate for it.
///
/// ```swift
/// @Guide(description: "The age of the cat", .range(0...20))
/// var age: Int
///
/// @Guide(.count(3))
/// var days: [DayPlan]
/// ```
///
/// Several `@Guide` attributes on one property are merged: the first description is used and the
/// guides of all of them apply.
///
/// - Parameters:
///   - description: A short natural-language description of the property.
///   - guides: Constraints on the property's values.
@attached(peer)
public macro Guide<T>(description: String? = nil, _ guides: GenerationGuide<T>...) =
    #externalMacro(module: "FoundationModelsMacros", type: "GuideMacro") where T: Generable

/// Describes a string property of a ``Generable`` type and constrains it to match a regular
/// expression.
///
/// ```swift
/// @Guide(description: "A product code", /[A-Z]{3}-\d{4}/)
/// var sku: String
/// ```
///
/// Write the expression as a regex literal (`/…/` or `#/…/#`): the macro reads the literal's
/// pattern text at compile time, because a `Regex` value cannot give it back at run time.
///
/// - Parameters:
///   - description: A short natural-language description of the property.
///   - guides: The regular expression the value must match.
@attached(peer)
public macro Guide<RegexOutput>(description: String? = nil, _ guides: Regex<RegexOutput>) =
    #externalMacro(module: "FoundationModelsMacros", type: "GuideMacro")
