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
    static let read: Set<String> = ["title", "description", "propertyOrdering", "x-representNilExplicitly"]

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
}
