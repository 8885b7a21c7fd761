import FMDecoding

/// Decides whether one concrete JSON value satisfies a JSON Schema (2020-12 semantics, with the draft-4 to 7
/// spellings of the same keywords).
///
/// The importer asks it whether an `enum` or `const` member survives the schema's other keywords, whether a
/// property name satisfies `propertyNames`, and whether a `oneOf` alternative's fixed values fail the others.
/// It answers `nil` when it cannot tell (a keyword it does not evaluate, a pattern the decoder cannot parse,
/// a reference it cannot resolve); callers then refuse rather than guess. `format` is an annotation here, as the
/// specification says.
struct JSONSchemaLiteralValidator {
    /// Resolves a `$ref` to its schema, or nil.
    let resolve: (String) -> JSONSchemaValue?
    /// Whether `$ref` overrides the keywords beside it (drafts 4 to 7), as the importer reads them.
    let refOverridesSiblings: Bool

    /// The most schemas one question may visit. An `anyOf` of references back to itself multiplies the work at
    /// each level, so the depth limit alone still allows exponentially many visits (minutes for three branches);
    /// past this budget the answer is "cannot tell".
    static let maximumEvaluations = 10_000

    /// Evaluations left for the current question (a class, so the recursive calls share it).
    private final class Budget {
        var remaining = 0
    }

    private let budget = Budget()

    init(resolve: @escaping (String) -> JSONSchemaValue?, refOverridesSiblings: Bool = false) {
        self.resolve = resolve
        self.refOverridesSiblings = refOverridesSiblings
    }

    func validates(_ value: JSONSchemaValue, _ schema: JSONSchemaValue, depth: Int = 0) -> Bool? {
        if depth == 0 { budget.remaining = Self.maximumEvaluations }
        guard depth < 32, budget.remaining > 0 else { return nil }
        budget.remaining -= 1
        switch schema {
        case .bool(let accepts): return accepts
        case .object(let object): return validates(value, object, depth: depth)
        default: return nil
        }
    }

    private func all(_ checks: [() -> Bool?]) -> Bool? {
        var unknown = false
        for check in checks {
            switch check() {
            case false?: return false
            case nil: unknown = true
            case true?: continue
            }
        }
        return unknown ? nil : true
    }

    private func validates(_ value: JSONSchemaValue, _ schema: JSONSchemaObject, depth: Int) -> Bool? {
        // Drafts 4 to 7: the keywords beside `$ref` are ignored, so they must not reject a value either.
        if refOverridesSiblings, case .string(let reference)? = schema["$ref"] {
            guard let target = resolve(reference) else { return nil }
            return validates(value, target, depth: depth + 1)
        }
        if schema.keys.contains(where: { ["unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef"].contains($0) }) {
            return nil
        }
        var checks: [() -> Bool?] = []
        if case .string(let reference)? = schema["$ref"] {
            checks.append {
                guard let target = resolve(reference) else { return nil }
                return validates(value, target, depth: depth + 1)
            }
        }
        if let type = schema["type"] {
            checks.append {
                let names: [String]
                switch type {
                case .string(let name): names = [name]
                case .array(let elements): names = elements.compactMap { if case .string(let name) = $0 { name } else { nil } }
                default: return nil
                }
                return !value.typeNames.isDisjoint(with: names)
            }
        }
        if let constant = schema["const"] { checks.append { value == constant } }
        if case .array(let members)? = schema["enum"] { checks.append { members.contains(value) } }
        for keyword in ["allOf", "anyOf", "oneOf"] {
            guard case .array(let parts)? = schema[keyword] else { continue }
            checks.append {
                let results = parts.map { validates(value, $0, depth: depth + 1) }
                switch keyword {
                case "allOf": return all(results.map { result in { result } })
                case "anyOf":
                    if results.contains(true) { return true }
                    return results.contains(where: { $0 == nil }) ? nil : false
                default:
                    if results.contains(where: { $0 == nil }) { return nil }
                    return results.filter { $0 == true }.count == 1
                }
            }
        }
        if let negated = schema["not"] { checks.append { validates(value, negated, depth: depth + 1).map(!) } }
        if let condition = schema["if"] {
            checks.append {
                guard let holds = validates(value, condition, depth: depth + 1) else { return nil }
                guard let branch = schema[holds ? "then" : "else"] else { return true }
                return validates(value, branch, depth: depth + 1)
            }
        }
        switch value {
        case .number(let number): checks += numberChecks(number, schema)
        case .string(let text): checks += stringChecks(text, schema)
        case .array(let elements): checks += arrayChecks(elements, schema, depth: depth)
        case .object(let object): checks += objectChecks(object, schema, depth: depth)
        default: break
        }
        return all(checks)
    }

    private func numberChecks(_ number: Double, _ schema: JSONSchemaObject) -> [() -> Bool?] {
        var checks: [() -> Bool?] = []
        let exclusiveFlag = { (key: String) -> Bool in if case .bool(true)? = schema[key] { true } else { false } }
        if case .number(let minimum)? = schema["minimum"] {
            checks.append { exclusiveFlag("exclusiveMinimum") ? number > minimum : number >= minimum }
        }
        if case .number(let maximum)? = schema["maximum"] {
            checks.append { exclusiveFlag("exclusiveMaximum") ? number < maximum : number <= maximum }
        }
        if case .number(let bound)? = schema["exclusiveMinimum"] { checks.append { number > bound } }
        if case .number(let bound)? = schema["exclusiveMaximum"] { checks.append { number < bound } }
        if case .number(let divisor)? = schema["multipleOf"] {
            checks.append { JSONSchemaMultiple.isMultiple(number, of: divisor) }
        }
        return checks
    }

    private func stringChecks(_ text: String, _ schema: JSONSchemaObject) -> [() -> Bool?] {
        var checks: [() -> Bool?] = []
        let length = text.unicodeScalars.count
        if case .number(let minimum)? = schema["minLength"] { checks.append { Double(length) >= minimum } }
        if case .number(let maximum)? = schema["maxLength"] { checks.append { Double(length) <= maximum } }
        var patterns: [JSONSchemaValue] = []
        if case .array(let list)? = schema["pattern"] { patterns = list } else if let single = schema["pattern"] { patterns = [single] }
        for pattern in patterns {
            checks.append {
                guard case .string(let source) = pattern, let matcher = try? PatternMatcher(searching: source) else {
                    return nil
                }
                return matcher.matches(text)
            }
        }
        return checks
    }

    private func arrayChecks(_ elements: [JSONSchemaValue], _ schema: JSONSchemaObject, depth: Int) -> [() -> Bool?] {
        var checks: [() -> Bool?] = []
        if case .number(let minimum)? = schema["minItems"] { checks.append { Double(elements.count) >= minimum } }
        if case .number(let maximum)? = schema["maxItems"] { checks.append { Double(elements.count) <= maximum } }
        if case .bool(true)? = schema["uniqueItems"] {
            checks.append {
                for index in elements.indices where elements[..<index].contains(elements[index]) { return false }
                return true
            }
        }
        var prefix: [JSONSchemaValue] = []
        var rest: JSONSchemaValue?
        if case .array(let list)? = schema["prefixItems"] {
            prefix = list
            rest = schema["items"]
        } else if case .array(let list)? = schema["items"] {
            prefix = list
            rest = schema["additionalItems"]
        } else {
            rest = schema["items"]
        }
        for (index, element) in elements.enumerated() {
            guard let itemSchema = index < prefix.count ? prefix[index] : rest else { continue }
            checks.append { validates(element, itemSchema, depth: depth + 1) }
        }
        if let contains = schema["contains"] {
            checks.append {
                var matches = 0
                for element in elements {
                    guard let result = validates(element, contains, depth: depth + 1) else { return nil }
                    if result { matches += 1 }
                }
                var minimum = 1.0
                if case .number(let value)? = schema["minContains"] { minimum = value }
                if case .number(let value)? = schema["maxContains"], Double(matches) > value { return false }
                return Double(matches) >= minimum
            }
        }
        return checks
    }

    private func objectChecks(_ object: JSONSchemaObject, _ schema: JSONSchemaObject, depth: Int) -> [() -> Bool?] {
        var checks: [() -> Bool?] = []
        let count = Double(object.keys.count)
        if case .number(let minimum)? = schema["minProperties"] { checks.append { count >= minimum } }
        if case .number(let maximum)? = schema["maxProperties"] { checks.append { count <= maximum } }
        if case .array(let required)? = schema["required"] {
            checks.append {
                required.allSatisfy { if case .string(let name) = $0 { object.values[name] != nil } else { false } }
            }
        }
        var declared: [String: JSONSchemaValue] = [:]
        if case .object(let properties)? = schema["properties"] { declared = properties.values }
        var patterns: [(PatternMatcher?, JSONSchemaValue)] = []
        if case .object(let patternProperties)? = schema["patternProperties"] {
            patterns = patternProperties.keys.map { ((try? PatternMatcher(searching: $0)), patternProperties.values[$0]!) }
        }
        for key in object.keys {
            let value = object.values[key]!
            var matched = false
            if let propertySchema = declared[key] {
                matched = true
                checks.append { validates(value, propertySchema, depth: depth + 1) }
            }
            for (matcher, patternSchema) in patterns {
                guard let matcher else {
                    checks.append { nil }
                    continue
                }
                if matcher.matches(key) {
                    matched = true
                    checks.append { validates(value, patternSchema, depth: depth + 1) }
                }
            }
            if !matched, let additional = schema["additionalProperties"] {
                checks.append { validates(value, additional, depth: depth + 1) }
            }
            if let names = schema["propertyNames"] {
                checks.append { validates(.string(key), names, depth: depth + 1) }
            }
        }
        var dependencies: [(String, JSONSchemaValue)] = []
        for keyword in ["dependentRequired", "dependentSchemas", "dependencies"] {
            if case .object(let map)? = schema[keyword] { dependencies += map.keys.map { ($0, map.values[$0]!) } }
        }
        for (trigger, dependency) in dependencies where object.values[trigger] != nil {
            checks.append {
                if case .array(let names) = dependency {
                    return names.allSatisfy { if case .string(let name) = $0 { object.values[name] != nil } else { false } }
                }
                return validates(.object(object), dependency, depth: depth + 1)
            }
        }
        return checks
    }
}
