@testable import FoundationModels
import FMDecoding
import Testing

/// Task-aware prompting: which schemas are classifications, and how their rubric reads.
struct ClassificationRubricTests {
    typealias Node = GenerationSchema.Node
    typealias Property = GenerationSchema.PropertyNode

    private func schema(_ properties: [Property]) -> GenerationSchema {
        GenerationSchema(root: .object(.init(name: "Result", properties: properties)))
    }

    @Test func choicesBoolsAndNumbersMakeAClassification() {
        let rubric = ClassificationRubric(schema: schema([
            Property(name: "topic", description: "The primary topic", node: .enumeration(.init(name: "T", choices: ["billing", "access"]))),
            Property(name: "urgent", node: .boolean),
            Property(name: "score", node: .integer(.init(minimum: 1, maximum: 5))),
        ]), sortsChoices: true)
        #expect(rubric.isClassification)
        #expect(rubric.text == """
            For each field, choose the answer that fits the text best:
            - "topic": The primary topic. Answer one of "access", "billing".
            - "urgent": Answer true or false.
            - "score": Answer a whole number from 1 to 5.
            """)
    }

    @Test func anImportedTitledEnumerationKeepsItsDescription() throws {
        // With a `title`, the description describes the named type, not the property; the rubric still shows it.
        let imported = try GenerationSchema.importing(jsonSchema: """
            {"type": "object", "properties": {"label": {"title": "Label", "type": "string",
             "description": "Whether the tweet is hateful, offensive, or neither", "enum": ["hate", "offensive", "neither"]}},
             "required": ["label"]}
            """).schema
        let rubric = ClassificationRubric(schema: imported, sortsChoices: true)
        #expect(rubric.text.contains(#"- "label": Whether the tweet is hateful, offensive, or neither. Answer one of "hate", "neither", "offensive"."#))
    }

    /// Content tagging makes tag lists unique-itemed, but not a list of choices that must hold more elements than
    /// there are choices: that list stays satisfiable (with repeats) instead of failing to compile.
    @Test func taggingLeavesALongListOfFewChoicesRepeatable() throws {
        let choices = Node.string(.init(choices: ["a", "b", "c"]))
        let document = try UseCasePrompting.decodingDocument(for: schema([
            Property(name: "five", node: .array(.init(items: choices, minimumCount: 5, maximumCount: 5))),
            Property(name: "two", node: .array(.init(items: choices, minimumCount: 2, maximumCount: 2))),
        ]), useCase: .contentTagging)
        guard case .object(let properties) = document.root else { Issue.record("\(document.root)"); return }
        let unique = properties.map { property -> Bool in
            if case .array(_, _, _, let uniqueItems) = property.schema { return uniqueItems }
            return false
        }
        #expect(unique == [false, true])
    }

    @Test func freeTextMakesItMixedOrTagging() {
        let tags = Property(name: "topics", node: .array(.init(items: .string(.init()), maximumCount: 3)))
        let mixed = ClassificationRubric(schema: schema([
            tags, Property(name: "urgent", node: .boolean),
        ]), sortsChoices: true)
        #expect(!mixed.isClassification)
        #expect(mixed.fields.map(\.name) == ["urgent"])
        let tagging = ClassificationRubric(schema: schema([tags]), sortsChoices: true)
        #expect(tagging.fields.isEmpty && !tagging.isClassification)
    }

    @Test func theChoiceOrderOfTheSchemaDoesNotChangeThePrompt() {
        func prompt(_ choices: [String]) -> String {
            UseCasePrompting.schemaInstruction(
                for: schema([Property(name: "label", node: .enumeration(.init(name: "L", choices: choices)))]),
                useCase: .contentTagging)
        }
        #expect(prompt(["spam", "ham"]) == prompt(["ham", "spam"]))
        #expect(prompt(["spam", "ham"]).contains(#"one of "ham", "spam""#))

        // A mixed schema also carries the JSON sketch, which lists the choices again; so does every use case.
        func mixed(_ choices: [String], useCase: SystemLanguageModel.UseCase) -> String {
            UseCasePrompting.schemaInstruction(for: schema([
                Property(name: "topics", node: .array(.init(items: .string(.init()), maximumCount: 3))),
                Property(name: "label", node: .enumeration(.init(name: "L", choices: choices))),
            ]), useCase: useCase)
        }
        for useCase in [SystemLanguageModel.UseCase.contentTagging, .general] {
            #expect(mixed(["spam", "ham"], useCase: useCase) == mixed(["ham", "spam"], useCase: useCase))
            #expect(mixed(["spam", "ham"], useCase: useCase).contains(#""label": "ham" | "spam""#))
        }
    }

    @Test func classificationGetsTheClassifierPreambleAndTagsTheTaggerOne() throws {
        let classification = schema([Property(name: "label", node: .enumeration(.init(name: "L", choices: ["a", "b"])))])
        let tagging = schema([Property(name: "topics", node: .array(.init(items: .string(.init()))))])
        #expect(try #require(UseCasePrompting.preamble(for: .contentTagging, schema: classification)).contains("text classifier"))
        #expect(try #require(UseCasePrompting.preamble(for: .contentTagging, schema: tagging)).contains("content tagger"))
        #expect(UseCasePrompting.preamble(for: .general, schema: classification) == nil)
    }
}
