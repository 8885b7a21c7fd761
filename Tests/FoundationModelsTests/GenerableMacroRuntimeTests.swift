import FoundationModels
import Testing

/// Runtime behaviour of `@Generable` expansions that the seeds don't cover.
struct GenerableMacroRuntimeTests {
    @Test func missingOptionalDecodesAsNil() throws {
        let contact = try GenerableMacroFixtures.Contact(GeneratedContent(properties: ["name": "Ada"]))
        #expect(contact.name == "Ada")
        #expect(contact.nickname == nil)
    }

    @Test func nilOptionalIsLeftOutByDefault() {
        let content = GenerableMacroFixtures.Contact(name: "Ada", nickname: nil).generatedContent
        #expect(content == GeneratedContent(properties: ["name": "Ada"]))
    }

    @Test func nilOptionalIsNullWhenRepresentedExplicitly() {
        let content = GenerableMacroFixtures.ExplicitContact(name: "Ada", nickname: nil).generatedContent
        #expect(content == GeneratedContent(properties: ["name": "Ada", "nickname": GeneratedContent.null]))
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

    @Test func publicTypeConformsFromOutsideTheDeclaration() throws {
        let summary = try PublicSummary(GeneratedContent(properties: ["text": "Short."]))
        #expect(summary.asPartiallyGenerated().text == "Short.")
    }
}
