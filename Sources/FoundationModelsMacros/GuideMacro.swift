import SwiftDiagnostics
public import SwiftSyntax
public import SwiftSyntaxMacros

/// `@Guide`: describes and constrains one stored property of a `@Generable` type.
///
/// It adds nothing by itself; `@Generable` reads the attribute's arguments. Its own job is to
/// reject places where a guide would silently do nothing: computed, static and `lazy` properties,
/// properties `@Generable` leaves out (a `let` with an initial value, a `GenerationID`), and
/// declarations that are not properties at all.
public struct GuideMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: MacroDiagnostic.guideOnNonProperty))
            return []
        }
        for modifier in variable.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.static), .keyword(.class):
                context.diagnose(
                    Diagnostic(node: node, message: MacroDiagnostic.guideOnNonStoredProperty(reason: "a static property"))
                )
                return []
            case .keyword(.lazy):
                context.diagnose(
                    Diagnostic(node: node, message: MacroDiagnostic.guideOnNonStoredProperty(reason: "a lazy property"))
                )
                return []
            default:
                break
            }
        }
        if variable.bindings.contains(where: { $0.accessorBlock.map(StoredProperty.isComputed) ?? false }) {
            context.diagnose(
                Diagnostic(node: node, message: MacroDiagnostic.guideOnNonStoredProperty(reason: "a computed property"))
            )
            return []
        }
        if let reason = ungeneratedReason(variable) {
            let property = variable.bindings.first?.pattern.trimmedDescription ?? ""
            context.diagnose(
                Diagnostic(node: node, message: MacroDiagnostic.guideOnUngeneratedProperty(property: property, reason: reason))
            )
        }
        return []
    }

    /// Why `@Generable` leaves every binding of `variable` out of the schema, if it does.
    private static func ungeneratedReason(_ variable: VariableDeclSyntax) -> String? {
        let bindings = Array(variable.bindings)
        if variable.bindingSpecifier.tokenKind == .keyword(.let), bindings.allSatisfy({ $0.initializer != nil }) {
            return "a 'let' with an initial value cannot be assigned"
        }
        // `var a, b: GenerationID` gives `a` the type written after it (as `StoredProperty.collect` reads it).
        let types = bindings.indices.map { index in
            bindings[index].typeAnnotation?.type
                ?? (bindings[index].initializer == nil
                    ? bindings[index...].lazy.compactMap(\.typeAnnotation).first?.type : nil)
        }
        if types.allSatisfy({ $0.map { PropertyType($0).isGenerationID } ?? false }) {
            return "a GenerationID takes the response's identifier"
        }
        return nil
    }
}
