import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plug-in that provides `@Generable` and `@Guide`.
@main
struct FoundationModelsMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        GenerableMacro.self,
        GuideMacro.self,
    ]
}
