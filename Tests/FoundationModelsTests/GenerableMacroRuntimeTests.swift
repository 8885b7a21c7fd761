import FMDecoding
import FoundationModels
import Testing

/// Runtime behaviour of `@Generable` expansions that the seeds don't cover.
struct GenerableMacroRuntimeTests {
    @Test func missingOptionalDecodesAsNil() throws {
        let contact = try GenerableMacroFixtures.Contact(GeneratedContent(properties: ["name": "Ada"]))
        #expect(contact.name == "Ada")
        #expect(contact.nickname == nil)
    }

    /// `init(_ name: String)` is not the content initializer, so the macro still adds that; a type that is
    /// Hashable gets a partial form that is too.
    @Test func anUnnamedInitializerOfAnotherTypeKeepsTheContentInitializer() throws {
        let tag = try GenerableMacroFixtures.Tag(GeneratedContent(properties: ["name": "beach", "weight": 2]))
        #expect(tag.name == "beach" && tag.weight == 2)
        #expect(GenerableMacroFixtures.Tag("sea").name == "sea")
        let partial = try GenerableMacroFixtures.Tag.PartiallyGenerated(GeneratedContent(json: #"{"name":"bea"#))
        let same = try GenerableMacroFixtures.Tag.PartiallyGenerated(GeneratedContent(json: #"{"name":"bea"#))
        #expect(partial.name == "bea")
        #expect(partial != same, "snapshots of different responses have different ids")
        #expect(Set([partial, partial]).count == 1)
        // Hashable declared inside a composition is mirrored too.
        let pin = try GenerableMacroFixtures.Pin.PartiallyGenerated(GeneratedContent(json: #"{"name":"a"#))
        #expect(Set([pin, pin]).count == 1)
    }

    /// A recursive enum's schema refers to itself by name instead of recursing without end.
    @Test func aRecursiveEnumHasAFiniteSchema() throws {
        let schema = GenerableMacroFixtures.Outline.generationSchema
        let json = schema.jsonSchemaString
        #expect(json.contains("Outline"), "\(json)")
        let document = GenerableMacroFixtures.Document.generationSchema.jsonSchemaString
        #expect(document.contains("Outline"))
        let text = #"{"list":[{"text":"a"},{"list":[]}]}"#
        let outline = try GenerableMacroFixtures.Outline(GeneratedContent(json: text))
        #expect(outline == .list([.text("a"), .list([])]))
        // The decoder resolves the reference into a grammar.
        _ = try Grammar(compiling: schema.decodingDocument())
    }

    @Test func nilOptionalIsLeftOutByDefault() {
        let content = GenerableMacroFixtures.Contact(name: "Ada", nickname: nil).generatedContent
        #expect(content == GeneratedContent(properties: ["name": "Ada"]))
    }

    @Test func nilOptionalIsNullWhenRepresentedExplicitly() {
        let content = GenerableMacroFixtures.ExplicitContact(name: "Ada", nickname: nil).generatedContent
        #expect(content == GeneratedContent(properties: ["name": "Ada", "nickname": GeneratedContent.null]))
    }

    /// A streamed snapshot shows an enum value that is still arriving — a case name half written, a case object
    /// before its key — as not there yet, instead of failing the stream; complete content still throws.
    @Test func enumsStillArrivingAreMissingFromPartialContent() throws {
        typealias Drawing = GenerableMacroFixtures.Drawing
        let shapeOpened = try Drawing.PartiallyGenerated(GeneratedContent(json: #"{"title": "Sun", "shape": {"#))
        #expect(shapeOpened.title == "Sun")
        #expect(shapeOpened.shape == nil)
        let halfCase = try Drawing.PartiallyGenerated(GeneratedContent(json: #"{"title": "Sun", "shape": {"circle": {"radius": 2}}, "mood": "chee"#))
        #expect(halfCase.shape == .circle(radius: 2))
        #expect(halfCase.mood == nil)
        let list = try Drawing.PartiallyGenerated(GeneratedContent(json: #"{"title": "Sun", "shape": {"none": {}}, "mood": "calm", "moods": ["calm", "chee"#))
        #expect(list.mood == .calm)
        #expect(list.moods == [.calm])
        #expect(throws: (any Error).self) {
            try Drawing.PartiallyGenerated(GeneratedContent(json: #"{"title": "Sun", "mood": "grumpy"}"#))
        }
    }

    @Test func regexGuideCarriesTheLiteralSource() throws {
        guard case .object(let node) = GenerableMacroFixtures.Product.generationSchema.root else {
            Issue.record("Product's schema is not an object")
            return
        }
        let patterns = node.properties.map { property -> String? in
            guard case .string(let guides) = property.node else { return nil }
            return guides.pattern?.source
        }
        #expect(patterns == [#"[A-Z]{3}-\d{4}"#, "a/b"])
        #expect(node.properties.map(\.isOptional) == [false, true])
    }

    /// A field named `generationSchema` or `PartiallyGenerated` is the user's own: the macro still declares the
    /// static schema and the partial mirror beside it.
    @Test func fieldsNamedLikeGeneratedMembersKeepTheSchemaAndTheMirror() throws {
        typealias Fields = GenerableMacroFixtures.FieldsNamedLikeMembers
        guard case .object(let node) = Fields.generationSchema.root else {
            Issue.record("the schema is not an object")
            return
        }
        #expect(node.properties.map(\.name) == ["generationSchema", "PartiallyGenerated"])
        let value = try Fields(GeneratedContent(json: #"{"generationSchema": "a", "PartiallyGenerated": 2}"#))
        #expect(value.generationSchema == "a" && value.PartiallyGenerated == 2)
        let partial = try Fields.PartiallyGenerated(GeneratedContent(json: #"{"generationSchema": "a"#))
        #expect(partial.generationSchema == "a" && partial.PartiallyGenerated == nil)

        typealias Move = GenerableMacroFixtures.Move
        #expect(Move.generationSchema.jsonSchemaString.contains("step"))
        let move = Move.step(in: "north", default: 3)
        #expect(try Move(move.generatedContent) == move)
        #expect(move.generationSchema == "not the schema")
    }

    @Test func publicTypeConformsFromOutsideTheDeclaration() throws {
        let summary = try PublicSummary(GeneratedContent(properties: ["text": "Short."]))
        #expect(summary.asPartiallyGenerated().text == "Short.")
    }

    @Test func recursiveTypeHasAFiniteSchemaAndRoundTrips() throws {
        guard case .object(let node) = GenerableMacroFixtures.Node.generationSchema.root else {
            Issue.record("Node's schema is not an object")
            return
        }
        #expect(node.properties.map(\.name) == ["value", "children"])
        let leaf = GenerableMacroFixtures.Node(value: 2, children: [])
        let tree = GenerableMacroFixtures.Node(value: 1, children: [leaf])
        let decoded = try GenerableMacroFixtures.Node(tree.generatedContent)
        #expect(decoded.children.map(\.value) == [2])
    }

    @Test(arguments: [
        (GenerableMacroFixtures.Shape.circle(radius: 2.5), #"{"circle": {"radius": 2.5}}"#),
        (.text("hello"), #"{"text": "hello"}"#),
        (.pair(1, 2), #"{"pair": {"_0": 1, "_1": 2}}"#),
        (.labelled(title: "A", subtitle: nil), #"{"labelled": {"title": "A"}}"#),
        (.labelled(title: "A", subtitle: "B"), #"{"labelled": {"title": "A", "subtitle": "B"}}"#),
        (.none, #"{"none": {}}"#),
    ])
    func enumWithAssociatedValuesIsATaggedUnion(shape: GenerableMacroFixtures.Shape, json: String) throws {
        let content = try GeneratedContent(json: json)
        #expect(try GenerableMacroFixtures.Shape(content) == shape)
        #expect(shape.generatedContent == content)
    }

    @Test func enumWithAssociatedValuesSchemaHasOneAlternativePerCase() throws {
        guard case .anyOf(let union) = GenerableMacroFixtures.Shape.generationSchema.root else {
            Issue.record("Shape's schema is not a union: \(GenerableMacroFixtures.Shape.generationSchema.root)")
            return
        }
        #expect(union.description == "A drawable shape")
        #expect(union.choices.count == 5)
    }

    /// A type in a `public extension` is public, and a public type's internal property keeps its initializer and
    /// mirror internal; both only compile with those levels.
    @Test func accessLevelsFollowTheExtensionAndTheProperties() throws {
        let inExtension = try PublicOuter.InExtension(GeneratedContent(properties: ["text": "Short."]))
        #expect(inExtension.asPartiallyGenerated().text == "Short.")
        let value = PublicWithInternalPart(name: "a", part: InternalPart(value: 2))
        let partial = try PublicWithInternalPart.PartiallyGenerated(value.generatedContent)
        #expect(partial.part?.value == 2)
    }

    /// Each specialisation of a generic enum names its cases after itself, so one schema can hold two of them;
    /// otherwise the second would take the first's cases, and a union holding both would meet a duplicate name.
    @Test func specialisationsOfAGenericEnumHaveTheirOwnCases() throws {
        let document = try GenerableMacroFixtures.Choices.generationSchema.decodingDocument()
        #expect(document.definitions["Choice<Int>.one"] == .object(properties: [
            SchemaProperty(name: "one", schema: .integer(minimum: nil, maximum: nil)),
        ]))
        #expect(document.definitions["Choice<String>.one"] == .object(properties: [
            SchemaProperty(name: "one", schema: .string(.any)),
        ]))
        let union = try GenerableMacroFixtures.EitherChoice.generationSchema.decodingDocument()
        #expect(union.definitions["Choice<String>.one"] == document.definitions["Choice<String>.one"])
        let choices = GenerableMacroFixtures.Choices(number: .one(3), text: .nothing)
        let decoded = try GenerableMacroFixtures.Choices(choices.generatedContent)
        guard case .one(3) = decoded.number, case .nothing = decoded.text else {
            Issue.record("\(decoded)")
            return
        }
    }

    /// A payload writes a nil optional as null under the flag, so its schema makes the key required and nullable.
    @Test func enumPayloadOptionalsAreNullableWhenNilIsExplicit() throws {
        typealias Reading = GenerableMacroFixtures.ExplicitReading
        let document = try Reading.generationSchema.decodingDocument()
        #expect(document.definitions["ExplicitReading.value.payload"] == .object(properties: [
            SchemaProperty(name: "x", schema: .anyOf([.integer(minimum: nil, maximum: nil), .null])),
        ]))
        let content = Reading.value(x: nil).generatedContent
        #expect(content == (try GeneratedContent(json: #"{"value": {"x": null}}"#)))
        #expect(try Reading(content) == .value(x: nil))
    }

    /// A user `id` is the mirror's identity.
    @Test func aUserIDIsTheMirrorsIdentity() throws {
        func identity<Value: Identifiable>(of value: Value) -> Value.ID { value.id }
        let partial = try GenerableMacroFixtures.LabelledByName.PartiallyGenerated(GeneratedContent(json: #"{"id": "a-1", "count": 2}"#))
        #expect(identity(of: partial) == "a-1")
    }
}
