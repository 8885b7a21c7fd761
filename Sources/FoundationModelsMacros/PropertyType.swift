import SwiftSyntax
import SwiftSyntaxBuilder

/// What `@Generable` needs to know about a property's declared type, read from syntax alone.
///
/// Macros run before type checking, so the shape is recovered from the spelling: `T?` and
/// `Optional<T>` are optional, `[T]` and `Array<T>` are arrays, and `GenerationID` is the
/// framework's stable identifier. Anything else is passed through and left to the type checker.
struct PropertyType {
    /// The type as written, without surrounding trivia.
    let type: TypeSyntax

    init(_ type: TypeSyntax) {
        self.type = type.trimmed
    }

    /// The wrapped type when the property is optional (`T?` or `Optional<T>`).
    var optionalWrapped: TypeSyntax? {
        Self.optionalWrapped(of: type)
    }

    /// The type with one level of optionality removed, or the type itself.
    var nonOptional: TypeSyntax {
        optionalWrapped ?? type
    }

    /// Whether the property is `GenerationID` or `GenerationID?`.
    var isGenerationID: Bool {
        Self.isGenerationID(nonOptional)
    }

    /// The element type when the non-optional type is an array.
    var arrayElement: TypeSyntax? {
        Self.arrayElement(of: nonOptional)
    }

    /// The type a guide on the property constrains, for `GenerationGuide<…>`, when the spelling shows it for
    /// certain: an array, or a standard type that has guides (`Int`, `Double`, `Float`, `Decimal`, `String`,
    /// `Bool`), optional or not. Another name may be a type alias that hides an optional, so it is `nil`.
    var guidedType: TypeSyntax? {
        let value = nonOptional
        if Self.arrayElement(of: value) != nil { return value }
        return UnsupportedType.standardName(of: value).map { Self.guidedStandardTypes.contains($0) } == true ? value : nil
    }

    /// The standard types that guides exist for.
    private static let guidedStandardTypes: Set<String> = ["Int", "Double", "Float", "Decimal", "String", "Bool"]

    /// The type spelled for the mirror property in `PartiallyGenerated`.
    ///
    /// Every property becomes optional. Arrays map element-wise (`[E.PartiallyGenerated]`), which is
    /// what `Array.PartiallyGenerated` is, spelled out so the expansion reads like Apple's. `Self` is spelled as
    /// `selfName`, the type's own name: inside the mirror, `Self` would be the mirror.
    func partiallyGeneratedType(selfName: TokenSyntax) -> TypeSyntax {
        if isGenerationID {
            return type
        }
        let rewriter = SelfRewriter(name: selfName)
        if let element = arrayElement {
            return "[\(rewriter.rewrite(element).cast(TypeSyntax.self).trimmed).PartiallyGenerated]?"
        }
        let spelled = rewriter.rewrite(Self.parenthesizedIfNeeded(nonOptional)).cast(TypeSyntax.self)
        return "\(spelled.trimmed).PartiallyGenerated?"
    }

    /// Replaces the type `Self` (alone or as the base of a member type) with a name.
    private final class SelfRewriter: SyntaxRewriter {
        let name: TokenSyntax

        init(name: TokenSyntax) {
            self.name = name
            super.init(viewMode: .sourceAccurate)
        }

        override func visit(_ node: IdentifierTypeSyntax) -> TypeSyntax {
            guard node.name.tokenKind == .keyword(.Self) else { return super.visit(node) }
            return TypeSyntax(node.with(\.name, name.with(\.leadingTrivia, node.name.leadingTrivia)
                .with(\.trailingTrivia, node.name.trailingTrivia)))
        }
    }

    static func optionalWrapped(of type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) {
            return optional.wrappedType.trimmed
        }
        if let generic = genericArguments(of: type, named: "Optional"), generic.count == 1 {
            return generic[0]
        }
        return nil
    }

    static func arrayElement(of type: TypeSyntax) -> TypeSyntax? {
        if let array = type.as(ArrayTypeSyntax.self) {
            return array.element.trimmed
        }
        if let generic = genericArguments(of: type, named: "Array"), generic.count == 1 {
            return generic[0]
        }
        return nil
    }

    static func isGenerationID(_ type: TypeSyntax) -> Bool {
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == "GenerationID" && identifier.genericArgumentClause == nil
        }
        if let member = type.as(MemberTypeSyntax.self) {
            return member.name.text == "GenerationID"
                && member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "FoundationModels"
        }
        return false
    }

    /// The last path component of a nominal type (`Swift.Set<Int>` gives `Set`), if it has one.
    static func nominalName(of type: TypeSyntax) -> String? {
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return identifier.name.text
        }
        if let member = type.as(MemberTypeSyntax.self) {
            return member.name.text
        }
        return nil
    }

    /// Generic arguments of `Name<…>` or `Swift.Name<…>`.
    private static func genericArguments(of type: TypeSyntax, named name: String) -> [TypeSyntax]? {
        let clause: GenericArgumentClauseSyntax?
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == name {
            clause = identifier.genericArgumentClause
        } else if let member = type.as(MemberTypeSyntax.self), member.name.text == name,
            member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Swift"
        {
            clause = member.genericArgumentClause
        } else {
            return nil
        }
        guard let clause else { return nil }
        return clause.arguments.compactMap { argument in
            TypeSyntax(argument.argument)?.trimmed
        }
    }

    /// Wraps types whose spelling would bind wrongly before `.PartiallyGenerated` or `.self`.
    static func parenthesizedIfNeeded(_ type: TypeSyntax) -> TypeSyntax {
        if type.is(IdentifierTypeSyntax.self) || type.is(MemberTypeSyntax.self) || type.is(ArrayTypeSyntax.self)
            || type.is(OptionalTypeSyntax.self)
        {
            return type
        }
        return "(\(type))"
    }
}
