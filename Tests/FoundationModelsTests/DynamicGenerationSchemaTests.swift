import FMDecoding
import FoundationModels
import Testing

struct DynamicGenerationSchemaTests {
    @Test func menuExampleFromTheDocumentation() throws {
        let menuSchema = DynamicGenerationSchema(
            name: "Menu",
            properties: [
                DynamicGenerationSchema.Property(
                    name: "dailySoup",
                    schema: DynamicGenerationSchema(name: "dailySoup", anyOf: ["Tomato", "Chicken Noodle", "Clam Chowder"])
                ),
            ]
        )
        let schema = try GenerationSchema(root: menuSchema, dependencies: [])
        let document = try schema.decodingDocument()
        #expect(document.root == .object(properties: [SchemaProperty(name: "dailySoup", schema: .reference("dailySoup"))]))
        #expect(document.definitions["dailySoup"] == .string(.choices(["Tomato", "Chicken Noodle", "Clam Chowder"])))
    }

    @Test func everyInitializerConverts() throws {
        let dish = DynamicGenerationSchema(name: "Dish", description: "A dish", properties: [
            .init(name: "name", schema: DynamicGenerationSchema(type: String.self)),
            .init(name: "price", description: "In dollars", schema: DynamicGenerationSchema(
                type: Double.self, guides: [.range(1...100)])),
            .init(name: "sides", schema: DynamicGenerationSchema(arrayOf: DynamicGenerationSchema(referenceTo: "Dish"),
                                                                 minimumElements: 0, maximumElements: 2),
                  isOptional: true),
            .init(name: "extra", schema: DynamicGenerationSchema(name: "Extra", anyOf: [
                DynamicGenerationSchema(type: Int.self), .null,
            ])),
            .init(name: "note", schema: .null, isOptional: true),
        ])
        let schema = try GenerationSchema(root: dish, dependencies: [])
        let document = try schema.decodingDocument()
        #expect(document.root == .object(properties: [
            SchemaProperty(name: "name", schema: .string(.any)),
            SchemaProperty(name: "price", schema: .number(minimum: 1, maximum: 100)),
            SchemaProperty(name: "sides", schema: .array(items: .reference("Dish"), minimumCount: 0, maximumCount: 2,
                                                         uniqueItems: false), isOptional: true),
            SchemaProperty(name: "extra", schema: .reference("Extra")),
            SchemaProperty(name: "note", schema: .null, isOptional: true),
        ]))
        #expect(document.definitions["Extra"] == .anyOf([.integer(minimum: nil, maximum: nil), .null]))
        #expect(document.definitions["Dish"] == document.root)
    }

    @Test func dependenciesResolveReferences() throws {
        let root = DynamicGenerationSchema(name: "Order", properties: [
            .init(name: "item", schema: DynamicGenerationSchema(referenceTo: "Item")),
        ])
        let item = DynamicGenerationSchema(name: "Item", properties: [
            .init(name: "cat", schema: DynamicGenerationSchema(type: Cat.self)),
        ])
        let document = try GenerationSchema(root: root, dependencies: [item]).decodingDocument()
        #expect(Set(document.definitions.keys) == ["Item", "Cat", "Toy", "Kind"])
    }

    @Test func duplicatePropertyThrows() {
        let root = DynamicGenerationSchema(name: "R", properties: [
            .init(name: "a", schema: DynamicGenerationSchema(type: Int.self)),
            .init(name: "a", schema: DynamicGenerationSchema(type: String.self)),
        ])
        do {
            _ = try GenerationSchema(root: root, dependencies: [])
            Issue.record("expected an error")
        } catch GenerationSchema.SchemaError.duplicateProperty(let schema, let property, let context) {
            #expect(schema == "R")
            #expect(property == "a")
            #expect(!context.debugDescription.isEmpty)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func duplicateTypeThrows() {
        let root = DynamicGenerationSchema(name: "R", properties: [
            .init(name: "a", schema: DynamicGenerationSchema(referenceTo: "T")),
        ])
        let first = DynamicGenerationSchema(name: "T", anyOf: ["x"])
        let second = DynamicGenerationSchema(name: "T", anyOf: ["y"])
        do {
            _ = try GenerationSchema(root: root, dependencies: [first, second])
            Issue.record("expected an error")
        } catch GenerationSchema.SchemaError.duplicateType(let schema, let type, _) {
            #expect(schema == "R")
            #expect(type == "T")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func emptyChoicesThrow() {
        for empty in [DynamicGenerationSchema(name: "E", anyOf: [String]()),
                      DynamicGenerationSchema(name: "E", anyOf: [DynamicGenerationSchema]())] {
            do {
                _ = try GenerationSchema(root: empty, dependencies: [])
                Issue.record("expected an error")
            } catch GenerationSchema.SchemaError.emptyTypeChoices(let schema, _) {
                #expect(schema == "E")
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func undefinedReferencesThrow() {
        let root = DynamicGenerationSchema(name: "R", properties: [
            .init(name: "a", schema: DynamicGenerationSchema(referenceTo: "Missing")),
            .init(name: "b", schema: DynamicGenerationSchema(referenceTo: "Gone")),
        ])
        do {
            _ = try GenerationSchema(root: root, dependencies: [])
            Issue.record("expected an error")
        } catch let error as GenerationSchema.SchemaError {
            guard case .undefinedReferences(let schema, let references, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(schema == "R")
            #expect(references == ["Missing", "Gone"])
            #expect(error.errorDescription == #"Undefined references "Missing", "Gone" in schema "R"."#)
            #expect(error.recoverySuggestion != nil)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
