import Foundation

/// A ``GenerationSchema`` in the form `response_format` and tool `parameters` carry to an OpenAI-compatible server.
///
/// Servers generate object members in the order the schema text lists them, so `properties` keep declaration
/// order (the text is written with the order-keeping ``JSONWriter``, never `JSONEncoder`). Keywords only this
/// package reads — `propertyOrdering`, `x-representNilExplicitly` — are left out: strict servers refuse unknown
/// keywords.
enum ChatCompletionsSchema {
    /// The keywords of our JSON Schema export that other servers do not know.
    private static let privateKeywords: Set<String> = ["propertyOrdering", "x-representNilExplicitly"]
    /// Keywords whose value is one subschema.
    private static let subschemaKeywords: Set<String> = ["items", "not", "additionalProperties", "contains", "if", "then", "else"]
    /// Keywords whose value is a list of subschemas.
    private static let subschemaListKeywords: Set<String> = ["anyOf", "allOf", "oneOf", "prefixItems"]
    /// Keywords whose value maps names to subschemas.
    private static let subschemaMapKeywords: Set<String> = ["properties", "$defs", "definitions", "patternProperties"]

    /// The schema as an ordered JSON Schema document.
    static func document(for schema: GenerationSchema) -> GeneratedContent {
        cleaned(schema.jsonSchema)
    }

    /// The schema as compact JSON Schema text, properties in declaration order.
    static func text(for schema: GenerationSchema) -> String {
        document(for: schema).compactJSONString
    }

    /// The `json_schema.name` for the schema: its type name limited to the characters and length OpenAI allows.
    static func name(for schema: GenerationSchema) -> String {
        let allowed = (schema.root.typeName ?? "").unicodeScalars.filter {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-")
        }
        let name = String(String.UnicodeScalarView(allowed).prefix(64))
        return name.isEmpty ? "response" : name
    }

    /// Whether every object requires all its properties and allows no others, as OpenAI's `strict` mode
    /// demands; with optional properties or a map `strict: true` would make such a server refuse the request.
    static func isStrictCompatible(_ schema: GenerationSchema) -> Bool {
        func check(_ node: GenerationSchema.Node) -> Bool {
            switch node {
            case .object(let object): object.additionalValues == nil && object.properties.allSatisfy { !$0.isOptional && check($0.node) }
            case .array(let array): check(array.items) && array.prefixItems.allSatisfy(check)
            case .anyOf(let union): union.choices.allSatisfy(check)
            default: true
            }
        }
        return check(schema.root) && schema.definitions.allSatisfy { check($0.node) }
    }

    /// `schema` without the private keywords, walking only positions that hold subschemas (a property may be
    /// named `propertyOrdering`).
    private static func cleaned(_ schema: GeneratedContent) -> GeneratedContent {
        guard case .structure(let properties, let keys) = schema.kind else { return schema }
        var members: [(String, GeneratedContent)] = []
        for key in keys where !privateKeywords.contains(key) {
            guard let value = properties[key] else { continue }
            if subschemaKeywords.contains(key) {
                members.append((key, cleaned(value)))
            } else if subschemaListKeywords.contains(key), case .array(let elements) = value.kind {
                members.append((key, GeneratedContent(kind: .array(elements.map(cleaned)))))
            } else if subschemaMapKeywords.contains(key), case .structure(let map, let names) = value.kind {
                members.append((key, .object(names.map { ($0, cleaned(map[$0] ?? .null)) })))
            } else {
                members.append((key, value))
            }
        }
        return .object(members)
    }
}
