import SwiftSyntax

/// Finds property and associated-value types that can never be `Generable`, so the user gets an
/// error at the declaration instead of a confusing conformance failure inside the expansion.
///
/// Only spellings that are certain are rejected: structural types (functions, tuples, metatypes,
/// existentials) and standard types that the framework documents as not Generable, written alone or
/// qualified by `Swift.` or `Foundation.`. A type qualified by anything else (`Game.Character`) is the
/// user's own. `Character` and `Set` are names users give their own types (a story's characters, a
/// workout's sets), so alone they count only as `Set<…>`; the type checker still refuses Swift's.
enum UnsupportedType {
    /// Nominal types that are known not to conform to `Generable`, with the reason shown to users.
    private static let knownNominals: [String: String] = [
        "Dictionary": "dictionaries have no schema; use a @Generable struct or an array of pairs",
        "Set": "sets are not Generable; use an array",
        "Date": "Date is not Generable; use a String (for example ISO 8601) or a @Generable struct",
        "URL": "URL is not Generable; use a String",
        "UUID": "UUID is not Generable; use a String or a GenerationID",
        "Data": "Data is not Generable",
        "Character": "Character is not Generable; use a String",
        "Substring": "Substring is not Generable; use a String",
        "Any": "'Any' has no schema",
        "AnyObject": "'AnyObject' has no schema",
    ]

    /// Why `type` cannot be Generable, or `nil` when nothing is known against it.
    static func reason(for type: TypeSyntax) -> String? {
        // `Optional` is not `Generable`: it marks a property that may be left out, one level deep.
        if let wrapped = PropertyType.optionalWrapped(of: type) {
            if isOptional(wrapped) {
                return "an optional of an optional has no schema; use one '?'"
            }
            return reason(for: wrapped)
        }
        if let element = PropertyType.arrayElement(of: type) {
            if isOptional(element) {
                return "an array's elements cannot be optional; leave out the '?' of the elements (the array itself may be optional)"
            }
            return reason(for: element)
        }
        if type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return "implicitly unwrapped optionals are not supported; use '?'"
        }
        if type.is(FunctionTypeSyntax.self) {
            return "function types have no schema"
        }
        if let attributed = type.as(AttributedTypeSyntax.self) {
            if attributed.baseType.is(FunctionTypeSyntax.self) {
                return "function types have no schema"
            }
            return reason(for: attributed.baseType)
        }
        if let tuple = type.as(TupleTypeSyntax.self) {
            if tuple.elements.count == 1, let only = tuple.elements.first, only.firstName == nil {
                return reason(for: only.type)
            }
            return "tuples have no schema; use a @Generable struct"
        }
        if type.is(DictionaryTypeSyntax.self) {
            return knownNominals["Dictionary"]
        }
        if type.is(MetatypeTypeSyntax.self) {
            return "metatypes have no schema"
        }
        if let some = type.as(SomeOrAnyTypeSyntax.self) {
            return "'\(some.someOrAnySpecifier.text)' types have no schema; use a concrete type"
        }
        if type.is(CompositionTypeSyntax.self) {
            return "protocol compositions have no schema; use a concrete type"
        }
        if let name = standardName(of: type), let reason = knownNominals[name] {
            return reason
        }
        return nil
    }

    /// Whether `type` is an optional, written in parentheses or not (`Int?`, `(Int?)`, `Optional<Int>`, `Int!`).
    private static func isOptional(_ type: TypeSyntax) -> Bool {
        if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first, only.firstName == nil {
            return isOptional(only.type)
        }
        return PropertyType.optionalWrapped(of: type) != nil || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
    }

    /// Names that user types commonly take too; alone, without generic arguments, they are left to the type
    /// checker.
    private static let commonUserNames: Set<String> = ["Character", "Set"]

    /// The name of a standard type the spelling may denote: `Name` or `Name<…>` alone, or qualified by `Swift`
    /// or `Foundation`.
    static func standardName(of type: TypeSyntax) -> String? {
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            let name = identifier.name.text
            if commonUserNames.contains(name), identifier.genericArgumentClause == nil { return nil }
            return name
        }
        if let member = type.as(MemberTypeSyntax.self),
           let module = member.baseType.as(IdentifierTypeSyntax.self)?.name.text,
           module == "Swift" || module == "Foundation" {
            return member.name.text
        }
        return nil
    }
}
