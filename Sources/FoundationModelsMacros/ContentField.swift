/// One key of a structure in generated content, used to spell `generatedContent` bodies.
struct ContentField {
    /// The key.
    let key: String
    /// The Swift expression for the value.
    let value: String
    /// Whether the value is optional, so `nil` needs the type's nil representation.
    let isOptional: Bool

    /// Statements (ending in an expression) that build a structure from `fields`.
    ///
    /// Without optionals this is a single `GeneratedContent(properties:)` call with an ordered
    /// literal. With optionals that are left out when `nil` (the default), keys are gathered in a
    /// list first, because a `KeyValuePairs` literal cannot skip an entry.
    /// A single-line `GeneratedContent(properties: [...])` call, for payloads without optionals.
    static func inlineStructure(_ fields: [ContentField]) -> String {
        let entries = fields.map { "\(StringLiteral.escaped($0.key)): \($0.value)" }
        return "FoundationModels.GeneratedContent(properties: [\(entries.isEmpty ? ":" : entries.joined(separator: ", "))])"
    }

    static func structureExpression(
        _ fields: [ContentField],
        id: String?,
        nilRepresentation: NilRepresentation,
        indentation: String
    ) -> String {
        let idArgument = id.map { ", id: \($0)" } ?? ""
        let needsList: Bool
        switch nilRepresentation {
        case .null: needsList = false
        case .omit, .decidedBy: needsList = fields.contains(where: \.isOptional)
        }
        guard needsList else {
            if fields.isEmpty {
                return "\(indentation)FoundationModels.GeneratedContent(properties: [:]\(idArgument))"
            }
            let entries = fields.map { "\(indentation)        \(StringLiteral.escaped($0.key)): \($0.value)," }
            let idLine = id.map { ",\n\(indentation)    id: \($0)" } ?? ""
            return """
                \(indentation)FoundationModels.GeneratedContent(
                \(indentation)    properties: [
                \(entries.joined(separator: "\n"))
                \(indentation)    ]\(idLine)
                \(indentation))
                """
        }
        var lines = ["var properties: [(String, any FoundationModels.ConvertibleToGeneratedContent)] = []"]
        for field in fields {
            let key = StringLiteral.escaped(field.key)
            guard field.isOptional else {
                lines.append("properties.append((\(key), \(field.value)))")
                continue
            }
            switch nilRepresentation {
            case .decidedBy(let flag):
                lines.append("if let value = \(field.value) {")
                lines.append("    properties.append((\(key), value))")
                lines.append("} else if \(flag) {")
                lines.append("    properties.append((\(key), FoundationModels.GeneratedContent(kind: .null)))")
                lines.append("}")
            case .omit, .null:
                lines.append("if let value = \(field.value) {")
                lines.append("    properties.append((\(key), value))")
                lines.append("}")
            }
        }
        lines.append(
            "return FoundationModels.GeneratedContent(properties: properties\(idArgument), uniquingKeysWith: { first, _ in first })"
        )
        return lines.map { indentation + $0 }.joined(separator: "\n")
    }
}
