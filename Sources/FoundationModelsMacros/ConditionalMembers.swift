import SwiftDiagnostics
import SwiftSyntax

/// Members declared inside `#if`, which `@Generable` cannot use.
///
/// A macro sees every clause of an `#if` and cannot tell which one is compiled, so a stored property
/// or case inside one would leave the schema, the initializers and the content out of step with the
/// type, and the compiler would then report errors inside the expansion: they are errors here, as
/// is an initializer the expansion would declare again. A property with an initial value, or another
/// initializer, still compiles without the macro seeing it, so it only gets a warning that says what
/// is left out.
enum ConditionalMembers {
    /// Diagnostics for the stored properties and initializers of a struct that sit inside `#if`.
    ///
    /// - Parameter memberwiseLabels: The argument labels of the memberwise initializer the expansion adds.
    static func structDiagnostics(_ members: MemberBlockItemListSyntax, memberwiseLabels: [String]) -> [Diagnostic] {
        // The memberwise initializer is added only when no initializer is written outside `#if`.
        let addsMemberwise = !members.contains { $0.decl.is(InitializerDeclSyntax.self) }
        return declarations(in: members).flatMap { declaration -> [Diagnostic] in
            if let initializer = declaration.as(InitializerDeclSyntax.self) {
                let labels = initializer.signature.parameterClause.parameters.map { $0.firstName.text.trimmingBackticks }
                // One the expansion would declare again is an error; any other only stops being seen.
                if StructExpansion.isContentInitializer(initializer) || (addsMemberwise && labels == memberwiseLabels) {
                    return [diagnostic(initializer.initKeyword, "initializer")]
                }
                return [Diagnostic(node: initializer.initKeyword, message: MacroDiagnostic.memberInsideIfConfigLeftOut(
                    member: "initializer", effect: "@Generable adds its initializers as if it were not there"))]
            }
            guard let variable = declaration.as(VariableDeclSyntax.self), StoredProperty.isInstanceStored(variable) else {
                return []
            }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            return variable.bindings.compactMap { binding in
                // The same properties `StoredProperty.collect` would generate.
                if let accessors = binding.accessorBlock, StoredProperty.isComputed(accessors) { return nil }
                if isLet, binding.initializer != nil { return nil }
                let member = "stored property '\(binding.pattern.trimmedDescription)'"
                if binding.initializer != nil {
                    return Diagnostic(node: binding.pattern, message: MacroDiagnostic.memberInsideIfConfigLeftOut(
                        member: member, effect: "it is not generated and keeps its initial value"))
                }
                return diagnostic(binding.pattern, member)
            }
        }
    }

    /// Errors for the cases of an enum that sit inside `#if`.
    static func enumDiagnostics(_ members: MemberBlockItemListSyntax) -> [Diagnostic] {
        declarations(in: members).flatMap { declaration -> [Diagnostic] in
            // The expansion keeps a content initializer written in the enum's body, and cannot see one inside `#if`.
            if let initializer = declaration.as(InitializerDeclSyntax.self), StructExpansion.isContentInitializer(initializer) {
                return [diagnostic(initializer.initKeyword, "initializer")]
            }
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
