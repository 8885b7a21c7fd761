package import Foundation

// The JSON Schema form of a schema, used by `Codable`, `debugDescription` and importing.
//
// Output is a JSON Schema (2020-12 vocabulary) document: `type`, `properties`, `required`,
// `additionalProperties: false`, `enum`/`const`/`pattern`, `minimum`/`maximum`, `items`/`minItems`/`maxItems`,
// `anyOf`, `title`, `description`, `$ref` and `$defs`. Because JSON objects are unordered once decoded, each object
// also lists its property order in `propertyOrdering` (the keyword Google's Gemini API uses for the same purpose).
// `x-representNilExplicitly` marks structures whose `nil` optionals are written as `null`.

extension GenerationSchema {
    /// The schema as a JSON Schema document (an ordered JSON value).
    package var jsonSchema: GeneratedContent {
        var members = JSONSchemaWriter(rootName: root.typeName).members(for: root)
        if !definitions.isEmpty {
            let defs = definitions.map { ($0.name, JSONSchemaWriter(rootName: root.typeName).object(for: $0.node)) }
            members.append(("$defs", .object(defs)))
        }
        return GeneratedContent.object(members)
    }

    /// The schema as compact JSON Schema text, with properties in order.
    package var jsonSchemaString: String {
        jsonSchema.compactJSONString
    }

    /// Creates a schema from JSON Schema text.
    ///
    /// Supports the subset this type writes (see the file comment), plus `oneOf` (as `anyOf`), `definitions`,
    /// `$schema`, `$id`, `$comment`, `examples` and `default` (ignored annotations).
    ///
    /// - Parameter text: A JSON Schema document.
    /// - Throws: ``JSONSchemaImportError`` naming the unsupported keyword or malformed part.
    package init(jsonSchema text: String) throws {
        let document = try GeneratedContent(json: text)
        guard document.isComplete else {
            throw JSONSchemaImportError(path: "#", message: "The JSON Schema document is truncated")
        }
        try self.init(jsonSchema: document)
    }

    /// Creates a schema from JSON Schema data (UTF-8).
    ///
    /// - Parameter data: A JSON Schema document.
    /// - Throws: ``JSONSchemaImportError`` naming the unsupported keyword or malformed part.
    package init(jsonSchema data: Data) throws {
        try self.init(jsonSchema: String(decoding: data, as: UTF8.self))
    }

    /// Creates a schema from a parsed JSON Schema document.
    ///
    /// - Parameter document: A JSON Schema document.
    /// - Throws: ``JSONSchemaImportError`` naming the unsupported keyword or malformed part.
    package init(jsonSchema document: GeneratedContent) throws {
        var reader = JSONSchemaReader()
        let root = try reader.node(document, path: "#", isRoot: true)
        self.init(root: root, definitions: reader.definitions)
        let defined = Set(definitions.map(\.name) + [root.typeName].compactMap { $0 })
        if let missing = reader.references.first(where: { !defined.contains($0) }) {
            throw JSONSchemaImportError(path: "#", message: "\"$ref\" points to an undefined schema \"\(missing)\"")
        }
    }
}

/// An error importing a JSON Schema document: an unsupported keyword or a malformed value.
package struct JSONSchemaImportError: Error, CustomStringConvertible, LocalizedError {
    /// A JSON Pointer-like path to the offending schema, such as `#/properties/age`.
    package var path: String
    /// What is wrong.
    package var message: String

    /// Creates an error.
    package init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// The message and location.
    package var description: String { "\(message) at \(path)." }
    /// The message and location.
    package var errorDescription: String? { description }
}

extension GeneratedContent {
    /// An object with ordered members.
    static func object(_ members: [(String, GeneratedContent)]) -> GeneratedContent {
        var properties: [String: GeneratedContent] = [:]
        for (key, value) in members { properties[key] = value }
        return GeneratedContent(kind: .structure(properties: properties, orderedKeys: members.map(\.0)))
    }

    /// A string value.
    static func text(_ value: String) -> GeneratedContent { GeneratedContent(kind: .string(value)) }

    /// A number value.
    static func number(_ value: Double) -> GeneratedContent { GeneratedContent(kind: .number(value)) }

    /// An array of strings.
    static func texts(_ values: [String]) -> GeneratedContent { GeneratedContent(kind: .array(values.map(text))) }
}

/// Writes schema nodes as JSON Schema objects.
private struct JSONSchemaWriter {
    /// The root's name; references to it are written as `#`.
    let rootName: String?

    func object(for node: GenerationSchema.Node) -> GeneratedContent {
        .object(members(for: node))
    }

    func members(for node: GenerationSchema.Node) -> [(String, GeneratedContent)] {
        switch node {
        case .string(let guides):
            var members: [(String, GeneratedContent)] = [("type", .text("string"))]
            if let choices = guides.choices {
                if guides.isConstant, choices.count == 1 {
                    members.append(("const", .text(choices[0])))
                } else {
                    members.append(("enum", .texts(choices)))
                }
            }
            if let pattern = guides.pattern {
                // An unknown pattern is written as null so it survives a round trip and still fails lowering.
                members.append(("pattern", pattern.source.map(GeneratedContent.text) ?? .null))
            }
            return members
        case .integer(let bounds):
            return [("type", .text("integer"))] + boundMembers(bounds)
        case .number(let bounds):
            return [("type", .text("number"))] + boundMembers(bounds)
        case .boolean:
            return [("type", .text("boolean"))]
        case .null:
            return [("type", .text("null"))]
        case .any:
            return []
        case .array(let array):
            var members: [(String, GeneratedContent)] = [("type", .text("array")), ("items", object(for: array.items))]
            if let minimum = array.minimumCount { members.append(("minItems", .number(Double(minimum)))) }
            if let maximum = array.maximumCount { members.append(("maxItems", .number(Double(maximum)))) }
            return members
        case .object(let object):
            var result = header(object.name, object.description)
            result.append(("type", .text("object")))
            let properties = object.properties.map { property -> (String, GeneratedContent) in
                var schema = members(for: property.node)
                if let description = property.description {
                    schema.insert(("description", .text(description)), at: 0)
                }
                return (property.name, .object(schema))
            }
            result.append(("properties", .object(properties)))
            result.append(("required", .texts(object.properties.filter { !$0.isOptional }.map(\.name))))
            result.append(("additionalProperties", GeneratedContent(kind: .bool(false))))
            result.append(("propertyOrdering", .texts(object.properties.map(\.name))))
            if object.representsNilExplicitly {
                result.append(("x-representNilExplicitly", GeneratedContent(kind: .bool(true))))
            }
            return result
        case .enumeration(let enumeration):
            return header(enumeration.name, enumeration.description)
                + [("type", .text("string")), ("enum", .texts(enumeration.choices))]
        case .anyOf(let union):
            return header(union.name, union.description)
                + [("anyOf", GeneratedContent(kind: .array(union.choices.map(object(for:)))))]
        case .reference(let name):
            return [("$ref", .text(name == rootName ? "#" : "#/$defs/\(name)"))]
        }
    }

    private func header(_ name: String, _ description: String?) -> [(String, GeneratedContent)] {
        [("title", .text(name))] + (description.map { [("description", .text($0))] } ?? [])
    }

    private func boundMembers(_ bounds: GenerationSchema.NumericBounds) -> [(String, GeneratedContent)] {
        (bounds.minimum.map { [("minimum", .number($0))] } ?? []) + (bounds.maximum.map { [("maximum", .number($0))] } ?? [])
    }
}

/// Reads JSON Schema objects into schema nodes.
private struct JSONSchemaReader {
    var definitions: [GenerationSchema.Definition] = []
    var references: [String] = []
    /// The root's title; `#` references resolve to it.
    var rootName: String?

    /// Keywords that only annotate and can be ignored without changing what is valid.
    static let ignoredKeywords: Set<String> = ["$schema", "$id", "$comment", "examples", "default"]

    mutating func node(_ schema: GeneratedContent, path: String, isRoot: Bool = false) throws -> GenerationSchema.Node {
        if case .bool(true) = schema.kind { return .any }
        guard case .structure(let members, let keys) = schema.kind else {
            throw JSONSchemaImportError(path: path, message: "A schema must be an object")
        }
        var unread = Set(keys).subtracting(Self.ignoredKeywords)
        func take(_ key: String) -> GeneratedContent? {
            unread.remove(key)
            return members[key]
        }
        func string(_ key: String) throws -> String? {
            guard let value = take(key) else { return nil }
            guard case .string(let text) = value.kind else {
                throw JSONSchemaImportError(path: "\(path)/\(key)", message: "\"\(key)\" must be a string")
            }
            return text
        }
        func strings(_ key: String) throws -> [String]? {
            guard let value = take(key) else { return nil }
            guard case .array(let elements) = value.kind,
                let texts = try? elements.map({ try String($0) })
            else {
                throw JSONSchemaImportError(path: "\(path)/\(key)", message: "\"\(key)\" must be an array of strings")
            }
            return texts
        }
        func number(_ key: String) throws -> Double? {
            guard let value = take(key) else { return nil }
            guard case .number(let number) = value.kind else {
                throw JSONSchemaImportError(path: "\(path)/\(key)", message: "\"\(key)\" must be a number")
            }
            return number
        }
        func count(_ key: String) throws -> Int? {
            guard let value = try number(key) else { return nil }
            guard let count = Int(exactly: value), count >= 0 else {
                throw JSONSchemaImportError(path: "\(path)/\(key)", message: "\"\(key)\" must be a whole number ≥ 0")
            }
            return count
        }

        let title = try string("title")
        let description = try string("description")
        if isRoot { rootName = title }

        for key in ["$defs", "definitions"] {
            guard let defs = take(key) else { continue }
            guard case .structure(let values, let names) = defs.kind else {
                throw JSONSchemaImportError(path: "\(path)/\(key)", message: "\"\(key)\" must be an object")
            }
            for name in names {
                let node = try self.node(values[name]!, path: "\(path)/\(key)/\(name)")
                // A definition is named by its key; keep the title in sync so references and names agree.
                definitions.append(.init(name: name, node: node.renamed(name)))
            }
        }

        let result: GenerationSchema.Node
        if let reference = try string("$ref") {
            let name: String
            if reference == "#" {
                name = rootName ?? "Root"
            } else if let prefix = ["#/$defs/", "#/definitions/"].first(where: reference.hasPrefix) {
                name = String(reference.dropFirst(prefix.count))
            } else {
                throw JSONSchemaImportError(path: "\(path)/$ref", message: "Unsupported reference \"\(reference)\"")
            }
            if !references.contains(name) { references.append(name) }
            result = .reference(name)
        } else if let choices = take("anyOf") ?? take("oneOf") {
            guard case .array(let elements) = choices.kind else {
                throw JSONSchemaImportError(path: "\(path)/anyOf", message: "\"anyOf\" must be an array")
            }
            let nodes = try elements.enumerated().map { try node($1, path: "\(path)/anyOf/\($0)") }
            result = .anyOf(.init(name: title ?? "AnyOf", description: description, choices: nodes))
        } else {
            let type: String?
            if let value = take("type") {
                guard case .string(let text) = value.kind else {
                    throw JSONSchemaImportError(
                        path: "\(path)/type", message: "Unsupported keyword value: \"type\" must be a single string")
                }
                type = text
            } else {
                type = members["properties"] != nil ? "object" : (members["enum"] ?? members["const"]) != nil ? "string" : nil
            }
            switch type {
            case "string":
                var guides = GenerationSchema.StringGuides()
                if let constant = try string("const") {
                    guides.choices = [constant]
                    guides.isConstant = true
                }
                if let choices = try strings("enum") {
                    guides.choices = choices
                }
                if let pattern = take("pattern") {
                    if case .string(let source) = pattern.kind {
                        guides.pattern = RegexPattern(source: source)
                    } else if pattern.kind == .null {
                        guides.pattern = RegexPattern(source: nil)
                    } else {
                        throw JSONSchemaImportError(path: "\(path)/pattern", message: "\"pattern\" must be a string")
                    }
                }
                if let title, let choices = guides.choices, !guides.isConstant, guides.pattern == nil {
                    result = .enumeration(.init(name: title, description: description, choices: choices))
                } else {
                    result = .string(guides)
                }
            case "integer", "number":
                let bounds = GenerationSchema.NumericBounds(minimum: try number("minimum"), maximum: try number("maximum"))
                result = type == "integer" ? .integer(bounds) : .number(bounds)
            case "boolean":
                result = .boolean
            case "null":
                result = .null
            case "array":
                guard let items = take("items") else {
                    throw JSONSchemaImportError(path: path, message: "An array schema needs \"items\"")
                }
                result = .array(.init(items: try node(items, path: "\(path)/items"), minimumCount: try count("minItems"),
                                      maximumCount: try count("maxItems")))
            case "object":
                result = .object(try object(take: take, strings: strings, title: title, description: description,
                                            path: path))
            case nil:
                result = .any
            case let other?:
                throw JSONSchemaImportError(path: "\(path)/type", message: "Unsupported type \"\(other)\"")
            }
        }
        if let keyword = keys.first(where: unread.contains) {
            throw JSONSchemaImportError(path: path, message: "Unsupported JSON Schema keyword \"\(keyword)\"")
        }
        return result
    }

    private mutating func object(
        take: (String) -> GeneratedContent?,
        strings: (String) throws -> [String]?,
        title: String?,
        description: String?,
        path: String
    ) throws -> GenerationSchema.ObjectNode {
        if let additional = take("additionalProperties"), additional.kind != .bool(false) {
            throw JSONSchemaImportError(
                path: "\(path)/additionalProperties",
                message: "Unsupported keyword value: only \"additionalProperties\": false is supported")
        }
        let required = Set(try strings("required") ?? [])
        let ordering = try strings("propertyOrdering")
        var explicitNil = false
        if let flag = take("x-representNilExplicitly") {
            explicitNil = flag.kind == .bool(true)
        }
        var properties: [GenerationSchema.PropertyNode] = []
        if let value = take("properties") {
            guard case .structure(let schemas, let names) = value.kind else {
                throw JSONSchemaImportError(path: "\(path)/properties", message: "\"properties\" must be an object")
            }
            // Decoders lose key order, so `propertyOrdering` (when present) decides it.
            let order = (ordering ?? []).filter { schemas[$0] != nil } + names.filter { !(ordering ?? []).contains($0) }
            for name in order {
                let propertyPath = "\(path)/properties/\(name)"
                guard case .structure(var members, var keys) = schemas[name]!.kind else {
                    throw JSONSchemaImportError(path: propertyPath, message: "A schema must be an object")
                }
                // A property's description belongs to the property, unless it describes a named type.
                var propertyDescription: String?
                if members["title"] == nil, case .string(let text)? = members["description"]?.kind {
                    propertyDescription = text
                    members["description"] = nil
                    keys.removeAll { $0 == "description" }
                }
                let stripped = GeneratedContent(kind: .structure(properties: members, orderedKeys: keys))
                properties.append(
                    .init(name: name, description: propertyDescription, node: try node(stripped, path: propertyPath),
                          isOptional: !required.contains(name))
                )
            }
        }
        return .init(name: title ?? "Object", description: description, properties: properties,
                     representsNilExplicitly: explicitNil)
    }
}

extension GenerationSchema.Node {
    /// This node with its type name replaced (for definitions named by their `$defs` key).
    func renamed(_ name: String) -> Self {
        switch self {
        case .object(var node): node.name = name; return .object(node)
        case .enumeration(var node): node.name = name; return .enumeration(node)
        case .anyOf(var node): node.name = name; return .anyOf(node)
        case .string(let guides) where guides.choices != nil && !guides.isConstant && guides.pattern == nil:
            return .enumeration(.init(name: name, choices: guides.choices ?? []))
        default: return self
        }
    }
}
