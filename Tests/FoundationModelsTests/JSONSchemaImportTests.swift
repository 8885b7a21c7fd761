import FMDecoding
import Foundation
@testable import FoundationModels
import Testing

/// What the JSON Schema importer enforces, which generation rules narrow, and what it refuses — judged by what the
/// compiled grammar accepts (compact JSON, properties in declared order).
struct JSONSchemaImportTests {
    static let bytes: TokenVocabulary = {
        var tokens: [[UInt8]] = (0...255).map { [UInt8($0)] }
        tokens.append([])
        return TokenVocabulary(tokens: tokens, eosTokenIDs: [256])
    }()

    static func matcher(_ schema: String) throws -> GrammarMatcher {
        let imported = try GenerationSchema.importing(jsonSchema: schema)
        let grammar = try Grammar(compiling: imported.schema.decodingDocument())
        return TokenConstraint(grammar: grammar, vocabulary: bytes).makeMatcher()
    }

    /// An object whose property refers to D0, where each Dn only names D(n+1) and the last is a small integer.
    static func aliasChain(_ length: Int) -> String {
        let links = (0..<length).map { ##""D\##($0)":{"$ref":"#/$defs/D\##($0 + 1)"}"## }
        return ##"{"$defs":{"## + links.joined(separator: ",") + ##","D\##(length)":{"type":"integer","minimum":0,"maximum":9}},"##
            + ##""type":"object","properties":{"a":{"$ref":"#/$defs/D0"}},"required":["a"]}"##
    }

    /// (what, schema, accepted texts, rejected texts)
    static let cases: [(String, String, [String], [String])] = [
        ("only declared properties under additionalProperties: true",
         #"{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":true}"#,
         [#"{"a":1}"#, "{}"], [#"{"a":1,"b":2}"#, #"{"a":"x"}"#]),
        ("an object declaring only its values is a map",
         #"{"type":"object","additionalProperties":{"type":"integer"}}"#,
         ["{}", #"{"a":1,"b c":-2}"#, #"{"a":1,"a":2}"#], [#"{"a":"x"}"#, #"{"a":1,}"#, "[]"]),
        ("a bare object holds any values",
         #"{"type":"object"}"#,
         ["{}", #"{"a":[1,{"b":null}],"c":{"d":{}}}"#], ["[]", #"{"a"}"#]),
        ("additionalProperties: false leaves the empty object",
         #"{"type":"object","additionalProperties":false}"#,
         ["{}"], [#"{"a":1}"#]),
        ("a required name declared only by required takes additionalProperties' schema",
         #"{"type":"object","required":["id"],"additionalProperties":{"type":"string"}}"#,
         [#"{"id":"x"}"#], ["{}", #"{"id":1}"#]),
        ("patternProperties merge into matching declared properties",
         #"{"type":"object","properties":{"x_a":{"type":"integer"}},"patternProperties":{"^x_":{"minimum":0}},"required":["x_a"]}"#,
         [#"{"x_a":3}"#], [#"{"x_a":-1}"#]),
        ("a type array is a union, each type with its own keywords",
         #"{"type":["string","null"],"maxLength":2}"#, [#""ab""#, "null"], [#""abc""#, "1"]),
        ("allOf merges properties and bounds",
         #"{"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"properties":{"a":{"minimum":5},"b":{"type":"string"}}}]}"#,
         [#"{"a":5}"#, #"{"a":6,"b":"x"}"#], [#"{"a":4}"#, "{}"]),
        ("one part's additionalProperties: false excludes another part's properties",
         #"{"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false},{"properties":{"b":{"type":"integer"}}}]}"#,
         [#"{"a":1}"#, "{}"], [#"{"b":1}"#, #"{"a":1,"b":1}"#]),
        ("patterns and lengths intersect",
         #"{"type":"string","pattern":"^[a-z]+$","minLength":2,"maxLength":3}"#,
         [#""ab""#, #""abc""#], [#""a""#, #""abcd""#, #""AB""#]),
        ("a pattern matches anywhere unless anchored", #"{"type":"string","pattern":"b+"}"#,
         [#""abba""#, #""b""#], [#""ac""#, #""""#]),
        ("date format", #"{"type":"string","format":"date"}"#,
         [#""2024-02-28""#, #""1999-12-31""#], [#""2024-02-30""#, #""2024-2-1""#, #""hello""#]),
        ("ipv4 format", #"{"type":"string","format":"ipv4"}"#, [#""192.168.0.1""#], [#""256.1.1.1""#, #""01.1.1.1""#]),
        ("uuid format", #"{"type":"string","format":"uuid"}"#,
         [#""123e4567-e89b-12d3-a456-426614174000""#], [#""123e4567e89b12d3a456426614174000""#]),
        ("enum of any JSON values", #"{"enum":[1,"a",null,{"k":[true]}]}"#,
         ["1", #""a""#, "null", #"{"k":[true]}"#], ["2", #""b""#, #"{"k":[false]}"#]),
        ("enum members must satisfy the other keywords", #"{"type":"integer","enum":[1,2.5,"x",3],"minimum":2}"#,
         ["3"], ["1", "2.5", #""x""#]),
        ("integer multipleOf", #"{"type":"integer","minimum":0,"maximum":20,"multipleOf":5}"#,
         ["0", "5", "20"], ["3", "25"]),
        ("a number multipleOf 1/n generates integers", #"{"type":"number","multipleOf":0.5}"#, ["2", "-7"], ["2.5"]),
        ("a number multipleOf 1 is whole", #"{"type":"number","multipleOf":1,"minimum":0.5,"maximum":2.5}"#, ["1", "2"], ["0.86", "1.75", "3"]),
        ("an untyped multipleOf 1 is whole", #"{"multipleOf":1}"#, ["21"], ["21.75"]),
        ("multipleOf 1 in allOf", #"{"type":"number","allOf":[{"multipleOf":0.5},{"multipleOf":1}]}"#, ["4"], ["4.5"]),
        // 1 / 1e-5 is 99999.99999999999 in a Double, and 1e-5 is still 1/100000.
        ("a number multipleOf 1e-5 generates integers", #"{"type":"number","multipleOf":1e-5,"minimum":0,"maximum":3}"#, ["2"], ["2.5", "4"]),
        ("enum members that are multiples of 1e-5", #"{"enum":[1,2.000001],"multipleOf":1e-5}"#, ["1"], ["2.000001"]),
        ("allOf of multipleOf 1e-5 and 1", #"{"type":"number","allOf":[{"multipleOf":1e-5},{"multipleOf":1}]}"#, ["3"], ["3.5"]),
        ("anyOf leaves out a multiple of 1 with no whole number in range",
         #"{"anyOf":[{"type":"number","multipleOf":1,"minimum":0.5,"maximum":0.9},{"type":"string"}]}"#, [#""a""#], ["0.7"]),
        ("exclusive integer bounds", #"{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":3}"#,
         ["1", "2"], ["0", "3"]),
        ("exclusive number bounds", #"{"type":"number","exclusiveMinimum":0.5}"#, ["0.50000001", "1"], ["0.5", "0.4"]),
        ("draft-4 boolean exclusiveMinimum",
         #"{"$schema":"http://json-schema.org/draft-04/schema#","type":"integer","minimum":1,"exclusiveMinimum":true}"#,
         ["2"], ["1"]),
        ("an array without items holds at most 8 values", #"{"type":"array"}"#,
         ["[]", #"[1,"a",null,[]]"#], ["[1,1,1,1,1,1,1,1,1]"]),
        ("prefixItems with items: false",
         #"{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}"#,
         [#"[1,"a"]"#, "[1]", "[]"], [#"[1,"a",2]"#, #"["a"]"#]),
        ("draft-7 tuple items with additionalItems",
         #"{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"boolean"}],"additionalItems":{"type":"null"}}"#,
         ["[true,null,null]"], ["[true,true]", "[null]"]),
        ("uniqueItems", #"{"type":"array","items":{"type":"integer"},"uniqueItems":true}"#, ["[1,2]"], ["[1,1]"]),
        ("oneOf with a discriminator",
         #"{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"},"x":{"type":"integer"}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"}},"required":["kind"]}]}"#,
         [#"{"kind":"a","x":1}"#, #"{"kind":"b"}"#], [#"{"kind":"c"}"#]),
        ("oneOf of different types", #"{"oneOf":[{"type":"string"},{"type":"integer"}]}"#, [#""x""#, "3"], ["true"]),
        ("$ref beside other keywords (2020-12)", ##"{"$defs":{"n":{"type":"integer"}},"$ref":"#/$defs/n","minimum":3}"##,
         ["3"], ["2"]),
        ("$ref overrides the keywords beside it (draft 7)",
         ##"{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"integer"}},"$ref":"#/definitions/n","minimum":3}"##,
         ["2"], [#""x""#]),
        ("recursion through the root", ##"{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#"}}}}"##,
         [#"{"children":[{"children":[]}]}"#, "{}"], [#"{"children":[1]}"#]),
        ("minProperties makes optional properties required",
         #"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"minProperties":1}"#,
         [#"{"a":1}"#, #"{"a":1,"b":2}"#], ["{}", #"{"b":2}"#]),
        ("maxProperties leaves out optional properties beyond it",
         #"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"maxProperties":1}"#,
         [#"{"a":1}"#, "{}"], [#"{"a":1,"b":2}"#, #"{"b":2}"#]),
        ("dependentRequired makes the dependents required",
         #"{"type":"object","properties":{"card":{"type":"string"},"address":{"type":"string"}},"dependentRequired":{"card":["address"]}}"#,
         [#"{"address":"y"}"#, #"{"card":"x","address":"y"}"#], [#"{"card":"x"}"#]),
        ("contains makes the first element match", #"{"type":"array","items":{"type":"integer"},"contains":{"minimum":10}}"#,
         ["[10]", "[11,1]"], ["[]", "[1,11]"]),
        ("an if without then or else constrains nothing", #"{"type":"integer","if":{"minimum":3}}"#, ["1"], [#""x""#]),
        ("a schema without type generates what its keywords describe", #"{"properties":{"a":{"type":"integer"}}}"#,
         [#"{"a":1}"#], [#""a""#]),
        ("an array without items but with a long minItems is generated at its minimum length",
         #"{"type":"array","minItems":10}"#, ["[" + Array(repeating: "1", count: 10).joined(separator: ",") + "]"], ["[1,2]"]),
        ("an anyOf alternative whose bounds hold no integer is left out",
         #"{"anyOf":[{"type":"integer","minimum":5,"maximum":1},{"type":"string","maxLength":4}]}"#,
         [#""ab""#], ["3", "5"]),
        ("an alternative whose exclusive bounds hold no integer is left out",
         #"{"anyOf":[{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":2},{"type":"null"}]}"#,
         ["null"], ["1", "2"]),
        ("a type of a type list that its keywords leave empty is left out",
         #"{"type":["integer","string"],"minLength":5,"maxLength":1}"#, ["3"], [#""abcde""#, #""a""#]),
        ("a oneOf alternative whose bounds cross is left out, and excludes the others",
         #"{"oneOf":[{"type":"integer","minimum":5,"maximum":1},{"type":"integer","minimum":0,"maximum":2},{"type":"string","minLength":3,"maxLength":1},{"type":"string"}]}"#,
         ["0", "2", #""ab""#], ["3", "5"]),
        ("a oneOf alternative whose enum no member of satisfies is left out",
         #"{"oneOf":[{"enum":[1,2],"type":"string"},{"type":"boolean"}]}"#, ["true"], ["1"]),
        ("a chain of 20 definitions that only name the next is no nesting",
         aliasChain(20), [#"{"a":3}"#], [#"{"a":10}"#, "{}"]),
        ("an optional property no value satisfies is left out, as a false one is",
         #"{"type":"object","properties":{"u":{"type":"integer","minimum":3,"maximum":2},"v":{"type":"boolean"}}}"#,
         ["{}", #"{"v":true}"#], [#"{"u":3}"#]),
        ("an alternative whose required property allows no value is left out",
         #"{"anyOf":[{"type":"object","properties":{"s":{"type":"string","minLength":3,"maxLength":1}},"required":["s"]},{"type":"null"}]}"#,
         ["null"], [#"{"s":"abc"}"#, "{}"]),
        ("unevaluatedProperties alone is the schema of a map's values",
         #"{"type":"object","unevaluatedProperties":{"type":"integer"}}"#, ["{}", #"{"a":1,"b":2}"#], [#"{"a":"x"}"#]),
        ("an alternative that requires a property it forbids is left out",
         #"{"anyOf":[{"type":"object","required":["x"],"properties":{"x":false}},{"type":"boolean"}]}"#,
         ["false"], ["{}", #"{"x":1}"#]),
    ]

    /// A divisor that is 1/n neither as a Double's division reads it nor as a decimal (1/49 written to 17 digits)
    /// is refused, rather than generating integers most of which are not its multiples.
    @Test func aDivisorThatIsNotOneOverNIsRefused() {
        #expect(throws: (any Error).self) { try Self.matcher(#"{"type":"number","multipleOf":0.02040816326530612}"#) }
        #expect(throws: (any Error).self) { try Self.matcher(#"{"type":"number","multipleOf":0.3}"#) }
    }

    /// Enum members that differ only in a canonically equivalent spelling are two members, as JSON compares
    /// strings by code points: both can be generated, and a unique list of two can hold them.
    @Test func enumMembersSwiftFindsEqualStayApart() throws {
        let precomposed = "\"caf\u{E9}\"", decomposed = "\"cafe\u{301}\""
        let single = try Self.matcher(#"{"enum":["caf\u00e9","cafe\u0301"]}"#)
        #expect(single.acceptsCompletely(precomposed) && single.acceptsCompletely(decomposed))
        let pair = try Self.matcher(#"{"type":"array","items":{"enum":["caf\u00e9","cafe\u0301"]},"minItems":2,"maxItems":2,"uniqueItems":true}"#)
        #expect(pair.acceptsCompletely("[\(precomposed),\(decomposed)]"))
        #expect(!pair.acceptsCompletely("[\(precomposed),\(precomposed)]"))
        let lists = try Self.matcher(#"{"enum":[["caf\u00e9"],["cafe\u0301"]]}"#)
        #expect(lists.acceptsCompletely("[\(precomposed)]") && lists.acceptsCompletely("[\(decomposed)]"))
    }

    @Test(arguments: cases)
    func grammarFollowsTheSchema(_ testCase: (String, String, [String], [String])) throws {
        let (what, schema, accepted, rejected) = testCase
        let matcher = try Self.matcher(schema)
        for text in accepted { #expect(matcher.acceptsCompletely(text), "\(what): \(text) should be accepted") }
        for text in rejected { #expect(!matcher.acceptsCompletely(text), "\(what): \(text) should be rejected") }
    }

    @Test(arguments: [
        (#"{"type":"string","const":1}"#, "const"),
        (#"{"type":"object","properties":{"a":{"type":"integer"}},"required":["b"],"additionalProperties":false}"#,
         "additionalProperties"),
        (#"{"type":"object","required":["a","b"],"maxProperties":1}"#, "maxProperties"),
        (#"{"type":"string","minLength":5,"maxLength":2}"#, "minLength"),
        (#"{"type":"integer","minimum":1.5,"maximum":1.7}"#, "minimum"),
        // A name only `required` lists is the outermost unevaluatedProperties' to judge, merged or not.
        (#"{"type":"object","allOf":[{"properties":{"a":{"type":"integer"}}}],"unevaluatedProperties":false,"required":["zz"]}"#,
         "additionalProperties"),
        (#"{"type":"number","exclusiveMinimum":1,"maximum":1}"#, "exclusiveMinimum"),
        (#"{"anyOf":[{"type":"string","minLength":5,"maxLength":2},{"type":"array","minItems":2,"maxItems":1}]}"#, "anyOf"),
        // Placing `contains` after the positional items is stricter than JSON Schema (["a",5] is valid), so this
        // alternative is not left out as empty: a oneOf could then generate a value both alternatives match.
        (#"{"oneOf":[{"type":"array","prefixItems":[{"type":"string"},true],"contains":{"type":"integer"},"maxItems":2},{"type":"array","maxItems":2}]}"#,
         "contains"),
        // The allOf part's unevaluatedProperties does not see "c", which the outer anyOf requires: no value is valid.
        (#"{"type":"object","anyOf":[{"properties":{"c":{"type":"integer"}},"required":["c"]}],"allOf":[{"anyOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}]}"#,
         "anyOf"),
        (#"{"type":"string","pattern":"(a)\\1"}"#, "pattern"),
        (#"{"allOf":[{"type":"string"},{"type":"integer"}]}"#, "allOf"),
        (#"{"type":"array","items":{"type":"integer"},"uniqueItems":true,"contains":{"minimum":1}}"#, "contains"),
        (##"{"$defs":{"a":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"required":["a"]}},"$ref":"#/$defs/a"}"##,
         "recursion"),
    ])
    func refusalsNameTheKeyword(_ schema: String, _ keyword: String) {
        Self.refuses(schema, naming: keyword)
    }

    /// `allOf` over mutually recursive references used to overflow the stack while merging (a schema from
    /// JSONSchemaBench's handwritten set); it must end in a refusal or an import, never a crash.
    @Test func allOfOverMutuallyRecursiveReferencesTerminates() {
        let schema = ##"{"allOf":[{"$ref":"#/definitions/x0"},{"$ref":"#/definitions/y0"}],"definitions":{"x0":{"additionalProperties":{"allOf":[{"$ref":"#/definitions/x1"},{"multipleOf":2}]}},"x1":{"additionalProperties":{"$ref":"#/definitions/x0"}},"y0":{"additionalProperties":{"allOf":[{"$ref":"#/definitions/y1"},{"multipleOf":3}]}},"y1":{"additionalProperties":{"$ref":"#/definitions/y2"}},"y2":{"additionalProperties":{"$ref":"#/definitions/y0"}}}}"##
        do { _ = try GenerationSchema.importing(jsonSchema: schema) } catch is JSONSchemaImportError {} catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// Records an issue unless importing `schema` fails with an error naming `keyword`.
    static func refuses(_ schema: String, naming keyword: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try GenerationSchema.importing(jsonSchema: schema)
            Issue.record("\(schema) imported", sourceLocation: sourceLocation)
        } catch let error as JSONSchemaImportError {
            #expect(error.keyword == keyword, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func annotationsAreIgnoredWithAWarning() throws {
        let imported = try GenerationSchema.importing(jsonSchema: #"""
            {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/s",
             "$comment": "c", "title": "T", "description": "d", "type": "object", "x-vendor": 1,
             "properties": {"a": {"type": "string", "examples": ["x"], "default": "x", "deprecated": true,
                                  "readOnly": true, "writeOnly": false, "decription": "typo"},
                            "when": {"type": "string", "format": "int64"}}}
            """#)
        let warnings = imported.warnings.joined(separator: "\n")
        for keyword in ["$comment", "x-vendor", "examples", "default", "deprecated", "readOnly",
                        "writeOnly", "decription"] {
            #expect(warnings.contains(keyword), "\(keyword) missing from \(warnings)")
        }
        // Read, not ignored: the dialect and the document's id take part in resolving references.
        for keyword in ["title", "$schema", "$id"] {
            #expect(!warnings.contains(keyword), "\(keyword) in \(warnings)")
        }
        #expect(warnings.contains("int64"))
    }

    /// A union member that allows no value is left out with a warning that says why.
    @Test func emptyUnionMembersAreNamed() throws {
        let imported = try GenerationSchema.importing(
            jsonSchema: #"{"type":"object","properties":{"a":{"anyOf":[{"type":"string","minLength":5,"maxLength":1},{"type":"boolean"}]}}}"#)
        #expect(imported.warnings.contains(
            #"Parts that allow no value (union members, optional properties) are left out: "minLength" 5 exceeds "maxLength" 1 at #/properties/a/anyOf/0."#),
            "\(imported.warnings)")
    }

    /// A near miss of a keyword is named; a key far longer than any keyword is compared with none of them.
    @Test func misspelledKeywordsAreNamedAndLongKeysSkipped() {
        #expect(JSONSchemaKeywords.misspelled("maxLenght") == "maxLength")
        #expect(JSONSchemaKeywords.misspelled("Required") == "required")
        #expect(JSONSchemaKeywords.misspelled(String(repeating: "a", count: 100_000)) == nil)
        #expect(JSONSchemaKeywords.misspelled("maxLengthh") == "maxLength")
        #expect(JSONSchemaKeywords.misspelledFormat("date-tme") == "date-time")
        #expect(JSONSchemaKeywords.misspelledFormat("UUID") == "uuid")
        #expect(JSONSchemaKeywords.misspelledFormat("date") == nil, "an enforced format")
        for other in ["url", "uuid4", "guid", "ulid", "int64", "data", "color", "emial"] {
            #expect(JSONSchemaKeywords.misspelledFormat(other) == nil, "\(other): a short format's neighbours are formats of their own")
        }
        let imported = try? GenerationSchema.importing(jsonSchema: #"{"type":"string","format":"hostnme"}"#)
        #expect(imported?.warnings == ["Formats not enforced (strings are unconstrained): hostnme (did you mean hostname?)."], "\(imported?.warnings ?? [])")
    }

    /// `enum` members that JSON Schema calls equal are listed once: objects whatever their key order, numbers
    /// by value.
    @Test func equalEnumMembersAreListedOnce() throws {
        let imported = try GenerationSchema.importing(
            jsonSchema: #"{"enum":[{"a":1,"b":2},{"b":2,"a":1.0},1,1.0,"x","x",[1,{"c":null}],[1.0,{"c":null}]]}"#)
        guard case .anyOf(let union) = imported.schema.root else {
            Issue.record("not a union: \(imported.schema.root)")
            return
        }
        #expect(union.choices.count == 4, "\(union.choices)")
    }

    /// An `enum` or `const` number past 2^53 − 1 is refused, naming the keyword: read as a `Double` it is already
    /// rounded (`9007199254740993` is `…992`), so an answer holding it would read back as a value the schema lacks.
    @Test func enumAndConstNumbersPastTheExactIntegersAreRefused() throws {
        for schema in [
            #"{"type":"object","properties":{"a":{"const":9007199254740993}},"required":["a"]}"#,
            #"{"enum":[1,12345678901234567890]}"#,
            #"{"enum":[-9007199254740993]}"#,
            #"{"const":{"ids":[1,[1e300]]}}"#,
        ] {
            do {
                _ = try GenerationSchema.importing(jsonSchema: schema)
                Issue.record("\(schema) was imported")
            } catch let error as JSONSchemaImportError {
                #expect(["enum", "const"].contains(error.keyword) && error.message.contains("±9007199254740991"), "\(schema): \(error)")
            }
        }
        let negative = try #require(throws: JSONSchemaImportError.self) {
            try GenerationSchema.importing(jsonSchema: #"{"enum":[-9007199254740993]}"#)
        }
        #expect(negative.message.hasSuffix("(it reads as -9007199254740992)"), "the sign is kept: \(negative)")
        // The largest exact integers, and fractions, are still enforced.
        for text in ["9007199254740991", "-9007199254740991", "0.5"] {
            #expect(try Self.matcher(#"{"enum":[9007199254740991,-9007199254740991,0.5]}"#).acceptsCompletely(text), "\(text)")
        }
    }

    /// A keyword written twice in one object is refused: the last would otherwise win, and the constraints of the
    /// first would be dropped without a word.
    @Test func aKeywordWrittenTwiceIsRefused() throws {
        let schema = #"{"type":"object","properties":{"a":{"type":"string"}},"properties":{"b":{"type":"string"}}}"#
        do {
            _ = try GenerationSchema.importing(jsonSchema: schema)
            Issue.record("imported")
        } catch let error as JSONSchemaImportError {
            #expect(error.description.contains(#"The member "properties" appears twice"#), "\(error)")
        }
        #expect(throws: JSONSchemaImportError.self) { try GenerationSchema(jsonSchema: #"{"enum":["a"],"enum":["b"]}"#) }
    }

    /// Keys that only `patternProperties` allows are valid but never generated: said, not silently left out.
    @Test func patternPropertiesThatAddNoKeyAreNamed() throws {
        let imported = try GenerationSchema.importing(jsonSchema: #"""
            {"type": "object", "properties": {"inner": {"type": "object", "properties": {"a": {"type": "string"}},
                                                        "patternProperties": {"^x-": {"type": "string"}}}},
             "patternProperties": {"^x": {"type": "string"}}}
            """#)
        #expect(imported.warnings.contains(
            #"Keys that only "patternProperties" names are never generated; answers hold the declared properties (at #, #/properties/inner)."#),
            "\(imported.warnings)")
        let plain = try GenerationSchema.importing(jsonSchema: #"{"type":"object","properties":{"a":{"type":"string"}}}"#)
        #expect(plain.warnings.isEmpty)
    }

    @Test func writtenSchemasReimportToTheSameGrammar() throws {
        let schema = #"""
            {"type": "object", "properties": {
              "id": {"type": "string", "format": "uuid"},
              "name": {"type": "string", "minLength": 1, "maxLength": 40, "pattern": "[A-Z]"},
              "size": {"type": "integer", "exclusiveMinimum": 0, "multipleOf": 4, "maximum": 64},
              "ratio": {"type": "number", "exclusiveMaximum": 1},
              "tags": {"type": "array", "items": {"enum": ["a", "b", 3]}, "uniqueItems": true},
              "pair": {"type": "array", "prefixItems": [{"type": "boolean"}, {"const": {"k": null}}], "items": false},
              "kind": {"oneOf": [{"type": "string"}, {"type": "null"}]}},
             "required": ["id", "name"]}
            """#
        let first = try GenerationSchema.importing(jsonSchema: schema).schema
        let second = try GenerationSchema.importing(jsonSchema: first.jsonSchemaString).schema
        #expect(try first.decodingDocument() == second.decodingDocument())
        #expect(first.jsonSchemaString == second.jsonSchemaString)
    }

    @Test func swiftPatternsAreWrittenAnchored() throws {
        let schema = GenerationSchema(root: .string(.init(pattern: RegexPattern(source: "[a-z]+|[0-9]+"))))
        #expect(schema.jsonSchemaString.contains(#""pattern":"^(?:[a-z]+|[0-9]+)$""#))
        let reimported = try GenerationSchema(jsonSchema: schema.jsonSchemaString)
        #expect(try reimported.decodingDocument().root == .string(.pattern("[a-z]+|[0-9]+")))
    }

    @Test func nestedImportedObjectsAreSpelledOutInThePrompt() throws {
        let schema = try GenerationSchema(jsonSchema: #"""
            {"type": "object", "properties": {"points": {"type": "array", "items": {"type": "object",
             "properties": {"latitude": {"type": "number"}, "longitude": {"type": "number"}}}}}}
            """#)
        #expect(schema.promptDescription.contains(#""latitude"?: number"#))
    }
}
