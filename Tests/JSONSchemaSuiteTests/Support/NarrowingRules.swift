/// The documented generation rules (docs/json-schema.md) under which a valid instance may lie outside what the
/// generator produces. A valid instance the grammar rejects counts as "narrowed" only when one of these explains
/// it; otherwise it is a mismatch.
enum NarrowingRule: String, CaseIterable {
    /// Numbers have at most 15 integer and 8 fraction digits.
    case numberDigits = "number digits"
    /// Only declared properties are generated.
    case undeclaredProperties = "undeclared properties"
    /// An untyped schema generates the types its keywords constrain; an unconstrained value's objects are empty.
    case untypedSchema = "untyped schema"
    /// Formats are generated as a subset of their syntax.
    case formatSubset = "format subset"
    /// Arrays without `items` hold at most 8 elements.
    case untypedArray = "array without items"
    /// Property-count and dependency keywords choose which optional properties appear.
    case propertySelection = "property selection"
    /// `contains` constrains the first elements.
    case containsPrefix = "contains on first elements"
    /// Integer `multipleOf` lists the multiples nearest zero; fractional multiples are generated as integers.
    case multiples = "multipleOf listing"
    /// Strings are at most 256 scalars where `maxLength` is larger.
    case longStrings = "maxLength above 256"

    /// The rules that could explain why `instance` is not generated under `schema`.
    static func applicable(schema: SuiteJSON, instance: SuiteJSON) -> [NarrowingRule] {
        var rules: [NarrowingRule] = []
        let schemaFacts = SchemaFacts(schema)
        let instanceFacts = InstanceFacts(instance)
        if instanceFacts.numberTexts.contains(where: { text in
            let canonical = SuiteJSON.canonicalNumber(text)
            let parts = canonical.drop { $0 == "-" }.split(separator: ".", omittingEmptySubsequences: false)
            return parts[0].count > 15 || (parts.count > 1 && parts[1].count > 8)
        }) {
            rules.append(.numberDigits)
        }
        if !instanceFacts.keys.isSubset(of: schemaFacts.declaredNames) || instanceFacts.hasObjectUnderAny(schema) {
            rules.append(.undeclaredProperties)
        }
        if schemaFacts.hasUntypedSubschema { rules.append(.untypedSchema) }
        if schemaFacts.usesFormat { rules.append(.formatSubset) }
        if instanceFacts.longestArray > 8, schemaFacts.hasArrayWithoutItems { rules.append(.untypedArray) }
        if !schemaFacts.keywords.isDisjoint(with: ["minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
                                                  "dependencies", "propertyNames"]) {
            rules.append(.propertySelection)
        }
        if schemaFacts.keywords.contains("contains") { rules.append(.containsPrefix) }
        if schemaFacts.keywords.contains("multipleOf") { rules.append(.multiples) }
        if instanceFacts.longestString > 256 { rules.append(.longStrings) }
        return rules
    }
}

/// What a schema document uses.
private struct SchemaFacts {
    var keywords: Set<String> = []
    var declaredNames: Set<String> = []
    var hasUntypedSubschema = false
    var usesFormat = false
    var hasArrayWithoutItems = false

    static let typeSpecific: Set<String> = [
        "properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties",
        "propertyNames", "dependentRequired", "dependentSchemas", "items", "prefixItems", "minItems", "maxItems",
        "uniqueItems", "contains", "minLength", "maxLength", "pattern", "format", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    ]

    init(_ schema: SuiteJSON) {
        visit(schema)
    }

    private mutating func visit(_ value: SuiteJSON) {
        switch value {
        case .object(let members):
            let keys = Set(members.map(\.key))
            keywords.formUnion(keys)
            if case .object(let properties)? = value["properties"] { declaredNames.formUnion(properties.map(\.key)) }
            if case .array(let required)? = value["required"] {
                for case .string(let name) in required { declaredNames.insert(name) }
            }
            if !keys.contains("type"), !keys.contains("enum"), !keys.contains("const"), !keys.isDisjoint(with: Self.typeSpecific) {
                hasUntypedSubschema = true
            }
            if keys.contains("format") { usesFormat = true }
            let arrayish = value["type"] == .string("array") || !keys.isDisjoint(with: ["minItems", "maxItems", "uniqueItems", "contains"])
            if arrayish, !keys.contains("items"), !keys.contains("prefixItems") { hasArrayWithoutItems = true }
            for member in members { visit(member.value) }
        case .array(let elements):
            for element in elements { visit(element) }
        default:
            break
        }
    }
}

/// What an instance contains.
private struct InstanceFacts {
    var keys: Set<String> = []
    var numberTexts: [String] = []
    var longestArray = 0
    var longestString = 0
    private var hasObjects = false

    init(_ instance: SuiteJSON) {
        visit(instance)
    }

    private mutating func visit(_ value: SuiteJSON) {
        switch value {
        case .object(let members):
            hasObjects = hasObjects || !members.isEmpty
            keys.formUnion(members.map(\.key))
            for member in members { visit(member.value) }
        case .array(let elements):
            longestArray = max(longestArray, elements.count)
            for element in elements { visit(element) }
        case .number(let text):
            numberTexts.append(text)
        case .string(let text):
            longestString = max(longestString, text.unicodeScalars.count)
        default:
            break
        }
    }

    /// Whether a non-empty object may sit where the schema allows any value (generated as `{}`).
    func hasObjectUnderAny(_ schema: SuiteJSON) -> Bool {
        guard hasObjects else { return false }
        if case .bool(true) = schema { return true }
        if case .object(let members) = schema, members.allSatisfy({ ["$schema", "$id", "title", "description"].contains($0.key) }) {
            return true
        }
        return false
    }
}
