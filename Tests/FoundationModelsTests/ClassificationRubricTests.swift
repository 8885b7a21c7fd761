@testable import FoundationModels
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
    }

    @Test func classificationGetsTheClassifierPreambleAndTagsTheTaggerOne() throws {
        let classification = schema([Property(name: "label", node: .enumeration(.init(name: "L", choices: ["a", "b"])))])
        let tagging = schema([Property(name: "topics", node: .array(.init(items: .string(.init()))))])
        #expect(try #require(UseCasePrompting.preamble(for: .contentTagging, schema: classification)).contains("text classifier"))
        #expect(try #require(UseCasePrompting.preamble(for: .contentTagging, schema: tagging)).contains("content tagger"))
        #expect(UseCasePrompting.preamble(for: .general, schema: classification) == nil)
    }

    @Test func enumerationArraysAreChoicesElementByElement() {
        let document = SchemaDocumentFixtures.labelsArray
        let points = ChoicePoints(document: document)
        let open = points.open(after: Array(#"{"labels":["joy","#.utf8))
        #expect(open?.site.property == "labels")
        #expect(open?.remainders.map { String(decoding: $0, as: UTF8.self) } == [#""anger""#, #""joy""#, #""love""#])
        #expect(points.open(after: Array(#"{"labels":["#.utf8))?.literals.count == 3)
    }

    @Test func scoresCombineByTheChosenMethod() {
        let tokens = [-1.0, -0.5, -0.1]
        #expect(Generator.combine(tokens, .total) == -1.6)
        #expect(abs(Generator.combine(tokens, .mean) - (-1.6 / 3)) < 1e-12)
        #expect(Generator.combine(tokens, .first) > Generator.combine([-1.0, -2.0], .first))
    }

    @Test func calibrationAveragesContentFreeRuns() {
        let site = ChoicePoints.Site(property: "label", written: [])
        var calibration = ChoiceCalibration()
        calibration.add([site: [Array("\"a\"".utf8): [-1.0, -2.0]]], runs: 0)
        calibration.add([site: [Array("\"a\"".utf8): [-3.0, -4.0]]], runs: 1)
        #expect(calibration.prior(at: site, literal: Array("\"a\"".utf8)) == [-2.0, -3.0])
        #expect(calibration.prior(at: site, literal: Array("\"b\"".utf8)) == nil)
    }
}

import FMDecoding

enum SchemaDocumentFixtures {
    static let labelsArray = SchemaDocument(root: .object(properties: [
        SchemaProperty(name: "labels", schema: .array(items: .string(.choices(["joy", "anger", "love"])), minimumCount: 1,
                                                      maximumCount: 3, uniqueItems: true)),
    ]))
}
