import SwiftDiagnostics
public import SwiftSyntax
public import SwiftSyntaxMacros
import SwiftSyntaxBuilder

/// `@SessionPropertyEntry`: turns `var name: Type = value` in an extension of `SessionPropertyValues` into a
/// session property — a key type `__Key_name` whose default is `value`, and accessors that go through it.
///
/// ```swift
/// extension SessionPropertyValues {
///     @SessionPropertyEntry var isPremiumUser: Bool = false
/// }
/// // becomes
/// var isPremiumUser: Bool {
///     get { self[__Key_isPremiumUser.self] }
///     set { self[__Key_isPremiumUser.self] = newValue }
/// }
/// private struct __Key_isPremiumUser: FoundationModels.SessionPropertyKey {
///     static var defaultValue: Bool { false }
/// }
/// ```
public struct EntryMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        // The peer role reports problems; reporting them here too would show each twice.
        guard let (name, _, _) = entry(of: declaration, node: node, in: context, diagnose: false) else { return [] }
        return [
            "get { self[__Key_\(raw: name).self] }",
            "set { self[__Key_\(raw: name).self] = newValue }",
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let (name, type, value) = entry(of: declaration, node: node, in: context, diagnose: true) else { return [] }
        let access = (declaration.as(VariableDeclSyntax.self)?.modifiers ?? []).contains {
            [.keyword(.public), .keyword(.package)].contains($0.name.tokenKind)
        } ? "" : "private "
        return [
            """
            \(raw: access)struct __Key_\(raw: name): FoundationModels.SessionPropertyKey {
                static var defaultValue: \(type) { \(value) }
            }
            """
        ]
    }

    /// The property's name, type and default value, or `nil` after diagnosing what is missing.
    private static func entry(
        of declaration: some DeclSyntaxProtocol, node: AttributeSyntax, in context: some MacroExpansionContext, diagnose: Bool
    ) -> (String, TypeSyntax, ExprSyntax)? {
        func report(_ message: EntryDiagnostic) {
            if diagnose { context.diagnose(Diagnostic(node: node, message: message)) }
        }
        guard let variable = declaration.as(VariableDeclSyntax.self), variable.bindings.count == 1,
              let binding = variable.bindings.first, let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.trimmedDescription
        else {
            report(.notAProperty)
            return nil
        }
        guard let type = binding.typeAnnotation?.type.trimmed else {
            report(.missingType(property: name))
            return nil
        }
        if let value = binding.initializer?.value.trimmed { return (name, type, value) }
        // An optional without a value starts as `nil`.
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return (name, type, "nil") }
        report(.missingDefault(property: name))
        return nil
    }
}

/// `@__SessionPropertyEntryDefaultValue`: kept for source compatibility; `@SessionPropertyEntry` writes the
/// default into the key itself.
public struct SessionPropertyEntryDefaultValueMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        []
    }
}

/// What `@SessionPropertyEntry` reports.
enum EntryDiagnostic: DiagnosticMessage {
    case notAProperty
    case missingType(property: String)
    case missingDefault(property: String)

    var message: String {
        switch self {
        case .notAProperty: "@SessionPropertyEntry can only be applied to a single 'var' property"
        case .missingType(let property): "@SessionPropertyEntry property '\(property)' needs an explicit type annotation"
        case .missingDefault(let property): "@SessionPropertyEntry property '\(property)' needs a default value"
        }
    }

    var diagnosticID: MessageID {
        switch self {
        case .notAProperty: MessageID(domain: "FoundationModelsMacros", id: "entryNotAProperty")
        case .missingType: MessageID(domain: "FoundationModelsMacros", id: "entryMissingType")
        case .missingDefault: MessageID(domain: "FoundationModelsMacros", id: "entryMissingDefault")
        }
    }

    var severity: DiagnosticSeverity { .error }
}
