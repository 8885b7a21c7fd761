import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder

/// The `@Generable` expansion of an enum.
///
/// An enum whose cases carry no associated values is a string choice: the schema is
/// `GenerationSchema(type:description:anyOf:)` over the case names (not raw values, which need
/// not be strings), and the content is the case name as a string.
///
/// An enum with associated values is a tagged union. Each case is one alternative of an `anyOf`,
/// an object with exactly one key, the case name, whose value is the payload:
///
/// ```json
/// {"circle": {"radius": 2.5}}        // case circle(radius: Double)
/// {"text": "hello"}                  // case text(String): a single unlabeled value is the payload itself
/// {"pair": {"_0": 1, "_1": 2}}       // case pair(Int, Int): unlabeled values are named _0, _1, …
/// {"none": {}}                       // case none: an empty object
/// ```
///
/// Starting every alternative with its case name lets a constrained decoder commit to a case with
/// the first key and keeps cases with equally named fields apart. The schema is built with
/// `DynamicGenerationSchema` (one named object per case, named `Type.case`) and resolved with
/// `GenerationSchema(root:dependencies:)`. The case names start from the schema's name at run time,
/// so each specialisation of a generic enum (`Pair<Int>.one`, `Pair<String>.one`) and a custom
/// `@Generable(name:)` get their own. Associated value types enter through
/// `DynamicGenerationSchema(type:)`, so nested Generable types keep their own schemas.
/// The enum's `PartiallyGenerated` stays `Self`: a case is only known once its key is complete.
struct EnumExpansion: GenerableExpansion {
    /// One associated value of a case.
    struct Value {
        /// The key in the payload object (`label`, or `_0`, `_1`, … when unlabeled).
        let key: String
        /// The label as written, when there is one.
        let label: String?
        let type: PropertyType
    }

    /// One enum case.
    struct Case {
        /// The identifier as written (with backticks when escaped).
        let identifier: String
        /// The name used as a choice or key.
        let name: String
        let values: [Value]

        /// Whether the payload is the single unlabeled value itself rather than an object.
        var hasBarePayload: Bool {
            values.count == 1 && values[0].label == nil && values[0].type.optionalWrapped == nil
        }
    }

    let declaration: EnumDeclSyntax
    let arguments: GenerableArguments
    let access: AccessLevel
    let cases: [Case]

    private var isSimple: Bool {
        cases.allSatisfy { $0.values.isEmpty }
    }

    private var typeName: String {
        declaration.name.text.trimmingBackticks
    }

    static func make(
        declaration: EnumDeclSyntax,
        arguments: GenerableArguments,
        access: AccessLevel
    ) -> Result<EnumExpansion, DiagnosticsError> {
        var cases: [Case] = []
        var diagnostics: [Diagnostic] = []
        for member in declaration.memberBlock.members {
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in caseDecl.elements {
                let name = element.name.text.trimmingBackticks
                // Cases that differ only in their labels (`p(x:)`, `p(y:)`) would be one choice and one schema name.
                if cases.contains(where: { $0.name == name }) {
                    diagnostics.append(Diagnostic(node: element.name, message: MacroDiagnostic.duplicateCaseName(name: name)))
                    continue
                }
                var values: [Value] = []
                for (index, parameter) in (element.parameterClause?.parameters ?? []).enumerated() {
                    if let reason = UnsupportedType.reason(for: parameter.type) {
                        diagnostics.append(
                            Diagnostic(
                                node: parameter.type,
                                message: MacroDiagnostic.unsupportedAssociatedValueType(
                                    caseName: name,
                                    type: parameter.type.trimmedDescription,
                                    reason: reason
                                )
                            )
                        )
                        continue
                    }
                    let label = parameter.firstName.flatMap { $0.tokenKind == .wildcard ? nil : $0.text }
                    let key = label?.trimmingBackticks ?? "_\(index)"
                    // A label spelled like a position (`p(_1: Int, Int)`) would share its key with an unlabeled value,
                    // and one of the two would be lost in the content.
                    if values.contains(where: { $0.key == key }) {
                        diagnostics.append(Diagnostic(
                            node: parameter, message: MacroDiagnostic.duplicateAssociatedValueKey(caseName: name, key: key)))
                        continue
                    }
                    values.append(Value(key: key, label: label, type: PropertyType(parameter.type)))
                }
                cases.append(Case(identifier: element.name.text, name: name, values: values))
            }
        }
        diagnostics += ConditionalMembers.enumDiagnostics(declaration.memberBlock.members)
        guard diagnostics.isEmpty else { return .failure(DiagnosticsError(diagnostics: diagnostics)) }
        return .success(EnumExpansion(declaration: declaration, arguments: arguments, access: access, cases: cases))
    }

    func members() -> [DeclSyntax] {
        // What the user declared stands, as for structures.
        guard !StructExpansion.declaredNames(in: declaration.memberBlock.members).contains("static generationSchema") else { return [] }
        return [isSimple ? choiceSchema() : unionSchema()]
    }

    func extensionMembers() -> [DeclSyntax] {
        let names = StructExpansion.declaredNames(in: declaration.memberBlock.members)
        var result: [DeclSyntax] = []
        if !names.contains("init(_:)") { result.append(isSimple ? choiceInitializer() : unionInitializer()) }
        if !names.contains("generatedContent") { result.append(isSimple ? choiceContent() : unionContent()) }
        return result
    }

    // MARK: String choice

    private func choiceSchema() -> DeclSyntax {
        let choices = cases.map { StringLiteral.escaped($0.name) }.joined(separator: ", ")
        let schema = "FoundationModels.GenerationSchema(type: Self.self, \(arguments.descriptionArgument)anyOf: [\(choices)])"
        return schemaProperty(schema)
    }

    /// The `generationSchema` property returning `schema`, built under the custom name when there is one.
    private func schemaProperty(_ schema: String) -> DeclSyntax {
        // The interpolation below indents only its first line.
        let body = arguments.named(schema).split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated().map { $0.offset == 0 ? String($0.element) : "    " + $0.element }.joined(separator: "\n")
        return """
            \(raw: access.prefix)nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                \(raw: body)
            }
            """
    }

    private func choiceInitializer() -> DeclSyntax {
        let branches = cases.map { "    case \(StringLiteral.escaped($0.name)): self = .\($0.identifier)" }
        return """
            \(raw: access.prefix)nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                let choice = try content.value(String.self)
                switch choice {
            \(raw: branches.joined(separator: "\n"))
                default: \(raw: decodingError("\"unexpected case '\\(choice)'\""))
                }
            }
            """
    }

    private func choiceContent() -> DeclSyntax {
        let branches = cases.map {
            "    case .\($0.identifier): FoundationModels.GeneratedContent(kind: .string(\(StringLiteral.escaped($0.name))))"
        }
        let body =
            branches.isEmpty
            ? "    switch self {}"
            : "    switch self {\n\(branches.joined(separator: "\n"))\n    }"
        return """
            \(raw: access.prefix)nonisolated var generatedContent: FoundationModels.GeneratedContent {
            \(raw: body)
            }
            """
    }

    // MARK: Tagged union

    private func unionSchema() -> DeclSyntax {
        var lines: [String] = []
        for item in cases {
            var payload: [String]
            if item.hasBarePayload {
                payload = ["FoundationModels.DynamicGenerationSchema(type: \(typeExpression(item.values[0].type.type)))"]
            } else {
                let properties = item.values.map { value -> String in
                    let optional = value.type.optionalWrapped != nil ? ", isOptional: true" : ""
                    let schema = "FoundationModels.DynamicGenerationSchema(type: \(typeExpression(value.type.nonOptional)))"
                    return
                        "        FoundationModels.DynamicGenerationSchema.Property(name: \(StringLiteral.escaped(value.key)), schema: \(schema)\(optional)),"
                }
                payload = ["FoundationModels.DynamicGenerationSchema("]
                payload.append("    name: name + \(StringLiteral.escaped(".\(item.name).payload")),")
                if let flag = arguments.representNilExplicitly {
                    // Like a struct's schema, so a payload's nil optionals are nullable when written as null.
                    payload.append("    representNilExplicitlyInGeneratedContent: \(flag),")
                }
                if properties.isEmpty {
                    payload.append("    properties: []")
                } else {
                    payload.append("    properties: [")
                    payload += properties
                    payload.append("    ]")
                }
                payload.append(")")
            }
            lines.append("FoundationModels.DynamicGenerationSchema(")
            lines.append("    name: name + \(StringLiteral.escaped(".\(item.name)")),")
            lines.append("    properties: [")
            lines.append("        FoundationModels.DynamicGenerationSchema.Property(")
            lines.append("            name: \(StringLiteral.escaped(item.name)),")
            lines.append("            schema: \(payload[0])")
            lines += payload.dropFirst().map { "            \($0)" }
            lines.append("        ),")
            lines.append("    ]")
            lines.append("),")
        }
        let alternatives = lines.map { "            \($0)" }.joined(separator: "\n")
        // Built with the enum marked as in progress, so a case holding the enum itself refers to it by name.
        let schema = """
            FoundationModels.GenerationSchema._building(Self.self) { name in
                let root = FoundationModels.DynamicGenerationSchema(
                    name: name,
                    \(arguments.descriptionArgument)anyOf: [
            \(alternatives)
                    ]
                )
                // The alternatives are built from the enum's own cases, so they cannot conflict.
                return try! FoundationModels.GenerationSchema(root: root, dependencies: [])
            }
            """
        return schemaProperty(schema)
    }

    private func unionInitializer() -> DeclSyntax {
        var branches: [String] = []
        for item in cases {
            branches.append("    case \(StringLiteral.escaped(item.name)):")
            if item.values.isEmpty {
                branches.append("        self = .\(item.identifier)")
            } else if item.hasBarePayload {
                branches.append("        self = .\(item.identifier)(try payload.value())")
            } else {
                let arguments = item.values.map { value in
                    let read = "try payload.value(forProperty: \(StringLiteral.escaped(value.key)))"
                    return value.label.map { "\(Self.argumentLabel($0)): \(read)" } ?? read
                }
                branches.append("        self = .\(item.identifier)(\(arguments.joined(separator: ", ")))")
            }
        }
        let mismatch = decodingError("\"expected an object with one key naming a case of \(typeName)\"")
        return """
            \(raw: access.prefix)nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                guard case .structure(let properties, let orderedKeys) = content.kind,
                    let caseName = orderedKeys.first,
                    let payload = properties[caseName]
                else {
                    \(raw: mismatch)
                }
                switch caseName {
            \(raw: branches.joined(separator: "\n"))
                default:
                    \(raw: decodingError("\"unexpected case '\\(caseName)'\""))
                }
            }
            """
    }

    private func unionContent() -> DeclSyntax {
        var branches: [String] = []
        for item in cases {
            let key = StringLiteral.escaped(item.name)
            if item.values.isEmpty {
                branches.append("    case .\(item.identifier):")
                branches.append(
                    "        return FoundationModels.GeneratedContent(properties: [\(key): \(ContentField.inlineStructure([]))])"
                )
                continue
            }
            let bindings = item.values.indices.map { "let value\($0)" }.joined(separator: ", ")
            branches.append("    case .\(item.identifier)(\(bindings)):")
            if item.hasBarePayload {
                branches.append("        return FoundationModels.GeneratedContent(properties: [\(key): value0])")
                continue
            }
            let fields = item.values.enumerated().map { index, value in
                ContentField(key: value.key, value: "value\(index)", isOptional: value.type.optionalWrapped != nil)
            }
            if case .null = arguments.nilRepresentation {
                branches.append("        let payload = \(ContentField.inlineStructure(fields))")
            } else if !fields.contains(where: \.isOptional) {
                branches.append("        let payload = \(ContentField.inlineStructure(fields))")
            } else {
                // Optionals that may be left out need statements; a closure keeps them in one expression.
                let statements = ContentField.structureExpression(
                    fields,
                    id: nil,
                    nilRepresentation: arguments.nilRepresentation,
                    indentation: "            "
                )
                branches.append("        let payload: FoundationModels.GeneratedContent = {")
                branches.append(statements)
                branches.append("        }()")
            }
            branches.append("        return FoundationModels.GeneratedContent(properties: [\(key): payload])")
        }
        return """
            \(raw: access.prefix)nonisolated var generatedContent: FoundationModels.GeneratedContent {
                switch self {
            \(raw: branches.joined(separator: "\n"))
                }
            }
            """
    }

    // MARK: Helpers

    /// `label` as a call's argument label: without backticks where none are needed there (a keyword such as
    /// `in` or `default` is a plain label, and escaping it draws a warning), kept for `inout`, for `` `_` ``
    /// (bare, it would mean no label) and for a raw identifier such as `` `two words` ``.
    static func argumentLabel(_ label: String) -> String {
        let name = label.trimmingBackticks
        let isPlain = name.first.map { $0 == "_" || $0.isLetter } == true && name.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
        return isPlain && name != "inout" && name != "_" ? name : label
    }

    /// `T.self`, parenthesised when the spelling needs it.
    private func typeExpression(_ type: TypeSyntax) -> String {
        "\(PropertyType.parenthesizedIfNeeded(type)).self"
    }

    /// A `throw` of the standard library's `DecodingError`, which needs nothing from the runtime.
    private func decodingError(_ message: String) -> String {
        "throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(codingPath: [], debugDescription: \(message)))"
    }
}
