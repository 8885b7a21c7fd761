import SwiftSyntax
import SwiftSyntaxBuilder

/// The `@Generable` expansion of a struct.
///
/// Properties keep declaration order everywhere (schema, content, partial mirror), because the
/// model generates them in schema order and `GeneratedContent` must list them in that order.
/// A property of type `GenerationID` is not a model-generated field: it stays out of the schema
/// and takes the content's `id`, so it is stable across the snapshots of one response.
struct StructExpansion: GenerableExpansion {
    let declaration: StructDeclSyntax
    let arguments: GenerableArguments
    let access: AccessLevel
    let properties: [StoredProperty]

    /// Properties the model generates (everything except `GenerationID`s).
    private var generated: [StoredProperty] {
        properties.filter { !$0.type.isGenerationID }
    }

    /// The first `GenerationID` property, which carries the content's `id`.
    private var identifierProperty: StoredProperty? {
        properties.first { $0.type.isGenerationID }
    }

    /// Names the user already declared, so the expansion does not redeclare them.
    private var declaredNames: Set<String> {
        Self.declaredNames(in: declaration.memberBlock.members)
    }

    /// The names `members` declare that an expansion would otherwise declare again: instance properties by name,
    /// static ones as `static name`, nested types and type aliases as `type name`, any initializer as `init`, and
    /// the content initializer also as `init(_:)`.
    ///
    /// Swift lets a static and an instance member share a name, so only a static `generationSchema` stands in
    /// for the generated one, and only a nested type for `PartiallyGenerated`: an instance property of either
    /// name is the user's own field.
    static func declaredNames(in members: MemberBlockItemListSyntax) -> Set<String> {
        var names: Set<String> = []
        for member in members {
            if let variable = member.decl.as(VariableDeclSyntax.self) {
                let isStatic = variable.modifiers.contains { [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind) }
                for binding in variable.bindings {
                    if let pattern = binding.pattern.as(IdentifierPatternSyntax.self) {
                        let name = pattern.identifier.text.trimmingBackticks
                        names.insert(isStatic ? "static \(name)" : name)
                    }
                }
            } else if let nested = member.decl.asProtocol((any NamedDeclSyntax).self),
                      member.decl.is(StructDeclSyntax.self) || member.decl.is(EnumDeclSyntax.self)
                        || member.decl.is(ClassDeclSyntax.self) || member.decl.is(ActorDeclSyntax.self)
                        || member.decl.is(TypeAliasDeclSyntax.self) {
                names.insert("type \(nested.name.text.trimmingBackticks)")
            } else if let initializer = member.decl.as(InitializerDeclSyntax.self) {
                names.insert("init")
                // Only the content initializer replaces ours; an `init(_ name: String)` is another initializer.
                if isContentInitializer(initializer) { names.insert("init(_:)") }
            }
        }
        return names
    }

    /// Whether `initializer` is `init(_: GeneratedContent)`, the one the `Generable` conformance declares.
    static func isContentInitializer(_ initializer: InitializerDeclSyntax) -> Bool {
        let parameters = initializer.signature.parameterClause.parameters
        guard parameters.count == 1, let only = parameters.first, only.firstName.tokenKind == .wildcard else { return false }
        return ["GeneratedContent", "FoundationModels.GeneratedContent"].contains(only.type.trimmedDescription)
    }

    func members() -> [DeclSyntax] {
        let names = declaredNames
        var result: [DeclSyntax] = []
        // A written initializer already suppresses the implicit memberwise one; adding ours then
        // could clash with it, so the user's choice stands.
        if !names.contains("init") {
            result.append(memberwiseInitializer())
        }
        if !names.contains("static generationSchema") {
            result.append(generationSchema())
        }
        if !names.contains("type PartiallyGenerated") {
            result.append(partiallyGenerated())
        }
        return result
    }

    func extensionMembers() -> [DeclSyntax] {
        let names = declaredNames
        var result: [DeclSyntax] = []
        if !names.contains("init(_:)") {
            result.append(contentInitializer())
        }
        if !names.contains("generatedContent") {
            result.append(generatedContent())
        }
        return result
    }

    private func memberwiseInitializer() -> DeclSyntax {
        let parameters = properties.map { property -> String in
            var parameter = "\(property.identifier.text): \(property.type.type)"
            if let initializer = property.initializer {
                parameter += " = \(initializer)"
            } else if property.isVariable, property.type.optionalWrapped != nil {
                // Matches the implicit memberwise initializer, which defaults optional `var`s to nil.
                parameter += " = nil"
            }
            return parameter
        }
        let assignments = properties.map { "    self.\($0.identifier.text) = \($0.identifier.text)" }
        // As visible as the least visible property, like Swift's own memberwise initializer, so a public
        // type with an internal property does not get a public initializer taking an internal type.
        // A private property makes it fileprivate, as Swift's does, so the rest of the file can still call it.
        var level = max(properties.reduce(access) { min($0, $1.access ?? .internal) }, .fileprivate)
        // A default value is part of the initializer's interface: one that may name something less visible than
        // the type (an internal constant) would not compile in a public initializer. Swift's own memberwise
        // initializer is never more than internal.
        if level > .internal, properties.contains(where: { $0.initializer.map { !Self.isVisibleAnywhere($0) } ?? false }) {
            level = .internal
        }
        return "\(raw: level.prefix)nonisolated init(\(raw: parameters.joined(separator: ", "))) \(raw: Self.block(assignments))"
    }

    /// Whether a default value can name nothing less visible than the property's type: a literal (a number, a
    /// string without interpolation, a Boolean, `nil`), a member of the type written without it (`.calm`, or
    /// `.init(…)` of such arguments), which a public property's type makes public as it does its cases, or an
    /// array or dictionary of them.
    static func isVisibleAnywhere(_ expression: ExprSyntax) -> Bool {
        if expression.is(IntegerLiteralExprSyntax.self) || expression.is(FloatLiteralExprSyntax.self)
            || expression.is(BooleanLiteralExprSyntax.self) || expression.is(NilLiteralExprSyntax.self) {
            return true
        }
        if let string = expression.as(StringLiteralExprSyntax.self) {
            return string.segments.allSatisfy { $0.is(StringSegmentSyntax.self) }
        }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return prefix.expression.is(IntegerLiteralExprSyntax.self) || prefix.expression.is(FloatLiteralExprSyntax.self)
        }
        if let member = expression.as(MemberAccessExprSyntax.self) {
            return member.base == nil
        }
        if let call = expression.as(FunctionCallExprSyntax.self), call.trailingClosure == nil,
           call.additionalTrailingClosures.isEmpty,
           let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.base == nil {
            return call.arguments.allSatisfy { isVisibleAnywhere($0.expression) }
        }
        if let array = expression.as(ArrayExprSyntax.self) {
            return array.elements.allSatisfy { isVisibleAnywhere($0.expression) }
        }
        if let dictionary = expression.as(DictionaryExprSyntax.self) {
            guard case .elements(let elements) = dictionary.content else { return true }
            return elements.allSatisfy { isVisibleAnywhere($0.key) && isVisibleAnywhere($0.value) }
        }
        return false
    }

    private func generationSchema() -> DeclSyntax {
        let propertyLines = generated.map { "            \(schemaProperty($0))," }
        let propertyList = propertyLines.isEmpty ? "[]" : "[\n\(propertyLines.joined(separator: "\n"))\n        ]"
        var schemaArguments = ["type: Self.self"]
        if let description = arguments.description {
            schemaArguments.append("description: \(description)")
        }
        if let flag = arguments.representNilExplicitly {
            schemaArguments.append("representNilExplicitlyInGeneratedContent: \(flag)")
        }
        schemaArguments.append("properties: \(propertyList)")
        guard arguments.name != nil else {
            return """
                \(raw: access.prefix)nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        \(raw: schemaArguments.joined(separator: ",\n        "))
                    )
                }
                """
        }
        let schema = """
            FoundationModels.GenerationSchema(
                \(schemaArguments.joined(separator: ",\n    "))
            )
            """
        return """
            \(raw: access.prefix)nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                \(raw: arguments.named(schema))
            }
            """
    }

    private func schemaProperty(_ property: StoredProperty) -> String {
        var arguments = ["name: \(StringLiteral.escaped(property.name))"]
        if let description = property.guide.description {
            arguments.append("description: \(description)")
        }
        arguments.append("type: \(PropertyType.parenthesizedIfNeeded(property.type.type)).self")
        if !property.guide.guides.isEmpty {
            let guides = property.guide.guides.map { Self.guide($0, on: property.type) }
            arguments.append("guides: [\(guides.joined(separator: ", "))]")
        }
        return "FoundationModels.GenerationSchema.Property(\(arguments.joined(separator: ", ")))"
    }

    /// `guide` with its base written out (`GenerationGuide<Int>.range(…)`) when the property's type is known, so a
    /// guide for another type (`.range` on a `String`) is refused by name instead of by a mismatch of the
    /// property's type that the overloads of `Property` report.
    private static func guide(_ guide: ExprSyntax, on type: PropertyType) -> String {
        let call = guide.as(FunctionCallExprSyntax.self)?.calledExpression ?? guide
        guard let value = type.guidedType, let member = call.as(MemberAccessExprSyntax.self), member.base == nil else {
            return guide.description
        }
        return "FoundationModels.GenerationGuide<\(value)>\(guide)"
    }

    private func partiallyGenerated() -> DeclSyntax {
        let prefix = access.prefix
        // The mirror's `id` is the content's GenerationID, unless the user's own `id` takes that name (it is
        // then the mirror's identity, so its partial value must be Hashable).
        let userID = properties.first { $0.name == "id" }
        var fields: [String] = []
        var assignments: [String] = []
        if userID == nil {
            fields.append("\(prefix)var id: FoundationModels.GenerationID")
            assignments.append("self.id = content.id ?? FoundationModels.GenerationID()")
        }
        for property in properties {
            fields.append("\(mirrorPrefix(property))var \(property.identifier.text): \(property.type.partiallyGeneratedType(selfName: declaration.name.trimmed))")
            assignments.append(contentAssignment(property))
        }
        let body = fields.map { "    \($0)" } + [""] + [
            "    \(prefix)init(_ content: FoundationModels.GeneratedContent) throws {"
        ] + assignments.map { "        \($0)" } + ["    }"]
        return """
            \(raw: prefix)nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent\(raw: mirroredConformances) {
            \(raw: body.joined(separator: "\n"))
            }
            """
    }

    /// The access modifier of a property's mirror: the property's own, capped at the type's.
    private func mirrorPrefix(_ property: StoredProperty) -> String {
        // A reused `id` witnesses `Identifiable`, so it has the mirror's level.
        if property.name == "id" { return access.prefix }
        // `private` would hide the mirror's property from the type it mirrors; the file is the closest scope.
        return max(min(access, property.access ?? .internal), .fileprivate).prefix
    }

    /// `Equatable` and `Hashable` when the type declares them, so snapshots compare as the values do (every
    /// mirror property is an optional of a type that has them too).
    private var mirroredConformances: String {
        // A composition (`Codable & Hashable`) declares each of its parts.
        let inherited = (declaration.inheritanceClause?.inheritedTypes ?? []).flatMap { inherited -> [TypeSyntax] in
            inherited.type.as(CompositionTypeSyntax.self)?.elements.map(\.type) ?? [inherited.type]
        }
        let declared = Set(inherited.map { type -> String in
            let name = type.trimmedDescription
            return name.hasPrefix("Swift.") ? String(name.dropFirst("Swift.".count)) : name
        })
        if declared.contains("Hashable") { return ", Equatable, Hashable" }
        if declared.contains("Equatable") { return ", Equatable" }
        return ""
    }

    /// `self.x = …` reading one property from `content`.
    ///
    /// The assigned type picks the overload: an optional target uses the `value(_:forProperty:)`
    /// variant that gives `nil` for a missing key, which is what partial content has.
    private func contentAssignment(_ property: StoredProperty) -> String {
        let target = "self.\(property.identifier.text)"
        if property.type.isGenerationID {
            if property.type.optionalWrapped != nil {
                return "\(target) = content.id"
            }
            return "\(target) = content.id ?? FoundationModels.GenerationID()"
        }
        return "\(target) = try content.value(forProperty: \(StringLiteral.escaped(property.name)))"
    }

    private func contentInitializer() -> DeclSyntax {
        let assignments = properties.map { "    \(contentAssignment($0))" }
        return "\(raw: access.prefix)nonisolated init(_ content: FoundationModels.GeneratedContent) throws \(raw: Self.block(assignments))"
    }

    private func generatedContent() -> DeclSyntax {
        let fields = generated.map {
            ContentField(key: $0.name, value: "self.\($0.identifier.text)", isOptional: $0.type.optionalWrapped != nil)
        }
        let id = identifierProperty.map { "self.\($0.identifier.text)" }
        let body = ContentField.structureExpression(
            fields,
            id: id,
            nilRepresentation: arguments.nilRepresentation,
            indentation: "    "
        )
        return """
            \(raw: access.prefix)nonisolated var generatedContent: FoundationModels.GeneratedContent {
            \(raw: body)
            }
            """
    }

    /// A brace block of already indented lines, `{}` when there are none.
    private static func block(_ lines: [String]) -> String {
        lines.isEmpty ? "{}" : "{\n\(lines.joined(separator: "\n"))\n}"
    }
}
