import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plug-in that provides `@Generable`, `@Guide` and `@SessionPropertyEntry`.
@main
struct FoundationModelsMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        GenerableMacro.self,
        GuideMacro.self,
        EntryMacro.self,
        SessionPropertyEntryDefaultValueMacro.self,
    ]
}
