import SwiftDiagnostics
import SwiftSyntax

/// Members declared inside `#if`, which `@Generable` cannot use.
///
/// A macro sees every clause of an `#if` and cannot tell which one is compiled, so a stored property,
/// case or initializer inside one would leave the schema, the initializers and the content out of step
/// with the type, and the compiler would then report errors inside the expansion. They are reported
/// here instead.
enum ConditionalMembers {
    /// Errors for the stored properties and initializers of a struct that sit inside `#if`.
    static func structDiagnostics(_ members: MemberBlockItemListSyntax) -> [Diagnostic] {
        declarations(in: members).flatMap { declaration -> [Diagnostic] in
            if let initializer = declaration.as(InitializerDeclSyntax.self) {
                return [diagnostic(initializer.initKeyword, "initializer")]
            }
            guard let variable = declaration.as(VariableDeclSyntax.self), StoredProperty.isInstanceStored(variable) else {
                return []
            }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            return variable.bindings.compactMap { binding in
                // The same properties `StoredProperty.collect` would generate.
                if let accessors = binding.accessorBlock, StoredProperty.isComputed(accessors) { return nil }
                if isLet, binding.initializer != nil { return nil }
                return diagnostic(binding.pattern, "stored property '\(binding.pattern.trimmedDescription)'")
            }
        }
    }

    /// Errors for the cases of an enum that sit inside `#if`.
    static func enumDiagnostics(_ members: MemberBlockItemListSyntax) -> [Diagnostic] {
        declarations(in: members).flatMap { declaration -> [Diagnostic] in
            guard let caseDecl = declaration.as(EnumCaseDeclSyntax.self) else { return [] }
            return caseDecl.elements.map { diagnostic($0.name, "case '\($0.name.text)'") }
        }
    }

    /// The declarations inside the `#if` blocks among `members`, nested blocks included.
    private static func declarations(in members: MemberBlockItemListSyntax) -> [DeclSyntax] {
        members.flatMap { member -> [DeclSyntax] in
            guard let ifConfig = member.decl.as(IfConfigDeclSyntax.self) else { return [] }
            return ifConfig.clauses.flatMap { clause -> [DeclSyntax] in
                guard case .decls(let nested)? = clause.elements else { return [] }
                return nested.map(\.decl) + declarations(in: nested)
            }
        }
    }

    private static func diagnostic(_ node: some SyntaxProtocol, _ member: String) -> Diagnostic {
        Diagnostic(node: node, message: MacroDiagnostic.memberInsideIfConfig(member: member))
    }
}
