import SwiftDiagnostics
public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@Generable`: conforms a struct or an enum to `Generable`.
///
/// The member role adds `generationSchema`, and for structs the memberwise initializer (when
/// the struct declares no initializer) and the `PartiallyGenerated` mirror. The extension role
/// adds the conformance with `init(_:)` and `generatedContent`, the two names Apple's declaration
/// lists for it. Diagnostics are reported from the member role only, so each appears once; when
/// there are errors both roles add nothing, to avoid follow-on errors inside the expansion.
public struct GenerableMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        switch analyze(node: node, declaration: declaration, in: context) {
        case .failure(let diagnostics):
            diagnostics.forEach(context.diagnose)
            return []
        case .success(let expansion, let warnings):
            warnings.forEach(context.diagnose)
            return expansion.members()
        }
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard case .success(let expansion, _) = analyze(node: node, declaration: declaration, in: context) else {
            return []
        }
        // `nonisolated`, as Apple's macro writes it: in a module whose declarations belong to the main actor by
        // default, the conformance would otherwise be main-actor isolated, which `Generable`'s uses reject.
        let conformance = protocols.isEmpty ? "" : ": nonisolated FoundationModels.Generable"
        let members = expansion.extensionMembers().map { "\($0.trimmedDescription)" }.joined(separator: "\n\n")
        let source: DeclSyntax = "extension \(type.trimmed)\(raw: conformance) {\n\(raw: members)\n}"
        guard let ext = source.as(ExtensionDeclSyntax.self) else { return [] }
        return [ext]
    }

    /// The outcome of reading the declaration: an expansion (with warnings) or the errors that stop it.
    enum Analysis {
        case success(any GenerableExpansion, warnings: [Diagnostic])
        case failure([Diagnostic])
    }

    static func analyze(
        node: AttributeSyntax,
        declaration: some DeclGroupSyntax,
        in context: some MacroExpansionContext
    ) -> Analysis {
        let arguments = GenerableArguments(node)
        let access = AccessLevel.ofMembers(of: declaration, in: context.lexicalContext)
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            let members = structDecl.memberBlock.members
            let (properties, propertyDiagnostics) = StoredProperty.collect(from: members)
            let diagnostics = propertyDiagnostics
                + ConditionalMembers.structDiagnostics(members, memberwiseLabels: properties.map { $0.identifier.text.trimmingBackticks })
            let errors = diagnostics.filter { $0.diagMessage.severity == .error }
            guard errors.isEmpty else { return .failure(diagnostics) }
            let expansion = StructExpansion(
                declaration: structDecl,
                arguments: arguments,
                access: access,
                properties: properties
            )
            return .success(expansion, warnings: diagnostics)
        }
        if let enumDecl = declaration.as(EnumDeclSyntax.self) {
            switch EnumExpansion.make(declaration: enumDecl, arguments: arguments, access: access) {
            case .success(let expansion): return .success(expansion, warnings: [])
            case .failure(let failure): return .failure(failure.diagnostics)
            }
        }
        let kind: String
        if declaration.is(ClassDeclSyntax.self) {
            kind = "a class"
        } else if declaration.is(ActorDeclSyntax.self) {
            kind = "an actor"
        } else if declaration.is(ProtocolDeclSyntax.self) {
            kind = "a protocol"
        } else {
            kind = "an extension"
        }
        return .failure([Diagnostic(node: node, message: MacroDiagnostic.unsupportedDeclaration(kind: kind))])
    }
}

/// What the two macro roles ask of a struct or enum expansion.
protocol GenerableExpansion {
    /// Declarations added inside the type.
    func members() -> [DeclSyntax]

    /// Declarations added to the `Generable` conformance extension.
    func extensionMembers() -> [DeclSyntax]
}

/// A list of diagnostics usable as a `Result` failure.
struct DiagnosticsError: Error {
    let diagnostics: [Diagnostic]
}

/// The arguments of `@Generable(name:description:representNilExplicitlyInGeneratedContent:)`.
struct GenerableArguments {
    /// The schema name (macOS 27), passed through as written; `nil` names the schema after the type.
    var name: ExprSyntax?

    /// The type's description, passed through as written.
    var description: ExprSyntax?

    /// The 26.4 flag, passed through as written.
    var representNilExplicitly: ExprSyntax?

    init(_ node: AttributeSyntax) {
        guard case .argumentList(let arguments) = node.arguments else { return }
        for argument in arguments {
            switch argument.label?.text {
            case "name": name = argument.expression.trimmed
            case "description": description = argument.expression.trimmed
            case "representNilExplicitlyInGeneratedContent": representNilExplicitly = argument.expression.trimmed
            default: break
            }
        }
    }

    /// Whether a `nil` optional is written as `null` in generated content: `true`, `false`, or
    /// unknown until run time when the flag is not a Boolean literal.
    var nilRepresentation: NilRepresentation {
        guard let flag = representNilExplicitly else { return .omit }
        if let literal = flag.as(BooleanLiteralExprSyntax.self) {
            return literal.literal.tokenKind == .keyword(.true) ? .null : .omit
        }
        return .decidedBy(flag)
    }

    /// The `description:` argument line for a schema initializer, or nothing.
    var descriptionArgument: String {
        description.map { "description: \($0), " } ?? ""
    }

    /// `schema` built under the custom name, when there is one.
    func named(_ schema: String) -> String {
        guard let name else { return schema }
        return "FoundationModels.GenerationSchema._named(\(name), for: Self.self) {\n\(schema)\n}"
    }
}

/// How generated content spells a `nil` optional.
enum NilRepresentation {
    /// Leave the key out (the default, as Apple documents).
    case omit
    /// Write `null`.
    case null
    /// Decide at run time from this Boolean expression.
    case decidedBy(ExprSyntax)
}

/// An access level, from the least to the most visible.
enum AccessLevel: Int, Comparable {
    case `private`, `fileprivate`, `internal`, `package`, `public`

    /// The level `modifiers` spell, or `nil` when they spell none; a setter's level (`private(set)`) does not count.
    init?(_ modifiers: DeclModifierListSyntax) {
        for modifier in modifiers where modifier.detail == nil {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): self = .public
            case .keyword(.package): self = .package
            case .keyword(.internal): self = .internal
            case .keyword(.fileprivate): self = .fileprivate
            case .keyword(.private): self = .private
            default: continue
            }
            return
        }
        return nil
    }

    /// The level the generated members of `declaration` copy.
    ///
    /// Protocol witnesses of a public type must be public, and the memberwise initializer of a public
    /// type is only useful to clients when it is public too. A type without a modifier takes the level
    /// of the extension it is declared in (members of a `public extension` are public). Below internal
    /// the members are left at the default, which a private type caps anyway, whereas spelling `private`
    /// on them would hide them from the rest of the file.
    static func ofMembers(of declaration: some DeclGroupSyntax, in lexicalContext: [Syntax]) -> AccessLevel {
        // Only the innermost context decides; a type nested in a type of a public extension is internal.
        let enclosing = lexicalContext.first?.as(ExtensionDeclSyntax.self)
        let level = AccessLevel(declaration.modifiers) ?? enclosing.flatMap { AccessLevel($0.modifiers) } ?? .internal
        return max(level, .internal)
    }

    static func < (lhs: AccessLevel, rhs: AccessLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The modifier with a trailing space (`"public "`), or empty for internal, the default.
    var prefix: String {
        switch self {
        case .private: "private "
        case .fileprivate: "fileprivate "
        case .internal: ""
        case .package: "package "
        case .public: "public "
        }
    }
}
