import FMLlama
import Foundation
@testable import FoundationModels
import Testing

/// Mutated schemas, random JSON values as schemas and reference loops: importing either succeeds or throws
/// ``JSONSchemaImportError`` — never another error, a trap, a stack overflow or a hang.
@Suite(.timeLimit(.minutes(1)))
struct JSONSchemaImportFuzzTests {
    /// Imports `document` and records anything but success or the importer's own error, or an import that is slow
    /// enough to suggest work exponential in the document.
    @discardableResult
    static func importOrTypedError(_ document: GeneratedContent, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let clock = ContinuousClock()
        let start = clock.now
        defer {
            let elapsed = clock.now - start
            if elapsed > .seconds(5) {
                Issue.record("importing took \(elapsed): \(document.compactJSONString)", sourceLocation: sourceLocation)
            }
        }
        do {
            _ = try GenerationSchema.importing(jsonSchema: document)
            return true
        } catch is JSONSchemaImportError {
            return false
        } catch {
            Issue.record("\(document.compactJSONString) threw \(type(of: error)): \(error)", sourceLocation: sourceLocation)
            return false
        }
    }

    /// Keywords the importer reads, refuses or ignores, plus the reference and identifier ones.
    static let keywords = [
        "type", "properties", "required", "additionalProperties", "patternProperties", "propertyNames", "items",
        "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains", "enum",
        "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
        "pattern", "format", "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "$ref", "$defs", "definitions",
        "$anchor", "$id", "title", "description", "default", "dependentRequired", "unevaluatedProperties",
    ]

    /// References into the shapes the generator builds, including the document itself.
    static let references = ["#", "#/$defs/a", "#/$defs/b", "#/definitions/a", "#/properties/p", "#/items", "#x", "#/$defs/missing", "other.json"]

    /// A random JSON value biased toward schemas: objects of keywords whose values are schemas, lists, bounds,
    /// type names, patterns and references.
    static func randomSchema(depth: Int, using generator: inout SeededGenerator) -> GeneratedContent {
        let leaf = depth > 3
        switch Int.random(in: 0..<(leaf ? 6 : 10), using: &generator) {
        case 0: return GeneratedContent(kind: .bool(Bool.random(using: &generator)))
        case 1: return .number([0, 1, -1, 2.5, 1e9, 1e300, -3, 1000].randomElement(using: &generator)!)
        case 2:
            return .text(["string", "integer", "number", "object", "array", "boolean", "null", "a", "^a+$", "(", "date",
                          "a{1000}{1000}", "#", "#/$defs/a", "x"].randomElement(using: &generator)!)
        case 3: return GeneratedContent(kind: .null)
        case 4: return .object([("$ref", .text(references.randomElement(using: &generator)!))])
        case 5: return .object([("type", .text(["string", "integer", "object", "array"].randomElement(using: &generator)!))])
        case 6, 7:
            let count = Int.random(in: 0...4, using: &generator)
            return GeneratedContent(kind: .array((0..<count).map { _ in randomSchema(depth: depth + 1, using: &generator) }))
        default:
            var members: [(String, GeneratedContent)] = []
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                let key = keywords.randomElement(using: &generator)!
                guard !members.contains(where: { $0.0 == key }) else { continue }
                let value: GeneratedContent
                switch key {
                case "properties", "$defs", "definitions", "patternProperties", "dependentRequired":
                    let names = key == "patternProperties" ? ["^p", "a+", "["] : ["a", "b", "p"]
                    value = .object(names.prefix(Int.random(in: 0...3, using: &generator)).map {
                        ($0, randomSchema(depth: depth + 1, using: &generator))
                    })
                default:
                    value = randomSchema(depth: depth + 1, using: &generator)
                }
                members.append((key, value))
            }
            return .object(members)
        }
    }

    @Test func randomValuesAsSchemasImportOrThrow() {
        var generator = SeededGenerator(seed: 0x5C4E)
        var imported = 0
        var refused = 0
        for _ in 0..<1500 {
            if Self.importOrTypedError(Self.randomSchema(depth: 0, using: &generator)) { imported += 1 } else { refused += 1 }
        }
        #expect(imported > 100 && refused > 100, "imported \(imported), refused \(refused)")
    }

    /// The importer's own test schemas (all valid), each mutated at a random place in its tree.
    @Test func mutatedValidSchemasImportOrThrow() throws {
        var generator = SeededGenerator(seed: 0x3B7)
        let valid = try JSONSchemaImportTests.cases.map { try GeneratedContent(json: $0.1) }
        var imported = 0
        var refused = 0
        for _ in 0..<12 {
            for schema in valid {
                var mutant = schema
                for _ in 0..<Int.random(in: 1...3, using: &generator) { mutant = Self.mutate(mutant, using: &generator) }
                if Self.importOrTypedError(mutant) { imported += 1 } else { refused += 1 }
            }
        }
        #expect(imported > 20 && refused > 20, "imported \(imported), refused \(refused)")
    }

    /// `content` with one random node replaced by a random schema, deleted from its container, or given another keyword.
    static func mutate(_ content: GeneratedContent, using generator: inout SeededGenerator) -> GeneratedContent {
        switch content.kind {
        case .structure(let properties, let keys) where !keys.isEmpty && Int.random(in: 0..<3, using: &generator) > 0:
            var members = keys.map { ($0, properties[$0]!) }
            let index = Int.random(in: 0..<members.count, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: members[index].1 = mutate(members[index].1, using: &generator)
            case 1: members.remove(at: index)
            case 2: members[index].1 = randomSchema(depth: 2, using: &generator)
            default:
                let key = keywords.randomElement(using: &generator)!
                if !members.contains(where: { $0.0 == key }) { members.append((key, randomSchema(depth: 2, using: &generator))) }
            }
            return .object(members)
        case .array(var elements) where !elements.isEmpty && Bool.random(using: &generator):
            let index = Int.random(in: 0..<elements.count, using: &generator)
            elements[index] = mutate(elements[index], using: &generator)
            return GeneratedContent(kind: .array(elements))
        default:
            return randomSchema(depth: 2, using: &generator)
        }
    }

    /// Schemas that refer to themselves through every keyword that reaches another schema.
    static let loops: [String] = [
        ##"{"$ref":"#"}"##,
        ##"{"allOf":[{"$ref":"#"}]}"##,
        ##"{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}"##,
        ##"{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##,
        ##"{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##,
        ##"{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}"##,
        ##"{"$defs":{"a":{"$ref":"#/$defs/a","minimum":1}},"$ref":"#/$defs/a","maximum":3}"##,
        ##"{"$defs":{"a":{"properties":{"x":{"$ref":"#/$defs/a"}}}},"allOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}"##,
        ##"{"$defs":{"a":{"items":{"$ref":"#/$defs/a"}}},"allOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}"##,
        ##"{"$defs":{"a":{"propertyNames":{"$ref":"#/$defs/a"}}},"allOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}"##,
        ##"{"$defs":{"a":{"additionalProperties":{"$ref":"#/$defs/a"}}},"allOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}"##,
        ##"{"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a","enum":[1]}"##,
        ##"{"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}},"allOf":[{"$ref":"#/$defs/a"}],"const":1}"##,
        ##"{"$defs":{"a":{"oneOf":[{"$ref":"#/$defs/a"},{"type":"integer"}]}},"$ref":"#/$defs/a"}"##,
        // The literal validator follows references while checking enum members and property names.
        ##"{"enum":[[1]],"items":{"$ref":"#/$defs/a"},"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}}}"##,
        ##"{"type":"object","properties":{"k":{"type":"integer"}},"propertyNames":{"$ref":"#/$defs/a"},"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}}}"##,
        ##"{"oneOf":[{"const":1},{"$ref":"#/$defs/a"}],"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}}}"##,
        ##"{"enum":["x"],"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}},"allOf":[{"not":{"$ref":"#/$defs/a"}}]}"##,
        ##"{"type":"object","properties":{"k":{}},"propertyNames":{"$ref":"#/$defs/a"},"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}}}"##,
        ##"{"type":"object","properties":{"x":{"$ref":"#"}},"required":["x"]}"##,
        ##"{"$anchor":"x","$ref":"#x"}"##,
        ##"{"$defs":{"a":{"$ref":"#"}},"$ref":"#/$defs/a"}"##,
    ]

    @Test(arguments: loops)
    func recursiveReferenceLoopsTerminate(_ schema: String) throws {
        Self.importOrTypedError(try GeneratedContent(json: schema))
    }
}
