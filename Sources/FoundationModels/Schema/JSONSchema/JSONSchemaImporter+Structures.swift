import Foundation

// Objects and arrays.
//
// Generation rules (each yields a subset of the valid values):
// - An object with no object keyword but `additionalProperties` (absent, `true` or a schema) is a map: any keys,
//   each value following `additionalProperties`.
// - Otherwise only declared properties are generated: `properties`, plus `required` names declared nowhere else
//   (their schema then comes from `patternProperties` or `additionalProperties`). Every declared property's
//   schema merges its `patternProperties` matches. `additionalProperties` never adds keys.
// - `minProperties` makes optional properties required, in order; `maxProperties` keeps only as many optional
//   properties as it leaves room for. `dependentRequired` makes the dependents of a present property required;
//   a property with `dependentSchemas` is left out unless required. `propertyNames` leaves out optional
//   properties whose names it rejects.
// - An array without `items` (and without positional items) holds at most `untypedArrayLimit` values.
// - `contains` (without `maxContains`) makes the first `minContains` elements satisfy it (a `minContains` above
//   `maximumContainsCount` is refused).

extension JSONSchemaImporter {
    /// The property names an `x-order` list gives, `nil` when the object has none or its `x-order` is something
    /// else (a number, as some writers put on each property).
    static func names(inXOrder object: JSONSchemaObject) -> [String]? {
        guard case .array(let elements)? = object["x-order"] else { return nil }
        var names: [String] = []
        for element in elements {
            guard case .string(let name) = element else { return nil }
            names.append(name)
        }
        return names
    }

    mutating func objectNode(
        _ object: JSONSchemaObject, title: String?, description: String?, path: String
    ) throws -> GenerationSchema.ObjectNode {
        // An object that declares nothing but the schema of its values is a map: any keys are generated. With
        // nothing else declared, `unevaluatedProperties` is that schema as `additionalProperties` is.
        let rest = object["additionalProperties"] != nil ? "additionalProperties" : "unevaluatedProperties"
        if JSONSchemaKeywords.objectKeywords.subtracting(["additionalProperties", "unevaluatedProperties"]).isDisjoint(with: object.keys),
           object[rest] != .bool(false) {
            let values = try object[rest].map { try node($0, path: "\(path)/\(rest)") } ?? .any
            return .init(name: title ?? "Object", description: description, properties: [], additionalValues: values)
        }
        if case .object(let patterns)? = object["patternProperties"], !patterns.keys.isEmpty, !ungeneratedPatternKeys.contains(path) {
            ungeneratedPatternKeys.append(path)
        }
        var declared: JSONSchemaObject = [:]
        if let properties = object["properties"] {
            guard case .object(let value) = properties else {
                throw JSONSchemaImportError(path: "\(path)/properties", keyword: "properties", message: "\"properties\" must be an object")
            }
            declared = value
        }
        if case .bool? = object["required"] {
            throw JSONSchemaImportError(
                path: "\(path)/required", keyword: "required", message: "Draft-3 \"required\": true is not supported")
        }
        let requiredList = try strings("required", in: object, path: path) ?? []
        var required = Set(requiredList)
        // `x-order` is the spelling other writers of Apple's schemas use for the same list. Other tools put an
        // integer `x-order` on each property instead, which says nothing here: only a list of names is read.
        let ordering = try strings("propertyOrdering", in: object, path: path) ?? Self.names(inXOrder: object) ?? []
        var order = ordering.filter { declared[$0] != nil } + declared.keys.filter { !ordering.contains($0) }
        order += requiredList.filter { !order.contains($0) }
        var seen: Set<String> = []
        order = order.filter { seen.insert($0).inserted }
        var explicitNil = false
        if case .bool(true)? = object["x-representNilExplicitly"] { explicitNil = true }

        // Dependencies: make dependents required, or leave the trigger out.
        var dependentRequired: [(String, [String])] = []
        var dependentSchemas: [String] = []
        for keyword in ["dependentRequired", "dependentSchemas", "dependencies"] {
            guard let value = object[keyword] else { continue }
            guard case .object(let map) = value else {
                throw JSONSchemaImportError(path: "\(path)/\(keyword)", keyword: keyword, message: "\"\(keyword)\" must be an object")
            }
            for trigger in map.keys {
                if case .array = map[trigger]! {
                    dependentRequired.append((trigger, try strings(trigger, in: map, path: "\(path)/\(keyword)") ?? []))
                } else if keyword != "dependentRequired" {
                    dependentSchemas.append(trigger)
                }
            }
        }
        // Dependents can be triggers in turn (and a required one may only become required through another's
        // dependents), so requiring goes on until no name is added.
        var dependentsOf: [String: [String]] = [:]
        for (trigger, dependents) in dependentRequired { dependentsOf[trigger, default: []] += dependents }
        var ordered = Set(order)
        var newlyRequired: [String] = []
        func require(_ names: [String]) {
            for name in names {
                guard required.insert(name).inserted else { continue }
                if ordered.insert(name).inserted { order.append(name) }
                newlyRequired.append(name)
            }
        }
        // An optional trigger with a dependent schema is left out below, so it requires nothing.
        let leftOut = Set(dependentSchemas).subtracting(required)
        for (trigger, dependents) in dependentRequired where ordered.contains(trigger) && !leftOut.contains(trigger) {
            // An optional trigger whose dependents are all declared may be generated: its dependents are required.
            if required.contains(trigger) || dependents.allSatisfy({ declared[$0] != nil }) { require(dependents) }
        }
        var next = 0
        while next < newlyRequired.count {
            let name = newlyRequired[next]
            next += 1
            require(dependentsOf[name] ?? [])
        }
        var dropped: Set<String> = []
        // With `required` final: an optional trigger whose dependents are not all required is left out.
        for (trigger, dependents) in dependentRequired
        where ordered.contains(trigger) && !required.contains(trigger) && !dependents.allSatisfy(required.contains) {
            dropped.insert(trigger)
        }
        for trigger in dependentSchemas where ordered.contains(trigger) {
            guard !required.contains(trigger) else {
                throw JSONSchemaImportError(
                    path: path, keyword: "dependentSchemas",
                    message: "The required property \"\(trigger)\" has a dependent schema, which cannot be enforced")
            }
            dropped.insert(trigger)
        }
        // Property names.
        if let names = object["propertyNames"] {
            for name in order {
                guard let valid = validator.validates(.string(name), names) else {
                    throw JSONSchemaImportError(
                        path: "\(path)/propertyNames", keyword: "propertyNames",
                        message: "\"propertyNames\" cannot be checked")
                }
                if valid { continue }
                if required.contains(name) {
                    throw JSONSchemaImportError.unsatisfiable(
                        path: path, keyword: "propertyNames",
                        message: "The required property \"\(name)\" is not allowed by \"propertyNames\"")
                }
                dropped.insert(name)
            }
        }
        // Each property's schemas: its declaration, matching patterns, else `additionalProperties`.
        var schemas: [String: JSONSchemaValue] = [:]
        for name in order where !dropped.contains(name) {
            let parts = try JSONSchemaMerger.schemas(for: name, in: object, path: path)
            let schema = parts.count == 1 ? parts[0] : try merger.merge(parts, path: "\(path)/properties/\(name)")
            if schema == .bool(false) {
                if required.contains(name) {
                    throw JSONSchemaImportError.unsatisfiable(
                        path: path, keyword: declared[name] == nil ? "additionalProperties" : "properties",
                        message: "The required property \"\(name)\" is not allowed")
                }
                dropped.insert(name)
                continue
            }
            schemas[name] = schema
        }
        // Leaving out a required property would generate invalid values (the checks above should prevent it).
        if let name = order.first(where: { dropped.contains($0) && required.contains($0) }) {
            throw JSONSchemaImportError(
                path: path, keyword: "dependentRequired",
                message: "The property \"\(name)\" is both required and left out by the schema's dependencies")
        }
        order.removeAll { dropped.contains($0) }
        // Property counts.
        let requiredCount = order.filter(required.contains).count
        if let maximum = try count("maxProperties", in: object, path: path) {
            guard requiredCount <= maximum else {
                throw JSONSchemaImportError.unsatisfiable(
                    path: path, keyword: "maxProperties",
                    message: "\(requiredCount) required properties exceed \"maxProperties\" \(maximum)")
            }
            var room = maximum - requiredCount
            order = order.filter { name in
                if required.contains(name) { return true }
                room -= 1
                return room >= 0
            }
        }
        if let minimum = try count("minProperties", in: object, path: path) {
            var missing = minimum - requiredCount
            for name in order where missing > 0 && !required.contains(name) {
                required.insert(name)
                missing -= 1
            }
            if missing > 0 {
                throw JSONSchemaImportError(
                    path: path, keyword: "minProperties",
                    message: "\"minProperties\" \(minimum) needs properties the schema does not declare")
            }
        }
        var properties: [GenerationSchema.PropertyNode] = []
        for name in order {
            var schema = schemas[name] ?? .bool(true)
            // A property's description belongs to the property, unless it describes a named type.
            var propertyDescription: String?
            if case .object(var members) = schema, members["title"] == nil, case .string(let text)? = members["description"] {
                propertyDescription = text
                members["description"] = nil
                schema = .object(members)
            }
            let propertyPath = "\(path)/properties/\(Self.escaped(name))"
            let propertyNode: GenerationSchema.Node
            do {
                propertyNode = try node(schema, path: propertyPath)
            } catch let error as JSONSchemaImportError where error.allowsNoValue(at: propertyPath) {
                // No value for the property: an optional one is left out, as a `false` one is, and a required
                // one leaves the object without a value (so a union it is a member of can leave it out).
                guard !required.contains(name) else {
                    throw JSONSchemaImportError.unsatisfiable(
                        path: path, keyword: error.keyword,
                        message: "The required property \"\(name)\" allows no value (\(error.description.dropLast()))")
                }
                emptyParts.append(error.description)
                continue
            }
            properties.append(.init(
                name: name, description: propertyDescription, node: propertyNode, isOptional: !required.contains(name)))
        }
        return .init(name: title ?? "Object", description: description, properties: properties,
                     representsNilExplicitly: explicitNil)
    }

    /// The largest `minContains` enforced: each needed element gets its own merged schema and node.
    static let maximumContainsCount = 1_000

    mutating func arrayNode(_ object: JSONSchemaObject, path: String) throws -> GenerationSchema.ArrayNode {
        var (prefix, rest) = JSONSchemaMerger.arrayShape(object)
        if rest == nil, let unevaluated = object["unevaluatedItems"] { rest = unevaluated }
        var minimum = try count("minItems", in: object, path: path) ?? 0
        let declaredMinimum = minimum
        var maximum = try count("maxItems", in: object, path: path)
        let unique = object["uniqueItems"] == .bool(true)
        let needed = try object["contains"] == nil ? 0 : count("minContains", in: object, path: path) ?? 1
        if rest == nil, prefix.isEmpty {
            // Never below `minItems` or `minContains`: an untyped array that must be long is still generated, at
            // its minimum.
            maximum = min(maximum ?? .max, max(minimum, needed, Self.untypedArrayLimit))
        }
        // A position whose schema is `false` ends the array before it.
        if let closed = prefix.firstIndex(of: .bool(false)) {
            maximum = min(maximum ?? closed, closed)
            prefix = Array(prefix[..<closed])
        }
        if rest == .bool(false) {
            maximum = min(maximum ?? prefix.count, prefix.count)
            rest = nil
        }
        if let containsSchema = object["contains"] {
            if needed > 0 {
                if unique {
                    throw JSONSchemaImportError(
                        path: path, keyword: "contains", message: "\"contains\" together with \"uniqueItems\" is not supported")
                }
                // Checked before the loop below, which merges one schema per needed element.
                if let maximum, needed > maximum {
                    throw JSONSchemaImportError.unsatisfiable(
                        path: path, keyword: "minContains",
                        message: "\"minContains\" \(needed) exceeds the \(maximum) items the array allows")
                }
                guard needed <= Self.maximumContainsCount else {
                    throw JSONSchemaImportError(
                        path: path, keyword: "minContains",
                        message: "\"minContains\" \(needed) is above \(Self.maximumContainsCount), the most supported")
                }
                var extended: [JSONSchemaValue] = []
                // Every position past the positional ones merges the same two schemas: merge them once.
                var mergedRest: JSONSchemaValue?
                func later() throws -> JSONSchemaValue {
                    let merged = try mergedRest ?? merger.merge([rest ?? .bool(true), containsSchema], path: "\(path)/contains")
                    mergedRest = merged
                    return merged
                }
                for index in 0..<max(needed, prefix.count) {
                    if index >= needed {
                        extended.append(prefix[index])
                    } else if index < prefix.count {
                        extended.append(try merger.merge([prefix[index], containsSchema], path: "\(path)/contains"))
                    } else {
                        extended.append(try later())
                    }
                }
                // A positional item that cannot satisfy `contains` (the loop below would read its `false` as the
                // array's end and drop the demand): the needed elements go after the positional ones instead, and
                // when no later item can satisfy it either, the array is refused.
                var neededCount = needed
                if extended.prefix(needed).contains(.bool(false)) {
                    let merged = try later()
                    guard merged != .bool(false), maximum.map({ prefix.count + needed <= $0 }) ?? true else {
                        // Only without positional items is that the array's own emptiness: with them, a later
                        // positional item might have held the needed elements.
                        throw JSONSchemaImportError(
                            path: path, keyword: "contains",
                            message: prefix.isEmpty ? "No item the array allows can satisfy \"contains\""
                                : "\"contains\" cannot be satisfied: a positional item excludes it, and the array has no room for \(needed) such items after them",
                            allowsNoValue: prefix.isEmpty)
                    }
                    extended = prefix + Array(repeating: merged, count: needed)
                    neededCount = prefix.count + needed
                }
                prefix = extended
                minimum = max(minimum, neededCount)
            }
        }
        if let maximum, maximum < minimum {
            // Past `minItems` itself, the count comes from where `contains` was placed, which may ask for more
            // elements than JSON Schema does: then it is no proof that the array allows no value.
            throw JSONSchemaImportError(
                path: path, keyword: "minItems", message: "The array needs \(minimum) items but allows at most \(maximum)",
                allowsNoValue: maximum < declaredMinimum)
        }
        if unique, !prefix.isEmpty {
            throw JSONSchemaImportError(
                path: path, keyword: "uniqueItems", message: "\"uniqueItems\" with positional items is not supported")
        }
        var prefixNodes: [GenerationSchema.Node] = []
        for (index, schema) in prefix.enumerated() where maximum.map({ index < $0 }) ?? true {
            if schema == .bool(false) { break }
            prefixNodes.append(try node(schema, path: "\(path)/prefixItems/\(index)"))
        }
        let itemsPath = object["prefixItems"] != nil || prefix.isEmpty ? "\(path)/items" : "\(path)/additionalItems"
        let items = try rest.map { try node($0, path: itemsPath) } ?? .any
        var array = GenerationSchema.ArrayNode(
            items: items, minimumCount: minimum == 0 ? nil : minimum, maximumCount: maximum)
        if rest == nil, !prefixNodes.isEmpty, maximum == nil {
            // Elements after the positional ones are unconstrained: bound them like a missing `items`.
            array.maximumCount = max(minimum, prefixNodes.count + Self.untypedArrayLimit)
        }
        array.prefixItems = prefixNodes
        array.uniqueItems = unique
        return array
    }

    /// A property name as a JSON Pointer token.
    static func escaped(_ name: String) -> String {
        name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
