/// How the importer treats each JSON Schema keyword.
enum JSONSchemaKeywords {
    /// Keywords that constrain values and are enforced (exactly, or under a documented generation rule).
    static let enforced: Set<String> = [
        "type", "enum", "const",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "pattern", "format",
        "items", "prefixItems", "additionalItems", "unevaluatedItems", "minItems", "maxItems", "uniqueItems",
        "contains", "minContains",
        "properties", "required", "additionalProperties", "patternProperties", "unevaluatedProperties",
        "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
        "anyOf", "oneOf", "allOf", "$ref", "$defs", "definitions",
    ]

    /// Keywords this importer reads for names, order and descriptions.
    static let read: Set<String> = [
        "title", "description", "propertyOrdering", "x-representNilExplicitly",
        // The dialect decides how `$ref`'s siblings are read, and references resolve through anchors and ids.
        "$schema", "$id", "$anchor",
    ]

    /// Keywords that constrain values in ways a grammar cannot enforce: a schema using one is refused.
    static let refused: Set<String> = [
        "not", "if", "then", "else", "$dynamicRef", "$recursiveRef", "maxContains", "disallow", "extends",
        "divisibleBy",
    ]

    /// Keywords that belong to the object and array vocabularies, used to infer the type of an untyped schema.
    static let objectKeywords: Set<String> = [
        "properties", "required", "additionalProperties", "patternProperties", "unevaluatedProperties",
        "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
    ]
    static let arrayKeywords: Set<String> = [
        "items", "prefixItems", "additionalItems", "unevaluatedItems", "minItems", "maxItems", "uniqueItems",
        "contains", "minContains",
    ]
    static let stringKeywords: Set<String> = ["minLength", "maxLength", "pattern", "format"]
    static let numberKeywords: Set<String> = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]

    /// Every JSON type name.
    static let allTypes: Set<String> = ["null", "boolean", "object", "array", "number", "integer", "string"]

    /// Annotations of the JSON Schema and OpenAPI vocabularies: ignored as they should be, never taken for a typo.
    static let annotations: Set<String> = [
        "$schema", "$id", "$anchor", "$comment", "$vocabulary", "default", "examples", "example", "readOnly",
        "writeOnly", "deprecated", "contentMediaType", "contentEncoding", "contentSchema", "nullable", "strict",
        // Older drafts' and neighbouring vocabularies' words that happen to lie near a keyword.
        "requires", "href", "container",
    ]

    /// The value-constraining keyword that `keyword` (not one itself) most likely misspells: the same letters in
    /// another case, or one edit away (two for keywords of six letters or more), a swap of neighbours counting as one.
    static func misspelled(_ keyword: String) -> String? {
        guard !enforced.contains(keyword), !read.contains(keyword), !annotations.contains(keyword),
              !keyword.hasPrefix("x-") else { return nil }
        return nearest(to: keyword, among: enforced)
    }

    /// The enforced format that `format` (not one itself) most likely misspells: the same letters in another case
    /// (`Date`, `UUID`), or, for formats of six letters or more, one or two edits away (`date-tme`). Short formats
    /// have real neighbours one edit away (Pydantic's `uuid4`, `guid`, `ulid`, `url`), which stay annotations.
    static func misspelledFormat(_ format: String) -> String? {
        guard JSONSchemaFormat.pattern(for: format) == nil else { return nil }
        let known = JSONSchemaFormat.patterns.keys
        if let other = known.first(where: { $0.lowercased() == format.lowercased() }) { return other }
        return nearest(to: format, among: known.filter { $0.count >= 6 })
    }

    /// The candidate that `word` most likely misspells: the same letters in another case, or one edit away (two
    /// for candidates of six letters or more); the first in sorted order among equally near ones.
    private static func nearest(to word: String, among candidates: some Sequence<String>) -> String? {
        let written = Array(word.lowercased())
        var best: (candidate: String, distance: Int)?
        for candidate in candidates.sorted() {
            let allowed = candidate.count >= 6 ? 2 : 1
            // The distance is at least the difference in length: a long unknown word costs no table.
            guard abs(written.count - candidate.count) <= allowed else { continue }
            let distance = editDistance(written, Array(candidate.lowercased()))
            if distance <= allowed, distance < best?.distance ?? .max { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of neighbours.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
