import FMDecoding
import Foundation
@testable import FoundationModels
import Testing

/// Schemas the importer once loosened, dropped a keyword of, or took exponential time or memory on: each must now
/// be enforced exactly (judged by what the compiled grammar accepts) or refused with an error naming the keyword.
struct JSONSchemaImportSoundnessTests {
    /// (what, schema, accepted texts, rejected texts)
    static let cases: [(String, String, [String], [String])] = [
        ("an element that contains asks for and a positional item excludes comes after the positional items",
         #"{"type":"array","prefixItems":[{"type":"integer"}],"contains":{"type":"string"},"minContains":1}"#,
         [#"[1,"a"]"#], ["[1]", "[1,2]", "[]"]),
        ("the same with two positional items and later items bounded",
         #"{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":{"type":"integer"},"contains":{"type":"integer"},"maxItems":3}"#,
         [#"["a",1,2]"#], [#"["a"]"#, #"["a",1,2,3]"#]),
        ("a dependent that is itself a trigger is required in turn",
         #"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a"],"dependentRequired":{"b":["c"],"a":["b"]},"additionalProperties":{"type":"integer"}}"#,
         [#"{"a":1,"b":2,"c":3}"#], [#"{"a":1}"#, #"{"a":1,"b":2}"#]),
        ("dependentRequired chains without declared properties",
         #"{"required":["a"],"dependentRequired":{"b":["c"],"a":["b"]}}"#,
         [#"{"a":1,"b":2,"c":3}"#], [#"{"a":1}"#, #"{"a":1,"b":2}"#]),
        ("a trigger left out for its dependent schema requires nothing",
         #"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"dependentRequired":{"a":["b"]},"dependentSchemas":{"a":{}},"maxProperties":0}"#,
         ["{}"], [#"{"b":1}"#, #"{"a":1,"b":2}"#]),
        ("a search pattern anchored at both ends keeps a group's inner $",
         #"{"type":"string","pattern":"^(\\d+$|\\d+\\.\\d+)$"}"#,
         [#""12""#, #""1.5""#], [#""12x""#, #""x""#]),
        ("an allOf part's contains keeps its default minContains of 1",
         #"{"type":"array","items":{"type":"integer"},"allOf":[{"contains":{"minimum":10},"minContains":0},{"contains":{"minimum":10}}]}"#,
         ["[10]", "[10,1]"], ["[]", "[1]"]),
        ("a minContains without contains does not lower another part's",
         #"{"type":"array","items":{"type":"integer"},"allOf":[{"minContains":0},{"contains":{"minimum":10}}]}"#,
         ["[10]"], ["[]", "[1]"]),
        ("an allOf part's unevaluatedItems does not see another part's items",
         #"{"type":"array","allOf":[{"items":{"type":"string"}},{"unevaluatedItems":false}]}"#,
         ["[]"], [#"["a"]"#]),
        ("an inner part's unevaluatedItems sees the items of its own allOf",
         ##"{"type":"array","minItems":2,"allOf":[{"$ref":"#/$defs/pair"}],"$defs":{"pair":{"allOf":[{"prefixItems":[{"type":"string"},{"type":"integer"}]}],"unevaluatedItems":false}}}"##,
         [#"["a",1]"#], [#"["a",1,2]"#, #"[1,"a"]"#, #"["a"]"#]),
        ("an inner part's unevaluatedItems sees its $ref target's items",
         ##"{"type":"array","allOf":[{"$ref":"#/$defs/t","unevaluatedItems":false}],"$defs":{"t":{"prefixItems":[{"type":"string"}]}}}"##,
         ["[]", #"["a"]"#], [#"["a","b"]"#, "[1]"]),
        ("the outermost unevaluatedItems still sees the items of its allOf",
         #"{"type":"array","allOf":[{"prefixItems":[{"type":"string"}]}],"unevaluatedItems":false}"#,
         ["[]", #"["a"]"#], [#"["a","b"]"#, "[1]"]),
        ("the outermost unevaluatedProperties sees the properties of its allOf",
         #"{"type":"object","allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]}],"properties":{"b":{"type":"integer"}},"required":["b"],"unevaluatedProperties":false}"#,
         [#"{"a":"x","b":1}"#], [#"{"b":1}"#, #"{"a":"x","b":1,"c":2}"#]),
        ("the outermost unevaluatedProperties sees the properties of a $ref in its allOf",
         ##"{"$defs":{"base":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}},"allOf":[{"$ref":"#/$defs/base"}],"properties":{"b":{"type":"boolean"}},"required":["b"],"unevaluatedProperties":false}"##,
         [#"{"a":"x","b":true}"#], [#"{"b":true}"#, #"{"a":"x","b":true,"c":1}"#]),
        ("the outermost unevaluatedProperties sees the properties of the chosen anyOf alternative",
         #"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"anyOf":[{"properties":{"b":{"const":1}},"required":["b"]},{"properties":{"c":{"const":2}},"required":["c"]}],"unevaluatedProperties":false}"#,
         [#"{"a":"x","b":1}"#, #"{"a":"x","c":2}"#], [#"{"a":"x"}"#, #"{"a":"x","b":1,"d":3}"#]),
        ("a name only required lists gets the outermost unevaluatedProperties' schema",
         #"{"type":"object","allOf":[{"properties":{"a":{"type":"integer"}}}],"unevaluatedProperties":{"type":"boolean"},"required":["zz"]}"#,
         [#"{"zz":true}"#, #"{"a":1,"zz":false}"#], [#"{"zz":1}"#, #"{"a":1,"zz":"x"}"#]),
        ("an allOf part's unevaluatedProperties does not see another part's properties",
         #"{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}},{"unevaluatedProperties":false}]}"#,
         ["{}"], [#"{"a":"x"}"#]),
        ("an inner part's unevaluatedProperties sees its own allOf, not the outer properties",
         #"{"type":"object","allOf":[{"allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]}],"unevaluatedProperties":false}],"properties":{"b":{"type":"integer"}}}"#,
         [#"{"a":"x"}"#], ["{}", #"{"a":"x","b":1}"#]),
        ("allOf reusing a reference at each of 30 levels",
         exponentialAllOf(levels: 30),
         ["3"], [#""x""#, "1.5"]),
    ]

    @Test(arguments: cases)
    func grammarFollowsTheSchema(_ testCase: (String, String, [String], [String])) throws {
        let (what, schema, accepted, rejected) = testCase
        let matcher = try JSONSchemaImportTests.matcher(schema)
        for text in accepted { #expect(matcher.acceptsCompletely(text), "\(what): \(text) should be accepted") }
        for text in rejected { #expect(!matcher.acceptsCompletely(text), "\(what): \(text) should be rejected") }
    }

    /// `{"$ref":"#/$defs/a0"}` where each `aN` is `allOf` of `aN+1` twice: 2^levels expansions if each is merged
    /// anew.
    static func exponentialAllOf(levels: Int) -> String {
        var definitions = (0..<levels).map { level in
            ##""a\##(level)":{"allOf":[{"$ref":"#/$defs/a\##(level + 1)"},{"$ref":"#/$defs/a\##(level + 1)"}]}"##
        }
        definitions.append(##""a\##(levels)":{"type":"integer"}"##)
        return ##"{"$ref":"#/$defs/a0","$defs":{"## + definitions.joined(separator: ",") + "}}"
    }

    @Test(arguments: [
        // Each one-in-pattern `$` would be dropped inside the `[\s\S]*(?:…)[\s\S]*` a search pattern becomes.
        (#"{"type":"string","pattern":"(a$|b)"}"#, "pattern"),
        (#"{"type":"string","pattern":"^(\\d+$|\\d+\\.\\d+)"}"#, "pattern"),
        // An exclusive bound past Int.max used to wrap around to Int.min and allow every integer.
        (#"{"type":"integer","exclusiveMinimum":1e19}"#, "minimum"),
        (#"{"type":"integer","exclusiveMaximum":-1e19}"#, "maximum"),
        // Checked before building a schema per needed element (this looped 10⁹ times).
        (#"{"type":"array","contains":{"type":"integer"},"minContains":1000000000,"maxItems":5}"#, "minContains"),
        (#"{"type":"array","contains":{"type":"integer"},"minContains":1000000000}"#, "minContains"),
        // A needed element that no item can be: a `false` position used to end the array before it.
        (#"{"type":"array","contains":false}"#, "contains"),
        (#"{"type":"array","items":{"type":"integer"},"contains":{"type":"string"}}"#, "contains"),
        (#"{"type":"array","prefixItems":[{"type":"integer"}],"items":false,"contains":{"type":"string"}}"#, "contains"),
        (#"{"type":"array","prefixItems":[{"type":"integer"}],"items":{"type":"integer"},"contains":{"type":"string"}}"#, "contains"),
        // `b` becomes required through `a`, but a dependent schema cannot be enforced on a required property.
        (#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a"],"dependentRequired":{"a":["b"]},"dependentSchemas":{"b":{"required":["z"]}}}"#,
         "dependentSchemas"),
        // Merged into the root, `#/$defs/s` inside `a` would resolve against the document, not `a`'s `$id`.
        (##"{"allOf":[{"$ref":"#/$defs/a"}],"$defs":{"a":{"$id":"https://example.com/a.json","$defs":{"s":{"type":"string"}},"type":"object","properties":{"p":{"$ref":"#/$defs/s"}},"required":["p"]},"s":{"type":"integer"}}}"##,
         "$id"),
        // A `$ref` inside a subschema with its own `$id`, in an `allOf` part merged there: the same.
        (##"{"type":"object","required":["p"],"properties":{"p":{"$id":"https://example.com/p.json","allOf":[{"$ref":"#/$defs/s"}],"$defs":{"s":{"type":"string"}}}},"$defs":{"s":{"type":"integer"}}}"##,
         "$id"),
        // … or an `allOf` part, or an alternative merged with the keywords beside it, that sets its own `$id`.
        (##"{"allOf":[{"$id":"https://e.com/a.json","$ref":"#/$defs/s","$defs":{"s":{"type":"string"}}}],"$defs":{"s":{"type":"integer"}}}"##,
         "$id"),
        (##"{"minLength":0,"anyOf":[{"$id":"https://e.com/x","$ref":"#/$defs/s","$defs":{"s":{"type":"string"}}},{"type":"null"}],"$defs":{"s":{"type":"integer"}}}"##,
         "$id"),
        // Draft 7 ignores the keywords beside `$ref`: both alternatives are the same schema, so not exclusive.
        (##"{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"x":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}},"oneOf":[{"$ref":"#/definitions/x","maxProperties":1},{"$ref":"#/definitions/x","minProperties":3}]}"##,
         "oneOf"),
    ])
    func refusalsNameTheKeyword(_ schema: String, _ keyword: String) {
        JSONSchemaImportTests.refuses(schema, naming: keyword)
    }

    /// Every merge of one import shares a budget of flattened schemas.
    @Test func mergingBeyondTheBudgetIsRefused() {
        let parts = Array(repeating: #"{"minimum":1}"#, count: JSONSchemaMerger.maximumFlattenedParts + 1)
        let schema = #"{"type":"integer","allOf":["# + parts.joined(separator: ",") + "]}"
        JSONSchemaImportTests.refuses(schema, naming: "allOf")
    }

    /// A map generates any keys, so no `required` or `minProperties` proves it cannot match a `oneOf` alternative.
    @Test func aMapIsNotExcludedByRequiredOrMinProperties() throws {
        let importer = JSONSchemaImporter(document: .bool(true))
        let map = GenerationSchema.Node.object(.anyObject(name: "Map"))
        for schema in [#"{"type":"object","required":["k"]}"#, #"{"type":"object","minProperties":2}"#] {
            let value = JSONSchemaValue(try GeneratedContent(json: schema))
            #expect(!importer.excludes(map, value, depth: 0), "\(schema)")
        }
    }

    /// Names written into `$ref`s are plain pointer tokens (llama.cpp's converter decodes no escapes): a name
    /// taken from a pointer, or a `$defs` key with `/`, `~` or `%`, is made one, and the written schema reads back.
    @Test func referenceNamesAreWrittenAsPlainTokens() throws {
        let schemas = [
            ##"{"type":"object","properties":{"a":{"properties":{"b":{"$ref":"#/properties/a"}}}}}"##,
            ##"{"type":"object","properties":{"x":{"$ref":"#/$defs/a~1b~0c%25d"}},"required":["x"],"$defs":{"a/b~c%d":{"type":"integer"}}}"##,
        ]
        for schema in schemas {
            let first = try GenerationSchema.importing(jsonSchema: schema).schema
            let references = first.jsonSchemaString.components(separatedBy: ##""$ref":""##).dropFirst()
                .map { String($0.prefix { $0 != "\"" }) }
            #expect(!references.isEmpty)
            for reference in references {
                #expect(reference.hasPrefix("#/$defs/") && reference.dropFirst(8).allSatisfy { $0.isLetter || $0.isNumber || "_.-".contains($0) },
                        "\(reference)")
            }
            let second = try GenerationSchema.importing(jsonSchema: first.jsonSchemaString).schema
            #expect(try first.decodingDocument() == second.decodingDocument())
            #expect(first.jsonSchemaString == second.jsonSchemaString)
        }
    }

    /// An untitled root object is named "Object"; a definition of that name must not be written as `#`.
    @Test func aDefinitionNamedLikeTheUntitledRootIsNotTheRoot() throws {
        let schema = ##"{"type":"object","properties":{"x":{"$ref":"#/$defs/Object"}},"required":["x"],"$defs":{"Object":{"type":"integer"}}}"##
        let first = try GenerationSchema.importing(jsonSchema: schema).schema
        let matcher = try JSONSchemaImportTests.matcher(first.jsonSchemaString)
        #expect(matcher.acceptsCompletely(#"{"x":1}"#), "\(first.jsonSchemaString)")
        #expect(!matcher.acceptsCompletely(#"{"x":{"x":1}}"#), "\(first.jsonSchemaString)")
    }
}
