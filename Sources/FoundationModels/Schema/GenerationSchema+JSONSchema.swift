package import Foundation
import FMDecoding

// The JSON Schema form of a schema, used by `Codable`, `debugDescription` and importing.
//
// Output is a JSON Schema (2020-12 vocabulary) document: `type`, `properties`, `required`,
// `additionalProperties: false`, `enum`/`const`, `pattern` (anchored, since JSON Schema patterns search),
// `minLength`/`maxLength`/`format`, `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`,
// `items`/`prefixItems`/`minItems`/`maxItems`/`uniqueItems`, `anyOf`, `title`, `description`, `$ref` and `$defs`.
// Because JSON objects are unordered once decoded, each object also lists its property order in
// `propertyOrdering` (the keyword Google's Gemini API uses for the same purpose).
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

    /// Creates a schema from JSON Schema text, ignoring annotations (see ``importing(jsonSchema:)``).
    ///
    /// Unlike ``importing(jsonSchema:)`` it does not compile the schema: what only the decoder can find wrong (a
    /// pattern without source text, unconditional recursion) is reported when generating, as for any schema.
    ///
    /// - Parameter text: A JSON Schema document.
    /// - Throws: ``JSONSchemaImportError`` naming the unsupported keyword or malformed part.
    package init(jsonSchema text: String) throws {
        self = try Self.parsing(jsonSchema: text).schema
    }

    /// Imports JSON Schema text, returning the schema and warnings about what was ignored.
    ///
    /// See ``JSONSchemaImport`` for what is enforced, what is generated as a subset, and what is refused.
    ///
    /// - Parameter text: A JSON Schema document (drafts 4 to 2020-12).
    /// - Returns: The schema and warnings listing ignored annotations and unenforced formats.
    /// - Throws: ``JSONSchemaImportError`` naming the keyword that cannot be enforced, or the malformed part.
    package static func importing(jsonSchema text: String) throws -> JSONSchemaImport {
        try importing(jsonSchema: try document(text))
    }

    private static func parsing(jsonSchema text: String) throws -> JSONSchemaImport {
        try parsing(jsonSchema: try document(text))
    }

    private static func document(_ text: String) throws -> GeneratedContent {
        let document: GeneratedContent
        do {
            // A keyword written twice (`"properties"` in one object twice) would otherwise lose its first value, and
            // with it every constraint it held, without a word; an escaped lone surrogate, which no text holds, would
            // become U+FFFD in a choice or pattern.
            document = try GeneratedContent(strictJSON: text)
        } catch {
            var reason = if case DecodingError.dataCorrupted(let context) = error { context.debugDescription } else { "\(error)" }
            if reason.hasSuffix(".") { reason.removeLast() }
            throw JSONSchemaImportError(path: "#", message: "The JSON Schema document cannot be read as JSON (\(reason))")
        }
        guard document.isComplete else {
            throw JSONSchemaImportError(path: "#", message: "The JSON Schema document is truncated")
        }
        return document
    }

    /// Imports a parsed JSON Schema document, returning the schema and warnings about what was ignored.
    ///
    /// - Parameter document: A JSON Schema document.
    /// - Returns: The schema and warnings listing ignored annotations and unenforced formats.
    /// - Throws: ``JSONSchemaImportError`` naming the keyword that cannot be enforced, or the malformed part.
    package static func importing(jsonSchema document: GeneratedContent) throws -> JSONSchemaImport {
        let result = try parsing(jsonSchema: document)
        do {
            _ = try Grammar(compiling: result.schema.decodingDocument())
        } catch let error as GrammarError {
            throw JSONSchemaImportError(path: "#", keyword: error.construct, message: "The schema cannot be enforced: \(error.message)")
        } catch let error as SchemaLoweringError {
            // A range's upper end is its maximum; any other range error is about where it starts.
            let rangeKeyword = error.message.contains(" ends at ") ? "maximum" : "minimum"
            let keyword = ["multipleOf", "length", "count", "range", "pattern", "enumeration", "refers"]
                .first { error.message.contains($0) }
                .map { ["length": "minLength", "count": "minItems", "range": rangeKeyword, "enumeration": "enum", "refers": "$ref"][$0] ?? $0 }
            throw JSONSchemaImportError(path: "#", keyword: keyword ?? "schema", message: error.message)
        }
        return result
    }

    private static func parsing(jsonSchema document: GeneratedContent) throws -> JSONSchemaImport {
        var importer = JSONSchemaImporter(document: JSONSchemaValue(document))
        let schema = try importer.importSchema()
        return JSONSchemaImport(
            schema: schema, warnings: importer.warnings,
            likelyMisspellings: importer.ignoredKeywords.compactMap { written in
                JSONSchemaKeywords.misspelled(written).map { (written: written, meant: $0) }
            },
            likelyMisspelledFormats: importer.unenforcedFormats.compactMap { entry in entry.meant.map { (written: entry.format, meant: $0) } })
    }

    /// Creates a schema from JSON Schema data (UTF-8).
    ///
    /// - Parameter data: A JSON Schema document.
    /// - Throws: ``JSONSchemaImportError`` naming the unsupported keyword or malformed part.
    package init(jsonSchema data: Data) throws {
        try self.init(jsonSchema: String(decoding: data, as: UTF8.self))
    }

    /// Creates a schema from a parsed JSON Schema document, ignoring annotations.
    ///
    /// - Parameter document: A JSON Schema document.
    /// - Throws: ``JSONSchemaImportError`` naming the unsupported keyword or malformed part.
    package init(jsonSchema document: GeneratedContent) throws {
        self = try Self.parsing(jsonSchema: document).schema
    }
}

/// The result of importing a JSON Schema document.
///
/// Generated values always validate against the document. Where a grammar cannot express everything the document
/// allows, generation follows a documented rule that produces a subset (`docs/json-schema.md`); keywords that
/// cannot be enforced at all are refused when importing.
package struct JSONSchemaImport: Sendable {
    /// The imported schema.
    package var schema: GenerationSchema
    /// What was ignored: annotations, unknown keywords, formats that are not enforced.
    package var warnings: [String]
    /// Ignored keywords that are one or two edits from a keyword that constrains values (`requried`, `maxItem`),
    /// with that keyword: a caller that cannot show warnings refuses these rather than drop a constraint unseen.
    package var likelyMisspellings: [(written: String, meant: String)] = []
    /// Unenforced formats that are one or two edits from an enforced one (`date-tme`, `Date`), with that format.
    package var likelyMisspelledFormats: [(written: String, meant: String)] = []
}

extension GeneratedContent {
    /// An object with ordered members.
    package static func object(_ members: [(String, GeneratedContent)]) -> GeneratedContent {
        var properties: [String: GeneratedContent] = [:]
        for (key, value) in members { properties[key] = value }
        return GeneratedContent(kind: .structure(properties: properties, orderedKeys: members.map(\.0)))
    }

    /// A string value.
    package static func text(_ value: String) -> GeneratedContent { GeneratedContent(kind: .string(value)) }

    /// A number value.
    package static func number(_ value: Double) -> GeneratedContent { GeneratedContent(kind: .number(value)) }

    /// An array of strings.
    package static func texts(_ values: [String]) -> GeneratedContent { GeneratedContent(kind: .array(values.map(text))) }
}

