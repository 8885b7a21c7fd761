// `anyOf` and `oneOf`.
//
// The keywords beside `anyOf`/`oneOf` apply to every alternative, so each alternative is merged with them first.
// `oneOf` becomes a union only when no value generated for one alternative can satisfy another (checked against
// the other alternative's schema, not its generated subset): their types differ, one requires a property the
// other never generates, a shared property's fixed values differ, and so on. Otherwise it is refused.

extension JSONSchemaImporter {
    mutating func alternatives(
        _ object: JSONSchemaObject, title: String?, description: String?, path: String
    ) throws -> GenerationSchema.Node {
        if object["anyOf"] != nil, object["oneOf"] != nil {
            throw JSONSchemaImportError(path: path, keyword: "oneOf", message: "\"oneOf\" beside \"anyOf\" is not supported")
        }
        let keyword = object["oneOf"] != nil ? "oneOf" : "anyOf"
        guard case .array(let choices)? = object[keyword] else {
            throw JSONSchemaImportError(path: "\(path)/\(keyword)", keyword: keyword, message: "\"\(keyword)\" must be an array")
        }
        let siblings = object.removing([keyword, "title", "description"])
        let constrained = siblings.keys.contains(where: Self.constrains)
        var schemas: [(schema: JSONSchemaValue, path: String)] = []
        for (index, choice) in choices.enumerated() {
            let choicePath = "\(path)/\(keyword)/\(index)"
            // The keywords around the alternatives are the outer schema: their `unevaluatedItems` sees its items.
            let schema = constrained
                ? try merger.merge([.object(siblings), choice], path: choicePath, firstIsOutermost: true) : choice
            schemas.append((schema, choicePath))
        }
        var nodes: [(node: GenerationSchema.Node, index: Int)] = []
        let emptyBefore = emptyParts.count
        for (index, (schema, choicePath)) in schemas.enumerated() {
            // An alternative no value satisfies cannot be chosen.
            if schema == .bool(false) { continue }
            do {
                nodes.append((try node(schema, path: choicePath), index))
            } catch let error as JSONSchemaImportError where error.allowsNoValue(at: choicePath) {
                // Whatever keyword empties it; one that only holds such a part deeper down (a required
                // property's) is still refused.
                emptyParts.append(error.description)
            }
        }
        guard !nodes.isEmpty else {
            emptyParts.removeSubrange(emptyBefore...)
            throw JSONSchemaImportError.unsatisfiable(path: path, keyword: keyword, message: "No \"\(keyword)\" alternative allows a value")
        }
        if keyword == "oneOf" {
            // Materializing may convert oneOfs inside definitions; this one's allowance starts after them, so one
            // large union does not use up another's.
            for entry in nodes { try materialize(entry.node, depth: 0) }
            exclusionBudget.remaining = Self.maximumExclusionSteps
            for (first, i) in nodes {
                // Against every other alternative, left-out ones too: some are judged empty by a reading stricter
                // than JSON Schema's (`contains` placed after positional items), and may still hold values.
                for (j, second) in schemas.enumerated() where i != j {
                    guard excludes(first, second.schema, depth: 0) else {
                        if exclusionBudget.remaining <= 0 {
                            throw JSONSchemaImportError(
                                path: "\(path)/oneOf", keyword: "oneOf",
                                message: "\"oneOf\" alternatives are too complex to prove that they exclude each other")
                        }
                        throw JSONSchemaImportError(
                            path: "\(path)/oneOf", keyword: "oneOf",
                            message: "\"oneOf\" alternatives \(i) and \(j) may both match a value, which \"oneOf\" forbids")
                    }
                }
            }
        }
        if nodes.count == 1 {
            return nodes[0].node
        }
        return .anyOf(.init(name: title ?? "AnyOf", description: description, choices: nodes.map(\.node)))
    }

    /// Converts the definitions `node` refers to, where ``excludes(_:_:depth:)`` looks (alternatives and required
    /// properties), so that it can see through references.
    private mutating func materialize(_ node: GenerationSchema.Node, depth: Int) throws {
        guard depth < 4 else { return }
        switch node {
        case .reference(let name):
            try convertDefinition(name)
            if let definition = definitions[name] { try materialize(definition, depth: depth + 1) }
        case .anyOf(let union):
            for choice in union.choices { try materialize(choice, depth: depth + 1) }
        case .object(let object):
            for property in object.properties where !property.isOptional {
                try materialize(property.node, depth: depth + 1)
            }
        default:
            break
        }
    }

    /// Whether no value generated for `node` satisfies `schema` (false when that cannot be shown).
    func excludes(_ node: GenerationSchema.Node, _ schema: JSONSchemaValue, depth: Int) -> Bool {
        // `$ref`, `allOf` and `anyOf` branch at every level: a budget per `oneOf` (and one per import) bounds the work.
        guard depth < 16, exclusionBudget.spend() else { return false }
        guard case .object(let object) = schema else { return schema == .bool(false) }
        let validator = self.validator
        // Fixed values: ask the validator about each.
        if let values = Self.fixedValues(of: node, definitions: definitions, budget: exclusionBudget) {
            return values.allSatisfy { validator.validates($0, schema) == false }
        }
        switch node {
        case .reference(let name):
            guard let target = definitions[name] else { return false }
            return excludes(target, schema, depth: depth + 1)
        case .anyOf(let union):
            return union.choices.allSatisfy { excludes($0, schema, depth: depth + 1) }
        default:
            break
        }
        // Parts of the schema that must all hold: excluded by any of them.
        if case .string(let reference)? = object["$ref"] {
            if let target = resolve(reference), excludes(node, target, depth: depth + 1) { return true }
            // Drafts 4 to 7 ignore the keywords beside `$ref` (the importer generates the target alone).
            if isLegacyDraft { return false }
        }
        if case .array(let parts)? = object["allOf"], parts.contains(where: { excludes(node, $0, depth: depth + 1) }) {
            return true
        }
        for keyword in ["anyOf", "oneOf"] {
            if case .array(let parts)? = object[keyword], parts.allSatisfy({ excludes(node, $0, depth: depth + 1) }) {
                return true
            }
        }
        let nodeTypes = Self.types(of: node)
        if let type = object["type"] {
            let allowed = JSONSchemaMerger.typeSet(type).union(JSONSchemaMerger.typeSet(type).contains("number") ? ["integer"] : [])
            if nodeTypes.isDisjoint(with: allowed) { return true }
        }
        var fixed: [JSONSchemaValue]?
        if let constant = object["const"] { fixed = [constant] }
        if case .array(let members)? = object["enum"] { fixed = members }
        if let fixed, fixed.allSatisfy({ $0.typeNames.isDisjoint(with: nodeTypes) }) { return true }
        switch node {
        case .object(let generated) where generated.properties.isEmpty && generated.additionalValues != nil:
            // A map generates any keys: neither `required` nor `minProperties` excludes it.
            break
        case .object(let generated):
            let names = Set(generated.properties.map(\.name))
            let requiredNames = Set(generated.properties.filter { !$0.isOptional }.map(\.name))
            if case .array(let required)? = object["required"],
                required.contains(where: { if case .string(let name) = $0 { !names.contains(name) } else { false } })
            {
                return true
            }
            if case .object(let properties)? = object["properties"] {
                for property in generated.properties where !property.isOptional {
                    if let schema = properties[property.name], excludes(property.node, schema, depth: depth + 1) { return true }
                }
            }
            if object["additionalProperties"] == .bool(false), object["patternProperties"] == nil {
                var declared: Set<String> = []
                if case .object(let properties)? = object["properties"] { declared = Set(properties.keys) }
                if !requiredNames.isSubset(of: declared) { return true }
            }
            if case .number(let maximum)? = object["maxProperties"], Double(requiredNames.count) > maximum { return true }
            if case .number(let minimum)? = object["minProperties"], Double(names.count) < minimum { return true }
        case .array(let array):
            if case .number(let minimum)? = object["minItems"], let maximum = array.maximumCount, Double(maximum) < minimum {
                return true
            }
            // A schema whose own counts cross (an alternative left out as empty) holds no array.
            if case .number(let minimum)? = object["minItems"], case .number(let maximum)? = object["maxItems"], minimum > maximum {
                return true
            }
            if case .number(let maximum)? = object["maxItems"], Double(array.minimumCount ?? 0) > maximum { return true }
        case .integer(let bounds), .number(let bounds):
            if case .number(let minimum)? = object["minimum"], let high = bounds.maximum, high < minimum { return true }
            if case .number(let maximum)? = object["maximum"], let low = bounds.minimum, low > maximum { return true }
            if case .number(let minimum)? = object["exclusiveMinimum"], let high = bounds.maximum, high <= minimum { return true }
            if case .number(let maximum)? = object["exclusiveMaximum"], let low = bounds.minimum, low >= maximum { return true }
            if case .number(let minimum)? = object["minimum"], case .number(let maximum)? = object["maximum"], minimum > maximum {
                return true
            }
        case .string(let guides):
            if case .number(let minimum)? = object["minLength"], let high = guides.maximumLength, Double(high) < minimum {
                return true
            }
            if case .number(let maximum)? = object["maxLength"], let low = guides.minimumLength, Double(low) > maximum {
                return true
            }
            if case .number(let minimum)? = object["minLength"], case .number(let maximum)? = object["maxLength"], minimum > maximum {
                return true
            }
        default:
            break
        }
        return false
    }

    /// Every value a node generates, when there are few (constants, choices, booleans, null): nil when `budget`
    /// runs out, each node visited and each value listed being a step of it, so unions of references nested in
    /// each other cannot multiply the work.
    static func fixedValues(
        of node: GenerationSchema.Node, definitions: [String: GenerationSchema.Node], budget: JSONSchemaMerger.Budget
    ) -> [JSONSchemaValue]? {
        var values: [JSONSchemaValue] = []
        func collect(_ node: GenerationSchema.Node, depth: Int) -> Bool {
            guard depth < 16, budget.spend() else { return false }
            var listed: [JSONSchemaValue] = []
            switch node {
            case .constant(let text):
                guard let content = try? GeneratedContent(json: text) else { return false }
                listed = [JSONSchemaValue(content)]
            case .string(let guides):
                guard let choices = guides.choices else { return false }
                listed = choices.map(JSONSchemaValue.string)
            case .enumeration(let enumeration):
                listed = enumeration.choices.map(JSONSchemaValue.string)
            case .boolean:
                listed = [.bool(true), .bool(false)]
            case .null:
                listed = [.null]
            case .anyOf(let union):
                return union.choices.allSatisfy { collect($0, depth: depth + 1) }
            case .reference(let name):
                guard let target = definitions[name] else { return false }
                return collect(target, depth: depth + 1)
            default:
                return false
            }
            guard budget.spend(listed.count) else { return false }
            values += listed
            return true
        }
        return collect(node, depth: 0) ? values : nil
    }

    /// The JSON types a node may generate.
    static func types(of node: GenerationSchema.Node) -> Set<String> {
        switch node {
        case .string, .enumeration: return ["string"]
        case .integer: return ["integer", "number"]
        case .number: return ["number", "integer"]
        case .boolean: return ["boolean"]
        case .null: return ["null"]
        case .array: return ["array"]
        case .object: return ["object"]
        case .constant(let text):
            return (try? GeneratedContent(json: text)).map { JSONSchemaValue($0).typeNames } ?? JSONSchemaKeywords.allTypes
        case .any, .anyOf, .reference: return JSONSchemaKeywords.allTypes
        }
    }
}
