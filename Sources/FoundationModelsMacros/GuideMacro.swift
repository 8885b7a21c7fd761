import SwiftDiagnostics
public import SwiftSyntax
public import SwiftSyntaxMacros

/// `@Guide`: describes and constrains one stored property of a `@Generable` type.
///
/// It adds nothing by itself; `@Generable` reads the attribute's arguments. Its own job is to
/// reject places where a guide would silently do nothing: computed, static and `lazy` properties,
/// and declarations that are not properties at all.
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
        }
        return []
    }
}
