import HTTPTypes
import FMTagging
import Foundation
import FoundationModels

/// A `POST /v1/tag` request: the texts, and the schema each result follows.
///
/// Two body forms:
/// - JSONL, one text per line (plain text or `{"id", "text", …}`, as `fm tag` reads), with the schema chosen by
///   the query (`?preset=support-ticket`, `&instructions=…`);
/// - one JSON object: `{"texts": [text or {"id", "text", …}], "preset" | "schema", "instructions"}`.
struct TagRequest: Sendable {
    /// The records, in input order; unreadable lines become error lines in the output.
    var records: [TaggingRecord]
    /// The schema of each result.
    var schema: GenerationSchema
    /// Instructions for the tagging session.
    var instructions: String?

    /// Parses `body` with the query's parameters. A JSONL line that is not UTF-8 becomes an `invalid-utf8` error
    /// line, as in `fm tag`, rather than a text with its bytes replaced.
    ///
    /// - Throws: ``APIError`` (400) for an unknown preset, member or query parameter, a schema that cannot be enforced,
    ///   or no texts.
    init(body: [UInt8], query: [String: String]) throws(APIError) {
        if let text = String(validating: body, as: UTF8.self), Self.isJSONForm(text) {
            let object = try JSONField.body(text)
            guard let texts = object["texts"] else {
                throw APIError.invalid("texts", "A JSON body gives its texts in 'texts'; for JSONL, send one record per line.")
            }
            // The JSON form carries its own settings: a query's, or a misspelt member, would be silently ignored.
            if let parameter = ["preset", "instructions"].first(where: { query[$0] != nil }) {
                throw APIError.invalid(parameter, "With a JSON body, give '\(parameter)' in the body, not in the query.")
            }
            if case .structure(_, let keys) = object.value.kind,
               let unknown = keys.first(where: { !["texts", "preset", "schema", "instructions"].contains($0) }) {
                throw APIError.invalid(unknown, "Unknown member '\(unknown)'; the JSON body takes texts, preset, schema and instructions.")
            }
            // Each record as the body wrote it (on one line), as a JSONL line is read: written again from parsed
            // values, a long number (a 64-bit post id) would come back rounded.
            let elements = try texts.array()
            let written = JSONLiteral.members(in: text)?.last { $0.key == "texts" }
                .flatMap { JSONLiteral.elements(in: String($0.value)) }
                .flatMap { $0.count == elements.count ? $0 : nil }
            records = try elements.enumerated().map { index, text throws(APIError) in
                let line: String
                switch text.value.kind {
                // As a record of its own text: the bare string would be read as a plain-text line, quotes and escapes
                // and all.
                case .string(let value): line = #"{"text":"# + GeneratedContent.text(value).compactJSONString + "}"
                case .structure: line = written.map { JSONLiteral.compacted($0[index]) } ?? text.value.compactJSONString
                default: throw text.mismatch("a string or an object with 'text'")
                }
                return TaggingRecord.parse(line: Array(line.utf8), lineNumber: index + 1)
            }
            schema = try Self.schema(preset: object["preset"]?.string(), document: object["schema"], parameter: "preset")
            instructions = try object["instructions"]?.string()
        } else {
            // A misspelt parameter (`presett=`) would tag with the default schema instead of the one asked for.
            if let unknown = query.keys.sorted().first(where: { !["preset", "instructions"].contains($0) }) {
                throw APIError.invalid(unknown, "Unknown query parameter '\(unknown)'; a JSONL body takes preset and instructions.")
            }
            records = TaggingRecord.parse(input: body)
            schema = try Self.schema(preset: query["preset"], document: nil, parameter: "preset")
            instructions = query["instructions"]
        }
        guard !records.isEmpty else { throw APIError.invalid("texts", "The request has no texts to tag.") }
    }

    /// Whether `text` is meant as the JSON form: one object with `texts` or the form's settings, or a body whose
    /// first line opens an object it does not close, either alone or with one of the form's members (a
    /// pretty-printed object). Such a body that does not parse is a 400, not JSONL whose every line would be tagged
    /// as a text of its own; a broken first JSONL record (`{"text": …`) stays an error line of its own.
    static func isJSONForm(_ text: String) -> Bool {
        if let object = try? JSONField.body(text) {
            guard case .structure(_, let keys) = object.value.kind else { return false }
            // A one-line record has a `text` string; the JSON form's settings without one are a mistaken JSON body.
            var hasText = false
            if case .string? = object["text"]?.value.kind { hasText = true }
            return keys.contains("texts") || (!hasText && keys.contains { ["preset", "schema", "instructions"].contains($0) })
        }
        guard let first = text.split(whereSeparator: \.isNewline).first(where: { !$0.allSatisfy(\.isWhitespace) }) else {
            return false
        }
        let line = first.trimmingCharacters(in: .whitespaces)
        guard line.hasPrefix("{") else { return false }
        // A complete record on the first line is JSONL (a later line may be broken; it becomes an error line).
        if (try? JSONField.body(line)) != nil { return false }
        let opening = line.dropFirst().drop(while: \.isWhitespace)
        return opening.isEmpty || ["texts", "preset", "schema", "instructions"].contains { opening.hasPrefix("\"\($0)\"") }
    }

    private static func schema(preset: String?, document: JSONField?, parameter: String) throws(APIError) -> GenerationSchema {
        if preset != nil, document != nil { throw APIError.invalid("schema", "Give a preset or a schema, not both.") }
        if let document { return try document.importedSchema() }
        guard let preset else { return TaggingPreset.contentTagging.schema }
        guard let value = TaggingPreset(rawValue: preset) else {
            throw APIError.invalid(parameter, "Unknown preset '\(preset)'; choose one of \(TaggingPreset.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return value.schema
    }
}
