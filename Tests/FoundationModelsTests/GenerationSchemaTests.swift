import Foundation
import FoundationModels
import FMDecoding
import Testing

struct GenerationSchemaTests {
    @Test func propertiesKeepDeclarationOrderAndGuides() throws {
        let document = try Cat.generationSchema.decodingDocument()
        #expect(document.root == .object(properties: [
            SchemaProperty(name: "name", schema: .string(.any)),
            SchemaProperty(name: "age", schema: .integer(minimum: 0, maximum: 20)),
            SchemaProperty(name: "nickname", schema: .string(.any), isOptional: true),
            SchemaProperty(name: "toys", schema: .array(items: .reference("Toy"), minimumCount: 0, maximumCount: 3,
                                                        uniqueItems: false)),
        ]))
        #expect(document.definitions["Toy"] == .object(properties: [
            SchemaProperty(name: "kind", schema: .reference("Kind")),
        ]))
        #expect(document.definitions["Kind"] == .string(.choices(["ball", "mouse"])))
    }

    @Test func recursiveTypeTerminates() throws {
        let schema = TreeNode.generationSchema
        let document = try schema.decodingDocument()
        let tree = SchemaNode.object(properties: [
            SchemaProperty(name: "name", schema: .string(.any)),
            SchemaProperty(name: "children", schema: .array(items: .reference("TreeNode"), minimumCount: 0,
                                                            maximumCount: nil, uniqueItems: false)),
        ])
        #expect(document.root == tree)
        #expect(document.definitions == ["TreeNode": tree])
        #expect(schema.jsonSchemaString.contains(##""items":{"$ref":"#"}"##))
    }

    @Test func mutuallyRecursiveTypesTerminate() throws {
        let document = try Person.generationSchema.decodingDocument()
        #expect(Set(document.definitions.keys) == ["Company", "Person"])
        #expect(document.definitions["Company"] == .object(properties: [
            SchemaProperty(name: "staff", schema: .array(items: .reference("Person"), minimumCount: 0,
                                                         maximumCount: nil, uniqueItems: false)),
        ]))
        let arrayDocument = try [TreeNode].generationSchema.decodingDocument()
        #expect(arrayDocument.root == .array(items: .reference("TreeNode"), minimumCount: 0, maximumCount: nil,
                                             uniqueItems: false))
    }

    @Test func unionOfTypes() throws {
        let document = try Shape.generationSchema.decodingDocument()
        #expect(document.root == .anyOf([.reference("Circle"), .string(.any)]))
        #expect(document.definitions["Circle"] == .object(properties: [
            SchemaProperty(name: "radius", schema: .number(minimum: 0, maximum: nil)),
        ]))
    }

    /// A `Decimal` bound with more digits than a `Double` holds is never moved outward: the minimum rounds up and
    /// the maximum down, so a value the decoder writes meets the guide as written.
    @Test func decimalBoundsRoundInward() throws {
        struct Price: Generable {
            static var generationSchema: GenerationSchema {
                GenerationSchema(type: Price.self, properties: [
                    .init(name: "above", type: Decimal.self, guides: [.range(Decimal(string: "0.30000000000000000001")!...Decimal(string: "0.4")!)]),
                    .init(name: "below", type: Decimal.self, guides: [.maximum(Decimal(string: "0.29999999999999999999")!)]),
                    .init(name: "wide", type: Decimal.self, guides: [.minimum(Decimal(string: "123456789012345.123")!)]),
                    // Float literals reach Decimal through a Double, and stay the number written.
                    .init(name: "literal", type: Decimal.self, guides: [.range(0.23...19.99)]),
                ])
            }
            init(_ content: GeneratedContent) throws {}
            var generatedContent: GeneratedContent { .null }
        }
        let document = try Price.generationSchema.decodingDocument()
        guard case .object(let properties) = document.root, properties.count == 4,
              case .number(let aboveMinimum?, let aboveMaximum?) = properties[0].schema,
              case .number(nil, let belowMaximum?) = properties[1].schema,
              case .number(let wideMinimum?, nil) = properties[2].schema,
              case .number(let literalMinimum?, let literalMaximum?) = properties[3].schema else {
            Issue.record("unexpected schema: \(document.root)")
            return
        }
        #expect(Decimal(string: "\(aboveMinimum)")! >= Decimal(string: "0.30000000000000000001")!)
        #expect(Decimal(string: "\(aboveMaximum)")! == Decimal(string: "0.4")!)
        #expect(Decimal(string: "\(belowMaximum)")! <= Decimal(string: "0.29999999999999999999")!)
        #expect(Decimal(string: "\(wideMinimum)")! >= Decimal(string: "123456789012345.123")!)
        #expect(literalMinimum == 0.23 && literalMaximum == 19.99)
        // A range that no Double's text fits inside is empty, and refused rather than widened.
        let tight = GenerationSchema.Property(name: "v", type: Decimal.self,
                                              guides: [.range(Decimal(string: "0.29999999999999999999")!...Decimal(string: "0.29999999999999999999")!)])
        #expect(throws: (any Error).self) {
            try GenerationSchema(type: Price.self, properties: [tight]).decodingDocument()
        }
    }

    /// Choice guides meet by code points, as JSON compares strings: "café" with U+00E9 and with "e" and U+0301 are
    /// two values, though Swift's `==` finds them equal.
    @Test func choiceGuidesMeetByCodePoints() throws {
        struct Drink: Generable {
            static var generationSchema: GenerationSchema {
                GenerationSchema(type: Drink.self, properties: [
                    .init(name: "both", type: String.self, guides: [.anyOf(["caf\u{E9}", "tea"]), .anyOf(["cafe\u{301}", "tea"])]),
                    .init(name: "same", type: String.self, guides: [.anyOf(["cafe\u{301}", "tea"]), .constant("cafe\u{301}")]),
                ])
            }
            init(_ content: GeneratedContent) throws {}
            var generatedContent: GeneratedContent { .null }
        }
        let document = try Drink.generationSchema.decodingDocument()
        guard case .object(let properties) = document.root, properties.count == 2,
              case .string(.choices(let both)) = properties[0].schema, case .string(.choices(let same)) = properties[1].schema else {
            Issue.record("unexpected schema: \(document.root)")
            return
        }
        #expect(both == ["tea"])
        #expect(same.map { Array($0.unicodeScalars) } == [Array("cafe\u{301}".unicodeScalars)])
    }

    @Test func everyGuideLowers() throws {
        struct AllGuides: Generable {
            static var generationSchema: GenerationSchema {
                GenerationSchema(type: AllGuides.self, properties: [
                    .init(name: "constant", type: String.self, guides: [.constant("fixed")]),
                    .init(name: "choice", type: String.self, guides: [.anyOf(["a", "b", "c"]), .anyOf(["c", "b"])]),
                    .init(name: "code", type: String.self, guides: [._pattern(/[A-Z]{3}-\d{4}/, source: #"[A-Z]{3}-\d{4}"#)]),
                    .init(name: "sku", type: String.self, guides: [/\d+/]),
                    .init(name: "int", type: Int.self, guides: [.minimum(1), .maximum(9), .range(0...5)]),
                    .init(name: "float", type: Float.self, guides: [.range(0.5...1.5)]),
                    .init(name: "double", type: Double.self, guides: [.maximum(2.5)]),
                    .init(name: "decimal", type: Decimal.self, guides: [.minimum(Decimal(string: "0.25")!)]),
                    .init(name: "exact", type: [Int].self, guides: [.count(4), .element(.range(0...9))]),
                    .init(name: "between", type: [String].self, guides: [.count(1...3)]),
                    .init(name: "bounded", type: [Bool].self, guides: [.minimumCount(2), .maximumCount(5)]),
                    .init(name: "maybe", type: Int?.self, guides: [.minimum(3)]),
                    .init(name: "maybeCode", type: String?.self, guides: [/x+/]),
                ])
            }
            init(_ content: GeneratedContent) throws {}
            var generatedContent: GeneratedContent { .null }
        }
        let document = try AllGuides.generationSchema.decodingDocument()
        guard case .object(let properties) = document.root else {
            Issue.record("expected an object")
            return
        }
        let expected: [SchemaProperty] = [
            .init(name: "constant", schema: .string(.choices(["fixed"]))),
            .init(name: "choice", schema: .string(.choices(["b", "c"]))),
            .init(name: "code", schema: .string(.pattern(#"[A-Z]{3}-\d{4}"#))),
            .init(name: "sku", schema: .string(.pattern(#"\d+"#))),
            .init(name: "int", schema: .integer(minimum: 1, maximum: 5)),
            .init(name: "float", schema: .number(minimum: 0.5, maximum: 1.5)),
            .init(name: "double", schema: .number(minimum: nil, maximum: 2.5)),
            .init(name: "decimal", schema: .number(minimum: 0.25, maximum: nil)),
            .init(name: "exact", schema: .array(items: .integer(minimum: 0, maximum: 9), minimumCount: 4,
                                                maximumCount: 4, uniqueItems: false)),
            .init(name: "between", schema: .array(items: .string(.any), minimumCount: 1, maximumCount: 3,
                                                  uniqueItems: false)),
            .init(name: "bounded", schema: .array(items: .boolean, minimumCount: 2, maximumCount: 5, uniqueItems: false)),
            .init(name: "maybe", schema: .integer(minimum: 3, maximum: nil), isOptional: true),
            .init(name: "maybeCode", schema: .string(.pattern("x+")), isOptional: true),
        ]
        #expect(properties == expected)
    }

    @Test func guidesAreInspectable() {
        #expect(GenerationGuide<[Int]>.count(2...4).constraints == [.minimumCount(2), .maximumCount(4)])
        #expect(GenerationGuide<[Int]>.element(.minimum(1)).constraints == [.element([.minimum(1)])])
        #expect(GenerationGuide<String>.pattern(/a+b/).constraints == [.pattern(RegexPattern(source: "a+b"))])
    }

    @Test func unknownPatternFailsLowering() throws {
        let schema = try GenerationSchema(
            root: DynamicGenerationSchema(name: "R", properties: [
                .init(name: "p", schema: DynamicGenerationSchema(type: String.self, guides: [
                    GenerationGuide([.pattern(RegexPattern(source: nil))]),
                ])),
            ]),
            dependencies: []
        )
        #expect {
            try schema.decodingDocument()
        } throws: { error in
            (error as? SchemaLoweringError)?.code == .unsupportedGuide
        }
    }

    /// The decoder's node for a lone property of type `type` with `guides`.
    private static func loweredProperty<Value: Generable>(_ type: Value.Type, _ guides: [GenerationGuide<Value>]) throws -> SchemaNode {
        let schema = try GenerationSchema(
            root: DynamicGenerationSchema(name: "R", properties: [
                .init(name: "p", schema: DynamicGenerationSchema(type: type, guides: guides)),
            ]),
            dependencies: [])
        guard case .object(let properties) = try schema.decodingDocument().root else { return .null }
        return properties[0].schema
    }

    /// A pattern beside choices keeps the choices it matches; none left, or a pattern without source, is an error,
    /// never a pattern dropped.
    @Test func aPatternBesideChoicesFiltersThem() throws {
        func lowered(_ guides: [GenerationGuide<String>]) throws -> SchemaNode { try Self.loweredProperty(String.self, guides) }
        #expect(try lowered([.anyOf(["a", "bb", "b"]), ._pattern(/b+/, source: "b+")]) == .string(.choices(["bb", "b"])))
        #expect(try lowered([.constant("bb"), ._pattern(/b+/, source: "b+")]) == .string(.choices(["bb"])))
        for guides: [GenerationGuide<String>] in [[.anyOf(["a", "c"]), ._pattern(/b+/, source: "b+")],
                                                  [.anyOf(["a"]), GenerationGuide([.pattern(RegexPattern(source: nil))])]] {
            #expect {
                try lowered(guides)
            } throws: { error in
                (error as? SchemaLoweringError)?.code == .unsupportedGuide
            }
        }
    }

    /// Integers are generated within ±(2^53 − 1), where every one reads back exactly as a `Double`: wider bounds
    /// are narrowed to it, and a range wholly past it is an error, never a value read back as its neighbour.
    @Test func integerBoundsStayWhereDoublesAreExact() throws {
        func lowered(_ guides: [GenerationGuide<Int>]) throws -> SchemaNode { try Self.loweredProperty(Int.self, guides) }
        let exact = 9_007_199_254_740_991
        #expect(try lowered([.range(Int.min...Int.max)]) == .integer(minimum: -exact, maximum: exact))
        #expect(try lowered([.maximum(999_999_999_999_999_999)]) == .integer(minimum: nil, maximum: exact))
        #expect(try lowered([.minimum(5_000_000_000_000_000)]) == .integer(minimum: 5_000_000_000_000_000, maximum: exact))
        #expect(try lowered([.maximum(-5_000_000_000_000_000)]) == .integer(minimum: -exact, maximum: -5_000_000_000_000_000))
        #expect(try lowered([.range(3...9)]) == .integer(minimum: 3, maximum: 9))
        // A multiple past 15 digits is listed as any other.
        let imported = try GenerationSchema.importing(jsonSchema: #"{"type":"integer","minimum":5000000000000000,"maximum":5000000000000004,"multipleOf":2}"#).schema
        #expect(try imported.decodingDocument().root == .anyOf([5_000_000_000_000_000, 5_000_000_000_000_002, 5_000_000_000_000_004].map { .literal(String($0)) }))
        for guides: [GenerationGuide<Int>] in [[.range(9_007_199_254_740_993...9_007_199_254_740_993)], [.minimum(10_000_000_000_000_000)],
                                               [.maximum(-10_000_000_000_000_000)]] {
            #expect {
                try lowered(guides)
            } throws: { error in
                (error as? SchemaLoweringError)?.code == .unsupportedGuide
            }
        }
    }

    /// A tool's parameters are an object: a structure, a map, a reference to one, or a union of such.
    @Test func schemasThatResolveToAnObject() throws {
        func resolves(_ json: String) throws -> Bool { try GenerationSchema.importing(jsonSchema: json).schema.resolvesToObject }
        #expect(try resolves(#"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#))
        #expect(try resolves(#"{"type":"object"}"#))
        #expect(try resolves(##"{"$ref":"#/$defs/Args","$defs":{"Args":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}}}"##))
        #expect(try !resolves(#"{"type":"string"}"#))
        #expect(try !resolves(#"{"type":"array","items":{"type":"integer"}}"#))
        // A definition reached by two members of a union is judged on each path.
        #expect(try resolves(##"{"anyOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/B"}],"$defs":{"A":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},"B":{"anyOf":[{"$ref":"#/$defs/A"},{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}]}}}"##))
    }

    /// A number whose multipleOf is 1/n is generated as whole numbers: a range that holds fractional multiples
    /// and no whole number is refused saying so, rather than as a range that "allows no integer".
    @Test func aFractionalMultipleOfWithoutAWholeNumberInRangeSaysWhy() throws {
        #expect {
            try GenerationSchema.importing(jsonSchema: #"{"type":"number","minimum":0.2,"maximum":0.4,"multipleOf":0.1}"#).schema.decodingDocument()
        } throws: { error in
            "\(error)".contains("generated as whole numbers only")
        }
        #expect {
            try GenerationSchema.importing(jsonSchema: #"{"type":"number","minimum":0.1,"maximum":0.2,"multipleOf":0.3}"#).schema.decodingDocument()
        } throws: { error in
            "\(error)".contains("neither a whole number nor 1/n")
        }
        let whole = try GenerationSchema.importing(jsonSchema: #"{"type":"number","minimum":0.2,"maximum":2.4,"multipleOf":0.1}"#).schema
        #expect(try whole.decodingDocument().root == .integer(minimum: 1, maximum: 2))
    }

    @Test func explicitNilMakesOptionalsNullable() throws {
        let schema = GenerationSchema(type: Cat.self, representNilExplicitlyInGeneratedContent: true, properties: [
            .init(name: "nickname", type: String?.self),
        ])
        #expect(try schema.decodingDocument().root == .object(properties: [
            SchemaProperty(name: "nickname", schema: .anyOf([.string(.any), .null])),
        ]))
    }

    @Test func primitiveSchemas() throws {
        #expect(try String.generationSchema.decodingDocument().root == .string(.any))
        #expect(try Bool.generationSchema.decodingDocument().root == .boolean)
        #expect(try Int.generationSchema.decodingDocument().root == .integer(minimum: nil, maximum: nil))
        #expect(try Decimal.generationSchema.decodingDocument().root == .number(minimum: nil, maximum: nil))
        let any = try GeneratedContent.generationSchema.decodingDocument()
        #expect(any.root == .reference(GenerationSchema.anyValueDefinitionName))
        #expect(any.definitions[GenerationSchema.anyValueDefinitionName] != nil)
    }

    @Test func jsonSchemaIsOrderedAndComplete() {
        let json = Cat.generationSchema.jsonSchemaString
        #expect(json == ##"{"title":"Cat","description":"A cat","type":"object","properties":{"name":{"type":"string"},"##
            + ##""age":{"description":"Age in years","type":"integer","minimum":0,"maximum":20},"##
            + ##""nickname":{"type":"string"},"toys":{"type":"array","items":{"$ref":"#/$defs/Toy"},"maxItems":3}},"##
            + ##""required":["name","age","toys"],"additionalProperties":false,"##
            + ##""propertyOrdering":["name","age","nickname","toys"],"$defs":{"Toy":{"title":"Toy","type":"object","##
            + ##""properties":{"kind":{"$ref":"#/$defs/Kind"}},"required":["kind"],"additionalProperties":false,"##
            + ##""propertyOrdering":["kind"]},"Kind":{"title":"Kind","description":"A toy kind","type":"string","##
            + ##""enum":["ball","mouse"]}}}"##)
    }

    @Test(arguments: [
        Cat.generationSchema, TreeNode.generationSchema, Person.generationSchema, Shape.generationSchema,
        [Cat].generationSchema, GeneratedContent.generationSchema,
        GenerationSchema(root: .object(.anyObject(name: "JSONObject"))),
    ])
    func codableRoundTrip(_ schema: GenerationSchema) throws {
        let data = try JSONEncoder().encode(schema)
        let decoded = try JSONDecoder().decode(GenerationSchema.self, from: data)
        #expect(decoded.root == schema.root)
        #expect(decoded.definitions.sorted { $0.name < $1.name } == schema.definitions.sorted { $0.name < $1.name })
        #expect(try GenerationSchema(jsonSchema: schema.jsonSchemaString).jsonSchemaString == schema.jsonSchemaString)
    }

    @Test func importsForeignJSONSchema() throws {
        let text = #"""
            {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
             "properties": {"id": {"type": "integer", "minimum": 1}, "tags": {"type": "array",
             "items": {"$ref": "#/definitions/Tag"}, "maxItems": 2}, "mode": {"enum": ["a", "b"]},
             "note": {"description": "Free text", "type": "string"}},
             "required": ["id", "tags"],
             "definitions": {"Tag": {"type": "string", "pattern": "^[a-z]+$"}}}
            """#
        let document = try GenerationSchema(jsonSchema: text).decodingDocument()
        #expect(document.root == .object(properties: [
            SchemaProperty(name: "id", schema: .integer(minimum: 1, maximum: nil)),
            SchemaProperty(name: "tags", schema: .array(items: .reference("Tag"), minimumCount: 0, maximumCount: 2,
                                                        uniqueItems: false)),
            SchemaProperty(name: "mode", schema: .string(.choices(["a", "b"])), isOptional: true),
            SchemaProperty(name: "note", schema: .string(.any), isOptional: true),
        ]))
        #expect(document.definitions["Tag"] == .string(.pattern("^[a-z]+$")))
    }

    @Test(arguments: [
        (#"{"not": {"type": "string"}}"#, "not"),
        (#"{"type": "integer", "if": {"minimum": 5}, "then": {"multipleOf": 2}}"#, "if"),
        (##"{"$dynamicRef": "#node"}"##, "$dynamicRef"),
        (#"{"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 3}, "maxContains": 2}"#, "maxContains"),
        (#"{"$ref": "https://example.com/schema"}"#, "https://example.com/schema"),
        (##"{"$ref": "#/$defs/Missing"}"##, "Missing"),
        (#"{"oneOf": [{"type": "integer"}, {"minimum": 2}]}"#, "oneOf"),
    ])
    func importRejectsUnenforceableKeywords(_ text: String, _ keyword: String) {
        #expect {
            try GenerationSchema(jsonSchema: text)
        } throws: { error in
            "\(error)".contains(keyword)
        }
    }

    /// A schema whose property order is written as `x-order` (as other writers of Apple's schemas spell it) keeps
    /// that order when decoded, rather than the decoder's sorted keys; `propertyOrdering` wins where both are given.
    @Test func xOrderGivesThePropertyOrder() throws {
        let properties = #""properties":{"zone":{"type":"string"},"alpha":{"type":"integer"}},"required":["zone","alpha"]"#
        let xOrder = try JSONDecoder().decode(GenerationSchema.self, from: Data(#"{"type":"object",\#(properties),"x-order":["zone","alpha"]}"#.utf8))
        let both = try JSONDecoder().decode(GenerationSchema.self, from:
            Data(#"{"type":"object",\#(properties),"x-order":["zone","alpha"],"propertyOrdering":["alpha","zone"]}"#.utf8))
        func names(_ schema: GenerationSchema) -> [String] {
            guard case .object(let object) = schema.root else { return [] }
            return object.properties.map(\.name)
        }
        #expect(names(xOrder) == ["zone", "alpha"])
        #expect(names(both) == ["alpha", "zone"])
        // An integer `x-order` on a property (as some OpenAPI tools write it) says nothing here: it is an ignored
        // keyword, not an error.
        let perProperty = try GenerationSchema.importing(jsonSchema:
            #"{"type":"object","properties":{"address":{"type":"object","x-order":1,"properties":{"city":{"type":"string"}}}}}"#)
        #expect(perProperty.warnings.contains { $0.contains("x-order") }, "\(perProperty.warnings)")
    }

    @Test func codableRejectsUnenforceableKeywords() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(GenerationSchema.self, from: Data(#"{"type":"string","not":{"const":"a"}}"#.utf8))
        }
    }

    @Test func debugDescriptionIsIndentedJSONSchema() {
        let description = Toy.generationSchema.debugDescription
        #expect(description.hasPrefix("{\n  \"title\": \"Toy\",\n  \"type\": \"object\","))
        #expect(description.contains("\"enum\": [\n        \"ball\",\n        \"mouse\"\n      ]"))
    }

    @Test func promptDescriptionIsCompact() {
        #expect(Cat.generationSchema.promptDescription == """
            // A cat
            {
              "name": string,
              "age": integer from 0 to 20, // Age in years
              "nickname"?: string,
              "toys": [Toy] (at most 3 items)
            }
            Toy = {
              "kind": "ball" | "mouse"
            }
            """)
        #expect(TreeNode.generationSchema.promptDescription == """
            TreeNode = {
              "name": string,
              "children": [TreeNode]
            }
            """)
        #expect([Int].generationSchema.promptDescription == "[integer]")
    }
}
