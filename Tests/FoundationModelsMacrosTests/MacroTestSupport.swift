import FoundationModelsMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion

/// The macros under test, named as user code spells them.
///
/// `Generable` is given its conformance so the golden extensions show `: nonisolated FoundationModels.Generable`
/// as the compiler would ask for it.
let foundationModelsMacros: [String: MacroSpec] = [
    "Generable": MacroSpec(
        type: GenerableMacro.self,
        conformances: [TypeSyntax(IdentifierTypeSyntax(name: .identifier("Generable")))]
    ),
    "Guide": MacroSpec(type: GuideMacro.self),
    "SessionPropertyEntry": MacroSpec(type: EntryMacro.self),
]
