import FMDecoding
import Foundation

/// Reads a JSON Schema document into a ``GenerationSchema`` whose every generated value is valid under it.
///
/// Exact where a grammar can be: types and `type` unions, `enum`/`const` of any JSON value, numeric bounds (both
/// drafts' spellings) and integer `multipleOf`, string lengths, patterns and common formats, `items`,
/// `prefixItems` and counts, `uniqueItems`, `properties`/`required`, `anyOf`, `oneOf` whose alternatives provably
/// exclude each other, `allOf` and `$ref` (merged with the keywords beside them), and local references
/// (recursion included). Elsewhere generation produces a documented *subset* of the valid values (see
/// `docs/json-schema.md`): only declared properties, a bounded number of elements where `items` is missing,
/// the type an untyped schema's keywords describe, and so on. Annotations and unknown keywords are ignored and
/// reported in ``warnings``. What cannot be enforced at all (`not`, `if`/`then`/`else`, `$dynamicRef`,
/// `maxContains`, references outside the document) is refused with an error naming the keyword.
struct JSONSchemaImporter {
    /// The whole document, against which references resolve.
    let document: JSONSchemaValue
    /// Whether the document declares draft 4, 6 or 7 (`$ref` then overrides the keywords beside it).
    let isLegacyDraft: Bool
    /// The root's title; `#` references resolve to it.
    private(set) var rootName: String?
    /// Definitions converted so far, by name.
    private(set) var definitions: [String: GenerationSchema.Node] = [:]
    /// Definition names in the order they were first referred to.
    private(set) var definitionOrder: [String] = []
    /// Keywords ignored as annotations, in order of first appearance.
    private(set) var ignoredKeywords: [String] = []
    /// The same keywords, for a look-up that stays cheap when a schema has many.
    private var ignoredKeywordSet: Set<String> = []
    /// Formats that are annotations here, in order of first use, each with the enforced format it most likely
    /// misspells, if any (``JSONSchemaKeywords/misspelledFormat(_:)``).
    private(set) var unenforcedFormats: [(format: String, meant: String?)] = []
    /// Where an object's `patternProperties` allow keys that are never generated (only declared ones are).
    var ungeneratedPatternKeys: [String] = []
    /// Union members (`anyOf`/`oneOf` alternatives, types of a `type` list) and optional properties that allow
    /// no value, left out: why.
    var emptyParts: [String] = []

    private var pointerNames: [String: String] = [:]
    private var pending: [(name: String, pointer: String)] = []
    private var nestedIdentifiers: [String] = []
    private var depth = 0
    /// What all merges of this import may still flatten (shared by every merger made from it).
    private let mergeBudget = JSONSchemaMerger.Budget()
    /// Steps left for proving `oneOf` alternatives exclusive, over the whole import.
    let exclusionBudget = JSONSchemaMerger.Budget(JSONSchemaImporter.maximumExclusionSteps)

    /// The most steps ``excludes(_:_:depth:)`` may take in one import: `allOf`, `anyOf` and references branch at
    /// every level, so its depth limit alone allows exponentially many.
    static let maximumExclusionSteps = 100_000

    /// The most elements generated for an array whose `items` is missing.
    static let untypedArrayLimit = 8

    init(document: JSONSchemaValue) {
        self.document = document
        var legacy = false
        if case .object(let root) = document, case .string(let dialect)? = root["$schema"] {
            legacy = ["draft-04", "draft-06", "draft-07", "draft-03"].contains { dialect.contains($0) }
        }
        isLegacyDraft = legacy
        nestedIdentifiers = Self.nestedIdentifiers(in: document, pointer: "#", isRoot: true, legacy: legacy)
    }

    /// Warnings to show the user: ignored annotations and unenforced formats.
    var warnings: [String] {
        var result: [String] = []
        if !ignoredKeywords.isEmpty {
            // Thousands of keys, or one of a megabyte, would bury the rest of the output.
            let shown = ignoredKeywords.prefix(20).map { $0.count > 40 ? $0.prefix(40) + "…" : $0 }
            let more = ignoredKeywords.count > 20 ? " and \(ignoredKeywords.count - 20) more" : ""
            result.append("Ignored JSON Schema annotations and unknown keywords: \(shown.joined(separator: ", "))\(more).")
        }
        if !ungeneratedPatternKeys.isEmpty {
            let shown = ungeneratedPatternKeys.prefix(4).joined(separator: ", ") + (ungeneratedPatternKeys.count > 4 ? ", …" : "")
            result.append("Keys that only \"patternProperties\" names are never generated; answers hold the declared properties (at \(shown)).")
        }
        if !emptyParts.isEmpty {
            let shown = emptyParts.prefix(4).joined(separator: " ") + (emptyParts.count > 4 ? " …" : "")
            result.append("Parts that allow no value (union members, optional properties) are left out: \(shown)")
        }
        if !unenforcedFormats.isEmpty {
            let named = unenforcedFormats.map { entry in entry.meant.map { "\(entry.format) (did you mean \($0)?)" } ?? entry.format }
            result.append("Formats not enforced (strings are unconstrained): \(named.joined(separator: ", ")).")
        }
        return result
    }

    /// Converts the whole document.
    mutating func importSchema() throws -> GenerationSchema {
        if case .object(let root) = document, case .string(let title)? = root["title"] { rootName = title }
        var root = try node(document, path: "#")
        // Definitions refer to each other; convert until none is pending.
        while let (name, _) = pending.first { try convertDefinition(name) }
        // The writer writes a reference to the root's type name as `#`: a definition must not share it (an
        // untitled root object is named "Object", which a `$defs/Object` may be too).
        if let name = root.typeName, name != pointerNames["#"], definitionOrder.contains(name) {
            var unique = name
            while definitionOrder.contains(unique) { unique += "_" }
            root = root.renamed(unique)
        }
        if let rootReference = pointerNames["#"], root.typeName != rootReference {
            definitions[rootReference] = root.renamed(rootReference)
        }
        if case .bool(true) = document { root = .any }
        return GenerationSchema(
            root: root, definitions: definitionOrder.compactMap { name in definitions[name].map { .init(name: name, node: $0) } })
    }

    // MARK: References

    /// Converts a pending definition now (nothing happens when it is converted or being converted).
    mutating func convertDefinition(_ name: String) throws {
        guard let index = pending.firstIndex(where: { $0.name == name }) else { return }
        let pointer = pending.remove(at: index).pointer
        guard let target = resolve(pointer) else {
            throw JSONSchemaImportError(path: pointer, keyword: "$ref", message: "\"$ref\" points to nothing")
        }
        definitions[name] = try node(target, path: pointer).renamed(name)
    }

    /// The schema a reference points to (a local JSON Pointer, an `$anchor`, or the root's own `$id`).
    func resolve(_ reference: String) -> JSONSchemaValue? {
        locate(reference)?.schema
    }

    /// The schema a reference points to, whether it is at or inside a subschema (other than the root) that sets
    /// its own `$id`, and whether it is the root.
    private func locate(_ reference: String) -> Location? {
        var fragment = reference
        if !reference.hasPrefix("#") {
            guard case .object(let root) = document, case .string(let identifier)? = root["$id"] ?? root["id"] else {
                return nil
            }
            let hash = reference.firstIndex(of: "#") ?? reference.endIndex
            let rootBase = identifier.split(separator: "#", omittingEmptySubsequences: false).first.map(String.init)
            guard String(reference[..<hash]) == rootBase else { return nil }
            fragment = hash < reference.endIndex ? String(reference[hash...]) : "#"
        }
        if fragment == "#" { return (document, false, true) }
        guard fragment.hasPrefix("#/") else {
            return anchor(String(fragment.dropFirst()), in: document, isScoped: false, isRoot: true)
        }
        var current = document
        var isScoped = false
        for rawToken in fragment.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false) {
            let token = (String(rawToken).removingPercentEncoding ?? String(rawToken))
                .replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch current {
            case .object(let object):
                guard let next = object[token] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Int(token), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
            if setsIdentifier(current) { isScoped = true }
        }
        return (current, isScoped, false)
    }

    private typealias Location = (schema: JSONSchemaValue, isScoped: Bool, isRoot: Bool)

    /// The subschema declaring `$anchor` (or a draft 6/7 `$id` of `#name`) `name`, and whether it is at or inside
    /// a nested `$id`.
    private func anchor(
        _ name: String, in value: JSONSchemaValue, isScoped: Bool, isRoot: Bool
    ) -> Location? {
        switch value {
        case .object(let object):
            let inside = isScoped || (!isRoot && setsIdentifier(value))
            if case .string(name)? = object["$anchor"] { return (value, inside, isRoot) }
            if case .string("#" + name)? = object["$id"] { return (value, inside, isRoot) }
            for key in object.keys {
                if let found = anchor(name, in: object[key]!, isScoped: inside, isRoot: false) { return found }
            }
            return nil
        case .array(let elements):
            for element in elements {
                if let found = anchor(name, in: element, isScoped: isScoped, isRoot: false) { return found }
            }
            return nil
        default:
            return nil
        }
    }

    /// Whether a (non-root) schema sets its own base URI: an `$id` (or draft 4 `id`) other than an anchor.
    private func setsIdentifier(_ value: JSONSchemaValue) -> Bool {
        guard case .object(let object) = value else { return false }
        for key in ["$id"] + (isLegacyDraft ? ["id"] : []) {
            if case .string(let identifier)? = object[key], !identifier.hasPrefix("#") { return true }
        }
        return false
    }

    /// Whether a `$ref` in the target of `reference` resolves against a nested `$id` (the target is inside one,
    /// or holds one): merged into another schema, it would resolve against the document instead.
    func leavesIdentifierScope(_ reference: String) -> Bool {
        guard !nestedIdentifiers.isEmpty, let target = locate(reference) else { return false }
        return hasScopedReference(target.schema, isScoped: target.isScoped, isRoot: target.isRoot)
    }

    private func hasScopedReference(_ value: JSONSchemaValue, isScoped: Bool, isRoot: Bool) -> Bool {
        switch value {
        case .object(let object):
            // The root's own `$id` is the document's base, not a nested one.
            let inside = isScoped || (!isRoot && setsIdentifier(value))
            if inside, case .string? = object["$ref"] { return true }
            return object.keys.contains { hasScopedReference(object[$0]!, isScoped: inside, isRoot: false) }
        case .array(let elements):
            return elements.contains { hasScopedReference($0, isScoped: isScoped, isRoot: false) }
        default:
            return false
        }
    }

    /// The node for a `$ref` alone: a reference to a definition converted later.
    private mutating func reference(_ reference: String, path: String) throws -> GenerationSchema.Node {
        if let base = nestedIdentifiers.first(where: { path == $0 || path.hasPrefix($0 + "/") }) {
            throw JSONSchemaImportError(
                path: path, keyword: "$id",
                message: "\"$ref\" inside the subschema at \(base), which sets its own \"$id\", is not supported")
        }
        guard resolve(reference) != nil else {
            throw JSONSchemaImportError(
                path: "\(path)/$ref", keyword: "$ref", message: "Unsupported or undefined reference \"\(reference)\"")
        }
        let pointer = Self.canonicalPointer(reference, document: document)
        if let name = pointerNames[pointer] { return .reference(name) }
        var name: String
        if pointer == "#" {
            name = rootName ?? "Root"
        } else if let prefix = ["#/$defs/", "#/definitions/"].first(where: pointer.hasPrefix),
            !pointer.dropFirst(prefix.count).contains("/")
        {
            // Decoded as `resolve` decodes it, so that a name the writer escaped reads back unchanged.
            let token = String(pointer.dropFirst(prefix.count))
            name = (token.removingPercentEncoding ?? token).replacingOccurrences(of: "~1", with: "/")
                .replacingOccurrences(of: "~0", with: "~")
        } else {
            name = String(pointer.dropFirst(pointer.hasPrefix("#/") ? 2 : 1))
        }
        // Written back into `$ref`s, a name must be a plain pointer token: llama.cpp's schema converter, for one,
        // splits references at `/` and decodes no escapes.
        if pointer != "#" { name = Self.referenceSafe(name) }
        while pointerNames.values.contains(name) || (name == rootName && pointer != "#") { name += "_" }
        pointerNames[pointer] = name
        definitionOrder.append(name)
        if pointer != "#" { pending.append((name, pointer)) }
        return .reference(name)
    }

    /// `name` with every character but ASCII letters, digits, `_`, `.` and `-` written as `_`.
    static func referenceSafe(_ name: String) -> String {
        let safe = String(name.unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_", ".", "-": Character(scalar)
            default: "_"
            }
        })
        return safe.isEmpty ? "Definition" : safe
    }

    /// A reference written relative to the document (`#…`).
    private static func canonicalPointer(_ reference: String, document: JSONSchemaValue) -> String {
        guard !reference.hasPrefix("#"), let hash = reference.firstIndex(of: "#") else {
            return reference.hasPrefix("#") ? reference : "#"
        }
        return String(reference[hash...])
    }

    /// Pointers of subschemas that set their own base URI (`$id` other than an anchor), where `#…` references
    /// would resolve against that subschema rather than the document.
    private static func nestedIdentifiers(
        in value: JSONSchemaValue, pointer: String, isRoot: Bool, legacy: Bool
    ) -> [String] {
        var result: [String] = []
        switch value {
        case .object(let object):
            for key in ["$id"] + (legacy ? ["id"] : []) {
                if !isRoot, case .string(let identifier)? = object[key], !identifier.hasPrefix("#") {
                    result.append(pointer)
                }
            }
            for key in object.keys {
                // Keys under `properties` are names, not keywords; their values are schemas again.
                result += nestedIdentifiers(in: object[key]!, pointer: "\(pointer)/\(key)", isRoot: false, legacy: legacy)
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                result += nestedIdentifiers(in: element, pointer: "\(pointer)/\(index)", isRoot: false, legacy: legacy)
            }
        default:
            break
        }
        return result
    }

    var merger: JSONSchemaMerger {
        let document = self
        return JSONSchemaMerger(
            resolve: { document.resolve($0) }, refOverridesSiblings: isLegacyDraft,
            leavesIdentifierScope: { document.leavesIdentifierScope($0) }, budget: mergeBudget)
    }

    var validator: JSONSchemaLiteralValidator {
        let document = self
        return JSONSchemaLiteralValidator(resolve: { document.resolve($0) }, refOverridesSiblings: isLegacyDraft)
    }

    // MARK: Schemas

    /// The node of any schema value.
    mutating func node(_ schema: JSONSchemaValue, path: String) throws -> GenerationSchema.Node {
        switch schema {
        case .bool(true):
            return .any
        case .bool(false):
            throw JSONSchemaImportError.unsatisfiable(path: path, keyword: "false", message: "The schema false allows no value")
        case .object(let object):
            depth += 1
            defer { depth -= 1 }
            guard depth < 200 else {
                throw JSONSchemaImportError(path: path, message: "The schema nests too deeply")
            }
            return try node(object, path: path)
        default:
            throw JSONSchemaImportError(path: path, message: "A schema must be an object or a boolean")
        }
    }

    private mutating func node(_ raw: JSONSchemaObject, path: String) throws -> GenerationSchema.Node {
        var object = JSONSchemaMerger.normalizedBounds(raw)
        if case .string(let target)? = object["$ref"] {
            let beside = object.keys.filter { $0 != "$ref" && Self.constrains($0) }
            if isLegacyDraft || beside.isEmpty { return try reference(target, path: path) }
        } else if object["$ref"] != nil {
            throw JSONSchemaImportError(path: path, keyword: "$ref", message: "\"$ref\" must be a string")
        }
        // Merging (allOf, a $ref beside keywords, alternatives merged with their siblings) resolves the $refs it
        // meets against the document: inside a subschema with its own $id they would reach the wrong schema.
        if ["$ref", "allOf", "anyOf", "oneOf"].contains(where: { object[$0] != nil }),
           let base = nestedIdentifiers.first(where: { path == $0 || path.hasPrefix($0 + "/") }),
           hasScopedReference(.object(object), isScoped: true, isRoot: false) {
            throw JSONSchemaImportError(
                path: path, keyword: "$id",
                message: "\"$ref\" inside the subschema at \(base), which sets its own \"$id\", is not supported")
        }
        if object["$ref"] != nil || object["allOf"] != nil {
            if let base = nestedIdentifiers.first(where: { path == $0 || path.hasPrefix($0 + "/") }),
                object["$ref"] != nil
            {
                throw JSONSchemaImportError(
                    path: path, keyword: "$id",
                    message: "\"$ref\" inside the subschema at \(base), which sets its own \"$id\", is not supported")
            }
            let keyword = object["allOf"] != nil ? "allOf" : "$ref"
            switch try merger.merge([.object(object)], path: path) {
            case .object(let merged): object = merged
            case .bool(true): return .any
            default:
                throw JSONSchemaImportError.unsatisfiable(
                    path: path, keyword: keyword, message: "The parts of \"\(keyword)\" allow no value together")
            }
        }
        try checkKeywords(object, path: path)
        let title = try string("title", in: object, path: path)
        let description = try string("description", in: object, path: path)

        if object["anyOf"] != nil || object["oneOf"] != nil {
            return try alternatives(object, title: title, description: description, path: path)
        }
        if object["enum"] != nil || object["const"] != nil {
            return try literals(object, title: title, description: description, path: path)
        }
        let types = try typeSet(object, path: path)
        if types == JSONSchemaKeywords.allTypes, !object.keys.contains(where: Self.isTypeSpecific) { return .any }
        var nodes: [GenerationSchema.Node] = []
        var firstEmpty: JSONSchemaImportError?
        let emptyBefore = emptyParts.count
        for type in ["object", "array", "string", "number", "integer", "boolean", "null"] where types.contains(type) {
            if type == "integer", types.contains("number") { continue }
            do {
                nodes.append(try typed(type, object, title: title, description: description, path: path))
            } catch let error as JSONSchemaImportError where error.allowsNoValue(at: path) {
                // A type the keywords leave no value of (a string under `minLength` above `maxLength`): the
                // schema's other types remain.
                firstEmpty = firstEmpty ?? error
                emptyParts.append(error.description)
            }
        }
        if nodes.isEmpty, let firstEmpty {
            // The whole schema allows no value: said by the error, not as a part left out.
            emptyParts.removeSubrange(emptyBefore...)
            throw firstEmpty
        }
        if nodes.count == 1 { return nodes[0] }
        return .anyOf(.init(name: title ?? "AnyOf", description: description, choices: nodes))
    }

    /// Refuses keywords that cannot be enforced and records the ones ignored.
    private mutating func checkKeywords(_ object: JSONSchemaObject, path: String) throws {
        for key in object.keys {
            if JSONSchemaKeywords.refused.contains(key) {
                // `then`/`else` without `if`, and `if` without either, constrain nothing.
                let conditional = ["if", "then", "else"].contains(key)
                let inert = conditional && (object["if"] == nil || (object["then"] == nil && object["else"] == nil))
                if !inert {
                    throw JSONSchemaImportError(
                        path: path, keyword: key, message: "Unsupported JSON Schema keyword \"\(key)\"")
                }
            }
            // A list of names in `x-order` is read as the property order; anything else under it is not.
            let readsOrder = key == "x-order" && Self.names(inXOrder: object) != nil
            if !JSONSchemaKeywords.enforced.contains(key) && !JSONSchemaKeywords.read.contains(key), !readsOrder,
                ignoredKeywordSet.insert(key).inserted
            {
                ignoredKeywords.append(key)
            }
        }
    }

    /// Whether a keyword constrains values (so it cannot simply be dropped beside a `$ref`).
    static func constrains(_ keyword: String) -> Bool {
        JSONSchemaKeywords.enforced.subtracting(["$defs", "definitions"]).contains(keyword)
            || JSONSchemaKeywords.refused.contains(keyword)
    }

    static func isTypeSpecific(_ keyword: String) -> Bool {
        JSONSchemaKeywords.objectKeywords.contains(keyword) || JSONSchemaKeywords.arrayKeywords.contains(keyword)
            || JSONSchemaKeywords.stringKeywords.contains(keyword) || JSONSchemaKeywords.numberKeywords.contains(keyword)
    }

    /// The types to generate: the `type` keyword, or for an untyped schema the types its keywords constrain.
    private func typeSet(_ object: JSONSchemaObject, path: String) throws -> Set<String> {
        if let type = object["type"] {
            let names = JSONSchemaMerger.list(type)
            var result: Set<String> = []
            for name in names {
                guard case .string(let text) = name, JSONSchemaKeywords.allTypes.contains(text) else {
                    throw JSONSchemaImportError(
                        path: "\(path)/type", keyword: "type",
                        message: "Unsupported type \(name.canonicalText) (use JSON Schema's type names)")
                }
                result.insert(text)
            }
            guard !result.isEmpty else {
                throw JSONSchemaImportError(path: "\(path)/type", keyword: "type", message: "\"type\" lists no type")
            }
            return result
        }
        var inferred: Set<String> = []
        let keys = Set(object.keys)
        if !keys.isDisjoint(with: JSONSchemaKeywords.objectKeywords) { inferred.insert("object") }
        if !keys.isDisjoint(with: JSONSchemaKeywords.arrayKeywords) { inferred.insert("array") }
        if !keys.isDisjoint(with: JSONSchemaKeywords.stringKeywords) { inferred.insert("string") }
        if !keys.isDisjoint(with: JSONSchemaKeywords.numberKeywords) { inferred.insert("number") }
        return inferred.isEmpty ? JSONSchemaKeywords.allTypes : inferred
    }

    private mutating func typed(
        _ type: String, _ object: JSONSchemaObject, title: String?, description: String?, path: String
    ) throws -> GenerationSchema.Node {
        switch type {
        case "object": return .object(try objectNode(object, title: title, description: description, path: path))
        case "array": return .array(try arrayNode(object, path: path))
        case "string": return .string(try stringGuides(object, path: path))
        case "integer": return .integer(try bounds(object, integer: true, path: path))
        case "number": return .number(try bounds(object, integer: false, path: path))
        case "boolean": return .boolean
        default: return .null
        }
    }

    // MARK: Keyword values

    func string(_ key: String, in object: JSONSchemaObject, path: String) throws -> String? {
        guard let value = object[key] else { return nil }
        guard case .string(let text) = value else {
            throw JSONSchemaImportError(path: "\(path)/\(key)", keyword: key, message: "\"\(key)\" must be a string")
        }
        return text
    }

    func strings(_ key: String, in object: JSONSchemaObject, path: String) throws -> [String]? {
        guard let value = object[key] else { return nil }
        guard case .array(let elements) = value else {
            throw JSONSchemaImportError(path: "\(path)/\(key)", keyword: key, message: "\"\(key)\" must be an array of strings")
        }
        return try elements.map { element in
            guard case .string(let text) = element else {
                throw JSONSchemaImportError(
                    path: "\(path)/\(key)", keyword: key, message: "\"\(key)\" must be an array of strings")
            }
            return text
        }
    }

    func number(_ key: String, in object: JSONSchemaObject, path: String) throws -> Double? {
        guard let value = object[key] else { return nil }
        guard case .number(let number) = value, number.isFinite else {
            throw JSONSchemaImportError(path: "\(path)/\(key)", keyword: key, message: "\"\(key)\" must be a number")
        }
        return number
    }

    func count(_ key: String, in object: JSONSchemaObject, path: String) throws -> Int? {
        guard let value = try number(key, in: object, path: path) else { return nil }
        guard value >= 0, value == value.rounded() else {
            throw JSONSchemaImportError(path: "\(path)/\(key)", keyword: key, message: "\"\(key)\" must be a whole number ≥ 0")
        }
        return value > 1e9 ? 1_000_000_000 : Int(value)
    }

    // MARK: Scalars

    private mutating func stringGuides(_ object: JSONSchemaObject, path: String) throws -> GenerationSchema.StringGuides {
        var guides = GenerationSchema.StringGuides()
        if object["pattern"] == .null {
            // Written for a pattern whose source is unknown; lowering reports it.
            guides.pattern = RegexPattern(source: nil)
        } else if let pattern = object["pattern"] {
            for value in JSONSchemaMerger.list(pattern) {
                guard case .string(let source) = value else {
                    throw JSONSchemaImportError(path: "\(path)/pattern", keyword: "pattern", message: "\"pattern\" must be a string")
                }
                do {
                    _ = try PatternMatcher(searching: source)
                } catch {
                    throw JSONSchemaImportError(
                        path: "\(path)/pattern", keyword: "pattern",
                        message: "The pattern \"\(source)\" cannot be enforced: \(error.message)")
                }
                // A pattern anchored at both ends is a whole-string pattern (as written for `@Guide` regexes).
                if guides.pattern == nil, let whole = Self.wholeStringPattern(source) {
                    guides.pattern = RegexPattern(source: whole)
                } else {
                    guides.searchPatterns.append(source)
                }
            }
        }
        guides.minimumLength = try count("minLength", in: object, path: path)
        guides.maximumLength = try count("maxLength", in: object, path: path)
        if let minimum = guides.minimumLength, let maximum = guides.maximumLength, minimum > maximum {
            throw JSONSchemaImportError.unsatisfiable(
                path: path, keyword: "minLength", message: "\"minLength\" \(minimum) exceeds \"maxLength\" \(maximum)")
        }
        if let format = try string("format", in: object, path: path) {
            if JSONSchemaFormat.pattern(for: format) != nil {
                guides.format = format
            } else if !unenforcedFormats.contains(where: { $0.format == format }) {
                unenforcedFormats.append((format, JSONSchemaKeywords.misspelledFormat(format)))
            }
        }
        return guides
    }

    /// The whole-string pattern a search pattern anchored at both ends stands for: `^(?:X)$` gives `X`, other
    /// anchored patterns themselves; nil when the pattern is not anchored at both ends as a whole.
    static func wholeStringPattern(_ source: String) -> String? {
        let scalars = Array(source.unicodeScalars)
        guard scalars.count >= 2, scalars.first == "^", scalars.last == "$",
            scalars.dropLast().reversed().prefix(while: { $0 == "\\" }).count % 2 == 0
        else { return nil }
        // The depth at each position, to find top-level alternation and the group around everything.
        var depth = 0
        var inClass = false
        var index = 1
        var outerGroupCloses: Int?
        while index < scalars.count - 1 {
            switch scalars[index] {
            case "\\": index += 1
            case "[" where !inClass: inClass = true
            case "]" where inClass: inClass = false
            case "(" where !inClass: depth += 1
            case ")" where !inClass:
                depth -= 1
                if depth == 0, outerGroupCloses == nil { outerGroupCloses = index }
            case "|" where !inClass && depth == 0: return nil
            default: break
            }
            index += 1
        }
        let text = String(String.UnicodeScalarView(scalars))
        if scalars.count > 5, scalars[1...3].elementsEqual("(?:".unicodeScalars), outerGroupCloses == scalars.count - 2 {
            return String(String.UnicodeScalarView(scalars[4..<(scalars.count - 2)]))
        }
        return text
    }

    private func bounds(_ object: JSONSchemaObject, integer: Bool, path: String) throws -> GenerationSchema.NumericBounds {
        var bounds = GenerationSchema.NumericBounds(
            minimum: try number("minimum", in: object, path: path), maximum: try number("maximum", in: object, path: path))
        if let exclusive = try number("exclusiveMinimum", in: object, path: path), exclusive >= (bounds.minimum ?? -.infinity) {
            bounds.minimum = exclusive
            bounds.isMinimumExclusive = true
        }
        if let exclusive = try number("exclusiveMaximum", in: object, path: path), exclusive <= (bounds.maximum ?? .infinity) {
            bounds.maximum = exclusive
            bounds.isMaximumExclusive = true
        }
        if let divisor = try number("multipleOf", in: object, path: path) {
            guard divisor > 0 else {
                throw JSONSchemaImportError(path: "\(path)/multipleOf", keyword: "multipleOf", message: "\"multipleOf\" must be positive")
            }
            // A multiple of 1 is any integer: nothing more to say of an integer, but it makes a number whole.
            if divisor != 1 || !integer { bounds.multipleOf = divisor }
        }
        if let low = bounds.minimum, let high = bounds.maximum {
            let empty: Bool
            // A multiple of 1 is an integer, whatever the type says.
            let whole = integer || bounds.multipleOf == 1
            if whole {
                let first = bounds.isMinimumExclusive ? low.rounded(.down) + 1 : low.rounded(.up)
                let last = bounds.isMaximumExclusive ? high.rounded(.up) - 1 : high.rounded(.down)
                empty = first > last
            } else {
                empty = low > high || (low == high && (bounds.isMinimumExclusive || bounds.isMaximumExclusive))
            }
            if empty {
                throw JSONSchemaImportError.unsatisfiable(
                    path: path, keyword: bounds.isMinimumExclusive ? "exclusiveMinimum" : "minimum",
                    message: "The bounds allow no \(integer ? "integer" : whole ? "multiple of 1" : "number")")
            }
        }
        return bounds
    }

    // MARK: Enumerations and constants

    private mutating func literals(
        _ object: JSONSchemaObject, title: String?, description: String?, path: String
    ) throws -> GenerationSchema.Node {
        let keyword = object["const"] != nil ? "const" : "enum"
        var values: [JSONSchemaValue]
        if let constant = object["const"] {
            values = [constant]
        } else {
            guard case .array(let members)? = object["enum"] else {
                throw JSONSchemaImportError(path: "\(path)/enum", keyword: "enum", message: "\"enum\" must be an array")
            }
            values = members
        }
        if let constant = object["const"], case .array(let members)? = object["enum"] {
            values = members.contains(constant) ? [constant] : []
        }
        // Members must also satisfy the schema's other keywords.
        let rest = object.removing(["enum", "const"])
        let validator = self.validator
        values = try values.filter { value in
            guard let valid = validator.validates(value, .object(rest)) else {
                throw JSONSchemaImportError(
                    path: path, keyword: keyword,
                    message: "\"\(keyword)\" cannot be checked against the keywords beside it")
            }
            return valid
        }
        // Hashed, since an enum may list hundreds of thousands of members, by their code points, as JSON compares
        // strings ("é" and "e\u{301}" are two members, though Swift's `==` finds them equal): strings as they are,
        // the rest by their text with keys sorted (numbers by value).
        var unique: [JSONSchemaValue] = []
        var seenStrings: Set<[UInt8]> = []
        var seenOthers: Set<[UInt8]> = []
        for value in values {
            let isNew = if case .string(let text) = value {
                seenStrings.insert(Array(text.utf8)).inserted
            } else {
                seenOthers.insert(Array(value.unorderedCanonicalText.utf8)).inserted
            }
            if isNew { unique.append(value) }
        }
        guard !unique.isEmpty else {
            throw JSONSchemaImportError.unsatisfiable(path: path, keyword: keyword, message: "No \"\(keyword)\" value satisfies the schema")
        }
        // Numbers are read as `Double`s, so past 2^53 a value is already rounded here, and the answer written from it
        // would read back as another number: `9007199254740993` would come out as `…992`, outside the enumeration.
        let exact = Double(GenerationSchema.largestExactInteger)
        if let large = unique.lazy.compactMap({ $0.largestNumber }).first(where: { abs($0) > exact }) {
            let read = JSONSchemaValue.numberText(large)
            throw JSONSchemaImportError(
                path: path, keyword: keyword,
                message: "\(keyword == "enum" ? "An" : "A") \"\(keyword)\" value holds a number beyond "
                    + "±\(GenerationSchema.largestExactInteger), the integers read back exactly"
                    + (read.count <= 24 ? " (it reads as \(read))" : ""))
        }
        let strings = unique.compactMap { if case .string(let text) = $0 { text } else { nil } }
        let others = unique.filter { if case .string = $0 { false } else { true } }
        let stringNode: GenerationSchema.Node?
        if strings.isEmpty {
            stringNode = nil
        } else if object["const"] != nil {
            stringNode = .string(.init(choices: strings, isConstant: true))
        } else if let title, others.isEmpty {
            stringNode = .enumeration(.init(name: title, description: description, choices: strings))
        } else {
            stringNode = .string(.init(choices: strings))
        }
        let nodes = [stringNode].compactMap { $0 } + others.map { GenerationSchema.Node.constant($0.canonicalText) }
        if nodes.count == 1 { return nodes[0] }
        return .anyOf(.init(name: title ?? "AnyOf", description: description, choices: nodes))
    }
}

extension GenerationSchema.Node {
    /// This node with its type name replaced (for definitions named by their `$defs` key).
    func renamed(_ name: String) -> Self {
        switch self {
        case .object(var node): node.name = name; return .object(node)
        case .enumeration(var node): node.name = name; return .enumeration(node)
        case .anyOf(var node): node.name = name; return .anyOf(node)
        case .string(let guides) where guides.choices != nil && !guides.isConstant && guides.pattern == nil
            && !guides.hasJSONSchemaGuides:
            return .enumeration(.init(name: name, choices: guides.choices ?? []))
        default: return self
        }
    }
}
