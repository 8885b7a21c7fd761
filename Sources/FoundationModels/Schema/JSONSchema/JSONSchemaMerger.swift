import FMDecoding

/// Combines schemas that must all hold (`allOf`, `$ref` beside other keywords, an `anyOf` alternative with the
/// keywords around it) into one schema with the same valid values.
///
/// Keyword by keyword: types and `enum`s intersect, lower bounds take the larger and upper bounds the smaller
/// value, `required` lists unite, patterns accumulate (the merged `pattern` may hold an array of them), and the
/// schemas of one property, one array position or `items` merge recursively. Each property's schema takes into
/// account every part's `properties`, matching `patternProperties` and otherwise its `additionalProperties`, so a
/// part's `additionalProperties: false` still excludes the properties only another part declares. What cannot be
/// combined exactly throws an error naming the keyword. A contradiction yields the schema `false`.
struct JSONSchemaMerger {
    /// Resolves a `$ref` to its schema, or nil.
    let resolve: (String) -> JSONSchemaValue?
    /// Whether `$ref` overrides the keywords beside it (drafts 4 to 7).
    let refOverridesSiblings: Bool
    /// Whether a reference's target holds a `$ref` that resolves against a nested `$id` (merged elsewhere, it
    /// would resolve against the document instead).
    let leavesIdentifierScope: (String) -> Bool
    /// Parts flattened so far, shared by every merger the importer makes.
    let budget: Budget

    /// The most schemas one merge (with the merges nested in it) may flatten: nested merges and `anyOf` products
    /// multiply the work, and a budget bounds what depth limits alone do not.
    static let maximumFlattenedParts = 10_000

    /// The most schemas all merges of one import may flatten, so that many merges of moderate size stay bounded too.
    static let maximumFlattenedPartsPerImport = 50_000

    /// Work left for the current merge and for the whole import (a class, so that copies of the merger and nested
    /// merges share it).
    final class Budget {
        var remaining: Int
        var remainingInImport: Int

        init(_ remaining: Int = JSONSchemaMerger.maximumFlattenedParts,
             import remainingInImport: Int = JSONSchemaMerger.maximumFlattenedPartsPerImport) {
            self.remaining = remaining
            self.remainingInImport = remainingInImport
        }

        /// Takes `steps` steps of work; `false` when the merge or the import has not that many left.
        func spend(_ steps: Int = 1) -> Bool {
            guard remaining >= steps, remainingInImport >= steps else { return false }
            remaining -= steps
            remainingInImport -= steps
            return true
        }
    }

    /// Keywords whose values are kept from the first part that has them.
    private static let firstWins: Set<String> = ["title", "description", "$defs", "definitions", "propertyOrdering", "x-order"]

    /// The most merges nested inside one another (one per level of properties, items and the like both sides have).
    static let maximumNesting = 32

    /// The parts of the merges this one is nested in, as canonical text. Merging the same parts again inside
    /// their own merge repeats forever: `allOf` of a recursive `$ref` with itself merges its recursive properties
    /// with each other in turn, so `flatten`'s `visited` (which sees one merge at a time) cannot catch it.
    private var enclosingParts: [String] = []

    init(
        resolve: @escaping (String) -> JSONSchemaValue?, refOverridesSiblings: Bool,
        leavesIdentifierScope: @escaping (String) -> Bool = { _ in false }, budget: Budget = Budget()
    ) {
        self.resolve = resolve
        self.refOverridesSiblings = refOverridesSiblings
        self.leavesIdentifierScope = leavesIdentifierScope
        self.budget = budget
    }

    /// Merges `parts`, which all apply to the same value.
    ///
    /// `firstIsOutermost`: the first part is the schema at this location and the others its subschemas (an
    /// `anyOf` alternative with the keywords around it), so its `unevaluatedItems` sees their items. A lone part
    /// is always the outermost.
    func merge(_ parts: [JSONSchemaValue], path: String, firstIsOutermost: Bool = false) throws -> JSONSchemaValue {
        let key = parts.map(\.canonicalText).joined(separator: ",")
        guard !enclosingParts.contains(key) else {
            throw JSONSchemaImportError(
                path: path, keyword: "$ref", message: "\"allOf\" merges a recursive \"$ref\" with itself without end")
        }
        guard enclosingParts.count < Self.maximumNesting else {
            throw JSONSchemaImportError(
                path: path, keyword: "allOf", message: "\"allOf\" merges schemas nested more than \(Self.maximumNesting) deep")
        }
        // Each merge the importer starts gets its own allowance; merges nested in it share that one.
        if enclosingParts.isEmpty { budget.remaining = Self.maximumFlattenedParts }
        var nested = self
        nested.enclosingParts.append(key)
        return try nested.mergeParts(parts, path: path, firstIsOutermost: firstIsOutermost || parts.count == 1)
    }

    private func mergeParts(_ parts: [JSONSchemaValue], path: String, firstIsOutermost: Bool) throws -> JSONSchemaValue {
        var objects: [JSONSchemaObject] = []
        var visited: [String] = []
        var expanded: Set<String> = []
        // The outermost part's `unevaluatedItems` and `unevaluatedProperties` see every part merged into it and
        // stay for the array or object node; each other part's apply to what it and its own subschemas evaluate.
        var outermostUnevaluated: JSONSchemaValue?
        for (index, part) in parts.enumerated() {
            let outermost = index == 0 && firstIsOutermost
            guard try flatten(part, into: &objects, visited: &visited, expanded: &expanded, outermost: outermost, path: path)
            else { return .bool(false) }
            // Held back while combining: as a property's fallback schema it would reject the properties the
            // other parts declare, which it sees as evaluated.
            // Every other part's was made its own `additionalProperties`, so one left is the outermost's.
            if outermost, let last = objects.indices.last, let unevaluated = objects[last]["unevaluatedProperties"] {
                outermostUnevaluated = unevaluated
                objects[last]["unevaluatedProperties"] = nil
            }
        }
        guard var result = objects.first else { return .bool(true) }
        for object in objects.dropFirst() {
            guard let combined = try combine(result, object, path: path) else { return .bool(false) }
            result = combined
        }
        if let outermostUnevaluated { result["unevaluatedProperties"] = outermostUnevaluated }
        return .object(result)
    }

    /// Appends the objects that must all hold for `schema`; false when `schema` is the `false` schema.
    ///
    /// `visited` holds the references being expanded (a cycle), `expanded` those already expanded in this merge:
    /// their objects are in `objects` already, and A ∧ A = A, so `allOf` reusing a reference twice at each of n
    /// levels costs n expansions rather than 2ⁿ.
    private func flatten(
        _ schema: JSONSchemaValue, into objects: inout [JSONSchemaObject], visited: inout [String],
        expanded: inout Set<String>, outermost: Bool, path: String
    ) throws -> Bool {
        switch schema {
        case .bool(let value): return value
        case .object(var object):
            guard budget.spend() else {
                throw JSONSchemaImportError(
                    path: path, keyword: "allOf",
                    message: "\"allOf\" and \"$ref\" merge more schemas than the importer allows (\(Self.maximumFlattenedParts) per merge)")
            }
            object = Self.normalizedBounds(object)
            // A part with its own `$id` resolves the `$ref`s in it against that base; merged here, they would
            // resolve against the document. (The document's root sets the base for everything.)
            if !(outermost && path == "#"), setsOwnIdentifier(object), Self.holdsReference(.object(object)) {
                throw JSONSchemaImportError(
                    path: path, keyword: "$id",
                    message: "A subschema that sets its own \"$id\" and holds a \"$ref\" cannot be merged with other schemas")
            }
            // This object's own subschemas (its $ref's target, its allOf parts) land after this index.
            let start = objects.count
            if case .string(let reference)? = object["$ref"] {
                if expanded.contains(reference) {
                    if refOverridesSiblings { return true }
                    object["$ref"] = nil
                } else {
                    guard !visited.contains(reference), visited.count < 64 else {
                        throw JSONSchemaImportError(path: path, keyword: "$ref",
                                                    message: "\"$ref\" \"\(reference)\" refers to itself through \"allOf\"")
                    }
                    guard let target = resolve(reference) else {
                        throw JSONSchemaImportError(path: path, keyword: "$ref",
                                                    message: "Unsupported or undefined reference \"\(reference)\"")
                    }
                    if leavesIdentifierScope(reference) {
                        throw JSONSchemaImportError(
                            path: path, keyword: "$id",
                            message: "\"$ref\" \"\(reference)\" points into a subschema that sets its own \"$id\", "
                                + "whose references cannot be merged here")
                    }
                    visited.append(reference)
                    let holds = try flatten(
                        target, into: &objects, visited: &visited, expanded: &expanded, outermost: false, path: path)
                    visited.removeLast()
                    guard holds else { return false }
                    expanded.insert(reference)
                    if refOverridesSiblings { return true }
                    object["$ref"] = nil
                }
            }
            if let all = object["allOf"] {
                guard case .array(let parts) = all else {
                    throw JSONSchemaImportError(path: path, keyword: "allOf", message: "\"allOf\" must be an array")
                }
                object["allOf"] = nil
                for part in parts {
                    guard try flatten(
                        part, into: &objects, visited: &visited, expanded: &expanded, outermost: false, path: path)
                    else { return false }
                }
            }
            object = Self.normalizedArrayKeywords(object, outermost: outermost, subschemas: objects[start...])
            objects.append(Self.normalizedObjectKeywords(object, outermost: outermost, subschemas: objects[start...]))
            return true
        default:
            throw JSONSchemaImportError(path: path, message: "A schema must be an object or a boolean")
        }
    }

    /// Whether `object` sets its own base URI: an `$id` (or, in drafts 4 to 7, `id`) other than an anchor.
    private func setsOwnIdentifier(_ object: JSONSchemaObject) -> Bool {
        for key in ["$id"] + (refOverridesSiblings ? ["id"] : []) {
            if case .string(let identifier)? = object[key], !identifier.hasPrefix("#") { return true }
        }
        return false
    }

    /// Whether a `$ref` appears anywhere in `value`.
    static func holdsReference(_ value: JSONSchemaValue) -> Bool {
        switch value {
        case .object(let object):
            if case .string? = object["$ref"] { return true }
            return object.keys.contains { holdsReference(object[$0]!) }
        case .array(let elements):
            return elements.contains(where: holdsReference)
        default:
            return false
        }
    }

    /// One flattened object's array keywords made independent of the other parts:
    /// - `minContains` is explicit (its default of 1 would otherwise give way to another part's 0), and dropped
    ///   where there is no `contains` (it constrains nothing there, but would lower another part's count).
    /// - Except on the outermost schema, `unevaluatedItems` becomes the object's own rest: it sees this object's
    ///   items and those of its own `subschemas` (its `$ref`'s target, its `allOf` parts), not those of the parts
    ///   it is merged with. Positions up to the longest prefix among them are evaluated; past it, a rest schema
    ///   in any of them evaluates every item, else the unevaluated schema applies.
    static func normalizedArrayKeywords(
        _ object: JSONSchemaObject, outermost: Bool, subschemas: ArraySlice<JSONSchemaObject> = []
    ) -> JSONSchemaObject {
        var object = object
        if object["contains"] == nil {
            if object["minContains"] != nil { object["minContains"] = nil }
        } else if object["minContains"] == nil {
            object["minContains"] = .number(1)
        }
        if !outermost, let unevaluated = object["unevaluatedItems"] {
            object["unevaluatedItems"] = nil
            let shapes = subschemas.map(arrayShape) + [arrayShape(object)]
            if shapes.allSatisfy({ $0.rest == nil }) {
                let evaluated = shapes.map(\.prefix.count).max() ?? 0
                if case .array(var prefix)? = object["items"] {
                    prefix += Array(repeating: .bool(true), count: evaluated - prefix.count)
                    object["items"] = .array(prefix)
                    object["additionalItems"] = unevaluated
                } else {
                    var prefix = arrayShape(object).prefix
                    prefix += Array(repeating: .bool(true), count: evaluated - prefix.count)
                    if !prefix.isEmpty { object["prefixItems"] = .array(prefix) }
                    object["items"] = unevaluated
                }
            }
        }
        return object
    }

    /// Except on the outermost schema, `unevaluatedProperties` becomes the object's own `additionalProperties`:
    /// it sees the properties this object and its own `subschemas` (its `$ref`'s target, its `allOf` parts)
    /// declare or match, not those of the parts it is merged with. An `additionalProperties` in any of them
    /// evaluates every property, so the keyword is dropped. The properties that alternatives or conditionals
    /// in them would evaluate are not seen, which reads the keyword more strictly than JSON Schema does, never
    /// less (left as it is, the merged object's `unevaluatedProperties` would read as the outermost one's).
    static func normalizedObjectKeywords(
        _ object: JSONSchemaObject, outermost: Bool, subschemas: ArraySlice<JSONSchemaObject> = []
    ) -> JSONSchemaObject {
        guard !outermost, let unevaluated = object["unevaluatedProperties"] else { return object }
        let scope = Array(subschemas) + [object]
        var object = object
        object["unevaluatedProperties"] = nil
        if scope.contains(where: { $0["additionalProperties"] != nil }) { return object }
        // The subschemas' names are evaluated; `true` beside them adds no constraint.
        var properties: JSONSchemaObject = if case .object(let own)? = object["properties"] { own } else { [:] }
        var patterns: JSONSchemaObject = if case .object(let own)? = object["patternProperties"] { own } else { [:] }
        for part in subschemas {
            if case .object(let declared)? = part["properties"] {
                for name in declared.keys where properties[name] == nil { properties[name] = .bool(true) }
            }
            if case .object(let declared)? = part["patternProperties"] {
                for source in declared.keys where patterns[source] == nil { patterns[source] = .bool(true) }
            }
        }
        if !properties.keys.isEmpty { object["properties"] = .object(properties) }
        if !patterns.keys.isEmpty { object["patternProperties"] = .object(patterns) }
        object["additionalProperties"] = unevaluated
        return object
    }

    /// Draft-4 `exclusiveMinimum: true` beside `minimum` in the 2019+ spelling (`exclusiveMinimum: <number>`).
    static func normalizedBounds(_ object: JSONSchemaObject) -> JSONSchemaObject {
        var object = object
        for (exclusive, inclusive) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
            guard case .bool(let flag)? = object[exclusive] else { continue }
            object[exclusive] = nil
            if flag, let bound = object[inclusive] {
                object[inclusive] = nil
                object[exclusive] = bound
            }
        }
        return object
    }

    // MARK: Combining two objects

    private func combine(_ a: JSONSchemaObject, _ b: JSONSchemaObject, path: String) throws -> JSONSchemaObject? {
        var result = a
        for key in b.keys where a[key] == nil { result[key] = b[key] }
        let arrayKeys: Set<String> = ["items", "prefixItems", "additionalItems"]
        let objectKeys: Set<String> = ["properties", "patternProperties", "additionalProperties", "required"]
        for key in b.keys where a[key] != nil && !arrayKeys.contains(key) && !objectKeys.contains(key) {
            guard let combined = try combine(keyword: key, a[key]!, b[key]!, path: path) else { return nil }
            result[key] = combined
        }
        if a.keys.contains(where: objectKeys.contains) || b.keys.contains(where: objectKeys.contains) {
            try combineObjectKeywords(a, b, into: &result, path: path)
        }
        if a.keys.contains(where: arrayKeys.contains) || b.keys.contains(where: arrayKeys.contains) {
            try combineArrayKeywords(a, b, into: &result, path: path)
        }
        return result
    }

    /// One keyword present on both sides; nil when no value can satisfy both.
    private func combine(keyword: String, _ x: JSONSchemaValue, _ y: JSONSchemaValue, path: String) throws
        -> JSONSchemaValue?
    {
        if Self.firstWins.contains(keyword) || !JSONSchemaKeywords.enforced.contains(keyword) { return x }
        func numbers() throws -> (Double, Double) {
            guard case .number(let first) = x, case .number(let second) = y else {
                throw JSONSchemaImportError(path: path, keyword: keyword, message: "\"\(keyword)\" must be a number")
            }
            return (first, second)
        }
        switch keyword {
        case "type":
            let types = Self.typeSet(x).intersection(Self.typeSet(y))
                .union(Self.typeSet(x).contains("number") && Self.typeSet(y).contains("integer") ? ["integer"] : [])
                .union(Self.typeSet(y).contains("number") && Self.typeSet(x).contains("integer") ? ["integer"] : [])
            guard !types.isEmpty else { return nil }
            return .array(types.sorted().map(JSONSchemaValue.string))
        case "enum":
            guard case .array(let first) = x, case .array(let second) = y else { return x }
            return .array(first.filter(second.contains))
        case "const":
            return x == y ? x : nil
        case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains":
            let (first, second) = try numbers()
            return .number(max(first, second))
        case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties":
            let (first, second) = try numbers()
            return .number(min(first, second))
        case "multipleOf":
            let (first, second) = try numbers()
            if first > 0, second > 0 {
                if JSONSchemaMultiple.isMultiple(first, of: second) == true { return x }
                if JSONSchemaMultiple.isMultiple(second, of: first) == true { return y }
                if first == first.rounded(), second == second.rounded(), first < 1e9, second < 1e9 {
                    let (p, q) = (Int(first), Int(second))
                    return .number(Double(p / Self.gcd(p, q) * q))
                }
            }
            throw JSONSchemaImportError(
                path: path, keyword: "multipleOf", message: "\"allOf\" combines multipleOf \(first) and \(second)")
        case "pattern":
            return .array(Self.list(x) + Self.list(y))
        case "format":
            guard x == y else {
                throw JSONSchemaImportError(path: path, keyword: "format", message: "\"allOf\" combines two formats")
            }
            return x
        case "uniqueItems":
            return x == .bool(true) || y == .bool(true) ? .bool(true) : .bool(false)
        case "anyOf":
            guard case .array(let first) = x, case .array(let second) = y else { return x }
            guard first.count * second.count <= 64 else {
                throw JSONSchemaImportError(
                    path: path, keyword: "anyOf", message: "\"allOf\" combines anyOf lists with too many alternatives")
            }
            return .array(first.flatMap { left in second.map { right in .object(["allOf": .array([left, right])]) } })
        case "dependentRequired":
            guard case .object(var first) = x, case .object(let second) = y else { return x }
            for key in second.keys {
                first[key] = .array(Self.list(first[key] ?? .array([])) + Self.list(second[key]!))
            }
            return .object(first)
        case "unevaluatedItems", "unevaluatedProperties", "propertyNames":
            return try merge([x, y], path: path)
        default:
            if x == y { return x }
            throw JSONSchemaImportError(
                path: path, keyword: keyword, message: "\"allOf\" cannot combine two different \"\(keyword)\" values")
        }
    }

    /// `properties`, `patternProperties`, `additionalProperties` and `required` of both sides.
    private func combineObjectKeywords(
        _ a: JSONSchemaObject, _ b: JSONSchemaObject, into result: inout JSONSchemaObject, path: String
    ) throws {
        var names: [String] = []
        for side in [a, b] {
            if case .object(let properties)? = side["properties"] { names += properties.keys }
            names += Self.list(side["required"] ?? .array([])).compactMap { if case .string(let name) = $0 { name } else { nil } }
        }
        var seen: Set<String> = []
        names = names.filter { seen.insert($0).inserted }
        var properties = JSONSchemaObject(keys: [], values: [:])
        for name in names {
            let parts = try Self.schemas(for: name, in: a, path: path) + Self.schemas(for: name, in: b, path: path)
            // A name only `required` lists, which no part gives a schema: declared here it would hold any value,
            // while the merged object's `additionalProperties`, or the outermost `unevaluatedProperties` held back
            // while combining, may still constrain it.
            if parts.isEmpty { continue }
            properties[name] = parts.count == 1 ? parts[0] : try merge(parts, path: "\(path)/properties/\(name)")
        }
        result["properties"] = properties.keys.isEmpty ? nil : .object(properties)
        var requiredSeen: Set<String> = []
        let required = (Self.list(a["required"] ?? .array([])) + Self.list(b["required"] ?? .array([]))).filter { value in
            if case .string(let name) = value { return requiredSeen.insert(name).inserted }
            return true
        }
        result["required"] = required.isEmpty ? nil : .array(required)
        if case .object(var patterns)? = a["patternProperties"], case .object(let more)? = b["patternProperties"] {
            for key in more.keys {
                patterns[key] = try patterns[key].map { try merge([$0, more[key]!], path: path) } ?? more[key]!
            }
            result["patternProperties"] = .object(patterns)
        }
        if let first = a["additionalProperties"], let second = b["additionalProperties"] {
            result["additionalProperties"] = try merge([first, second], path: path)
        }
    }

    /// The schemas one side applies to property `name`: its declaration and matching patterns, else its
    /// `additionalProperties`.
    static func schemas(for name: String, in object: JSONSchemaObject, path: String) throws -> [JSONSchemaValue] {
        var result: [JSONSchemaValue] = []
        if case .object(let properties)? = object["properties"], let schema = properties[name] { result.append(schema) }
        if case .object(let patterns)? = object["patternProperties"] {
            for source in patterns.keys {
                let matcher: PatternMatcher
                do {
                    matcher = try PatternMatcher(searching: source)
                } catch {
                    throw JSONSchemaImportError(
                        path: "\(path)/patternProperties", keyword: "patternProperties",
                        message: "The pattern \"\(source)\" cannot be used: \(error.message)")
                }
                if matcher.matches(name) { result.append(patterns[source]!) }
            }
        }
        if result.isEmpty, let additional = object["additionalProperties"] ?? object["unevaluatedProperties"] {
            result.append(additional)
        }
        return result
    }

    /// `prefixItems`/`items`/`additionalItems` of both sides, position by position (written in the 2020-12 form).
    private func combineArrayKeywords(
        _ a: JSONSchemaObject, _ b: JSONSchemaObject, into result: inout JSONSchemaObject, path: String
    ) throws {
        let (prefixA, restA) = Self.arrayShape(a)
        let (prefixB, restB) = Self.arrayShape(b)
        var prefix: [JSONSchemaValue] = []
        for index in 0..<max(prefixA.count, prefixB.count) {
            let parts = [index < prefixA.count ? prefixA[index] : restA, index < prefixB.count ? prefixB[index] : restB]
                .compactMap { $0 }
            prefix.append(parts.count == 1 ? parts[0] : try merge(parts, path: "\(path)/prefixItems/\(index)"))
        }
        let rests = [restA, restB].compactMap { $0 }
        result["additionalItems"] = nil
        result["prefixItems"] = prefix.isEmpty ? nil : .array(prefix)
        result["items"] = rests.isEmpty ? nil : rests.count == 1 ? rests[0] : try merge(rests, path: "\(path)/items")
    }

    /// Positional item schemas and the schema of the rest (nil: unconstrained), in either spelling.
    static func arrayShape(_ object: JSONSchemaObject) -> (prefix: [JSONSchemaValue], rest: JSONSchemaValue?) {
        if case .array(let prefix)? = object["prefixItems"] { return (prefix, object["items"]) }
        if case .array(let prefix)? = object["items"] { return (prefix, object["additionalItems"]) }
        return ([], object["items"])
    }

    static func typeSet(_ value: JSONSchemaValue) -> Set<String> {
        Set(list(value).compactMap { if case .string(let name) = $0 { name } else { nil } })
    }

    /// The elements of an array value, or the value itself.
    static func list(_ value: JSONSchemaValue) -> [JSONSchemaValue] {
        if case .array(let elements) = value { return elements }
        return [value]
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}

extension JSONSchemaObject: ExpressibleByDictionaryLiteral {
    init(dictionaryLiteral elements: (String, JSONSchemaValue)...) {
        self.init(keys: [], values: [:])
        for (key, value) in elements { self[key] = value }
    }
}
