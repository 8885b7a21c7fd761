import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// One stored property of a `@Generable` struct that takes part in generation.
struct StoredProperty {
    /// The identifier as written, backticks included, for use in Swift code.
    let identifier: TokenSyntax

    /// The property's key in the schema and in generated content (no backticks).
    let name: String

    /// The declared type.
    let type: PropertyType

    /// Whether it was declared with `var` (matters for the memberwise initializer's defaults).
    let isVariable: Bool

    /// The initial value, which becomes the memberwise initializer's default.
    let initializer: ExprSyntax?

    /// The merged `@Guide` attributes.
    let guide: GuideAttribute

    /// The level the declaration spells, `nil` for the default (internal).
    let access: AccessLevel?

    /// The stored properties of a struct in declaration order, plus the diagnostics they raise.
    ///
    /// Static, computed and `lazy` properties are skipped, and so is a `let` with an initial value,
    /// because it can be neither generated nor assigned. Everything else must have an explicit type
    /// that could be Generable.
    static func collect(from members: MemberBlockItemListSyntax) -> (properties: [StoredProperty], diagnostics: [Diagnostic]) {
        var properties: [StoredProperty] = []
        var diagnostics: [Diagnostic] = []
        for member in members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), isInstanceStored(variable) else { continue }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            let guide = GuideAttribute(attributes: variable.attributes)
            let bindings = Array(variable.bindings)
            for (index, binding) in bindings.enumerated() {
                if let accessors = binding.accessorBlock, isComputed(accessors) { continue }
                if isLet, binding.initializer != nil { continue }
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    diagnostics.append(
                        Diagnostic(
                            node: binding.pattern,
                            message: MacroDiagnostic.destructuringPattern(pattern: binding.pattern.trimmedDescription)
                        )
                    )
                    continue
                }
                let name = pattern.identifier.text.trimmingBackticks
                // `var a, b: Int` gives `a` the type written after `b`.
                let annotation =
                    binding.typeAnnotation
                    ?? (binding.initializer == nil
                        ? bindings[(index + 1)...].lazy.compactMap(\.typeAnnotation).first : nil)
                guard let annotation else {
                    diagnostics.append(
                        Diagnostic(node: binding.pattern, message: MacroDiagnostic.missingTypeAnnotation(property: name))
                    )
                    continue
                }
                if let reason = UnsupportedType.reason(for: annotation.type) {
                    diagnostics.append(
                        Diagnostic(
                            node: annotation.type,
                            message: MacroDiagnostic.unsupportedPropertyType(
                                property: name,
                                type: annotation.type.trimmedDescription,
                                reason: reason
                            )
                        )
                    )
                    continue
                }
                properties.append(
                    StoredProperty(
                        identifier: pattern.identifier.trimmed,
                        name: name,
                        type: PropertyType(annotation.type),
                        isVariable: !isLet,
                        initializer: binding.initializer?.value.trimmed,
                        guide: guide,
                        access: AccessLevel(variable.modifiers)
                    )
                )
            }
            for extra in guide.extraDescriptions {
                diagnostics.append(
                    Diagnostic(
                        node: extra,
                        message: MacroDiagnostic.duplicateGuideDescription(
                            property: variable.bindings.first?.pattern.trimmedDescription ?? ""
                        )
                    )
                )
            }
        }
        return (properties, diagnostics)
    }

    /// Whether the declaration is an instance property that could have storage.
    static func isInstanceStored(_ variable: VariableDeclSyntax) -> Bool {
        !variable.modifiers.contains { modifier in
            switch modifier.name.tokenKind {
            case .keyword(.static), .keyword(.class), .keyword(.lazy): return true
            default: return false
            }
        }
    }

    /// Whether an accessor block makes a property computed (observers alone keep it stored).
    static func isComputed(_ accessors: AccessorBlockSyntax) -> Bool {
        switch accessors.accessors {
        case .getter:
            return true
        case .accessors(let list):
            return list.contains { accessor in
                switch accessor.accessorSpecifier.tokenKind {
                case .keyword(.willSet), .keyword(.didSet): return false
                default: return true
                }
            }
        }
    }
}

extension String {
    /// The identifier without the backticks that escape a keyword (`` `default` `` gives `default`).
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
