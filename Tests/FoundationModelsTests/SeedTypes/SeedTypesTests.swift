import FoundationModels
@testable import SeedTypes
import Testing

/// Checks that the seeds' `@Generable` types expand into working schemas and conversions.
struct SeedTypesTests {
    /// The object node at the root of a type's schema, or `nil` if the root is something else.
    private func objectNode(_ schema: GenerationSchema) -> GenerationSchema.ObjectNode? {
        guard case .object(let node) = schema.root else { return nil }
        return node
    }

    @Test func catProfileSchemaListsPropertiesInOrderWithGuides() throws {
        let node = try #require(objectNode(Seed003.CatProfile.generationSchema))
        #expect(node.description == "Basic profile information about a cat")
        #expect(node.properties.map(\.name) == ["name", "age", "profile"])
        #expect(node.properties.map(\.description) == [
            nil, "The age of the cat", "A one sentence profile about the cat's personality",
        ])
        #expect(node.properties[1].node == .integer(GenerationSchema.NumericBounds(minimum: 0, maximum: 20)))
    }

    @Test func contentTaggingSchemaKeepsMaximumCounts() throws {
        let node = try #require(objectNode(Seed000.ContentTaggingResult.generationSchema))
        #expect(node.properties.map(\.name) == ["actions", "emotions", "objects", "topics"])
        let maximums = node.properties.map { property -> Int? in
            guard case .array(let array) = property.node else { return nil }
            return array.maximumCount
        }
        #expect(maximums == [2, 3, 5, 2])
    }

    @Test(arguments: [
        (Seed001.SupportTicketClassification.generationSchema, ["topic", "tone", "urgency", "hasPriorAttempts"]),
        (Seed001.MultiLabelClassification.generationSchema, ["topics", "primaryTopic"]),
        (Seed001.LayeredClassification.generationSchema, ["primaryTopic", "secondaryTopic", "isMultiTopic"]),
        (Seed001.EmailClassification.generationSchema, ["priority", "category", "requiresResponse", "hasDeadline"]),
        (Seed001.ModerationClassification.generationSchema, ["flag", "concernType", "confidence"]),
        (Seed001.LearnerClassification.generationSchema, ["knowledgeLevel", "helpType", "isConfused"]),
        (Seed002.SearchSuggestions.SearchTerm.generationSchema, ["searchTerm"]),
    ])
    func schemaPropertiesFollowDeclarationOrder(schema: GenerationSchema, names: [String]) throws {
        let node = try #require(objectNode(schema))
        #expect(node.properties.map(\.name) == names)
    }

    @Test func simpleEnumSchemaIsAChoiceOfCaseNames() {
        guard case .enumeration(let node) = Seed001.NoteCategory.generationSchema.root else {
            Issue.record("NoteCategory's schema is not an enumeration")
            return
        }
        #expect(node.choices == ["personal", "work", "health", "finance", "travel", "learning", "ideas", "tasks"])
    }

    @Test func catProfileRoundTripsThroughGeneratedContent() throws {
        let content = GeneratedContent(properties: ["name": "Mittens", "age": 3, "profile": "Curious and calm."])
        let cat = try Seed003.CatProfile(content)
        #expect(cat.name == "Mittens")
        #expect(cat.age == 3)
        #expect(cat.profile == "Curious and calm.")
        #expect(cat.generatedContent == content)
    }

    @Test func classificationRoundTripsWithEnumsAndMemberwiseInit() throws {
        let expected = Seed001.SupportTicketClassification(
            topic: .accountAccess,
            tone: .frustrated,
            urgency: .critical,
            hasPriorAttempts: true
        )
        let content = GeneratedContent(properties: [
            "topic": "accountAccess", "tone": "frustrated", "urgency": "critical", "hasPriorAttempts": true,
        ])
        let decoded = try Seed001.SupportTicketClassification(content)
        #expect(decoded.topic == expected.topic)
        #expect(decoded.tone == expected.tone)
        #expect(decoded.urgency == expected.urgency)
        #expect(decoded.hasPriorAttempts == expected.hasPriorAttempts)
        #expect(expected.generatedContent == content)
    }

    @Test func simpleEnumRejectsUnknownCase() {
        #expect(throws: (any Error).self) {
            try Seed002.Breakfast(GeneratedContent(kind: .string("toast")))
        }
        #expect(Seed002.Breakfast.pancakes.generatedContent == GeneratedContent(kind: .string("pancakes")))
    }

    @Test func generationIDTakesTheContentIdentifier() throws {
        let id = GenerationID()
        let content = GeneratedContent(properties: ["searchTerm": "Beautiful sunsets"], id: id)
        let term = try Seed002.SearchSuggestions.SearchTerm(content)
        #expect(term.id == id)
        #expect(term.searchTerm == "Beautiful sunsets")
        #expect(term.generatedContent == content)
    }

    @Test func partiallyGeneratedDecodesIncompleteJSON() throws {
        let partial = try Seed003.CatProfile.PartiallyGenerated(GeneratedContent(json: #"{"name": "Mitt"#))
        #expect(partial.name == "Mitt")
        #expect(partial.age == nil)
        #expect(partial.profile == nil)
    }

    @Test func partiallyGeneratedMapsNestedArrays() throws {
        let json = #"{"searchTerms": [{"searchTerm": "Beautiful sunsets"}, {"searchTerm": "Quiet be"#
        let partial = try Seed002.SearchSuggestions.PartiallyGenerated(GeneratedContent(json: json))
        #expect(partial.searchTerms?.map(\.searchTerm) == ["Beautiful sunsets", "Quiet be"])
    }

    @Test func partiallyGeneratedKeepsTheStreamIdentifier() throws {
        let id = GenerationID()
        let content = GeneratedContent(properties: ["name": "Mittens"], id: id)
        #expect(try Seed003.CatProfile.PartiallyGenerated(content).id == id)
    }
}
