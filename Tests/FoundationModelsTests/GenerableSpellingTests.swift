public import FoundationModels
import Testing

/// A default that only this module sees: a public initializer may not name it.
let spellingTestsDefaultLocale = "en"

/// Public, with a default that is not a literal: the memberwise initializer stays internal.
@Generable public struct SpellingTestsRequest {
    public var text: String
    public var locale: String = spellingTestsDefaultLocale
    public var count: Int = -1
}

/// Declarations that are valid Swift and must compile under `@Generable`: types of the user's own that share a
/// name with a standard type, `Self` in a property's type, a public type with a default value that names
/// something internal, and an enumeration with its own content initializer. Each of them failed to compile before; the tests check that the schema and content are
/// those of the declared types.
struct GenerableSpellingTests {
    enum Cast {
        /// A story's character: a user type named like `Swift.Character`.
        @Generable struct Character {
            var name: String
            var nickname: String?
        }
        /// A workout's set: a user type named like `Swift.Set`.
        @Generable struct Set {
            var reps: Int
        }
        @Generable struct Party {
            var members: [Character]
            var leader: Cast.Character?
            var sets: [Set]
        }
    }

    /// `Self` in property types, which inside the partial mirror would name the mirror.
    @Generable struct Outline {
        var title: String
        var sections: [Self]
        var summary: Self.Summary?

        @Generable struct Summary {
            var text: String
        }
    }

    /// An enumeration with a content initializer of its own, which reads case loosely.
    @Generable enum Mood: String {
        case calm, tense

        init(_ content: GeneratedContent) throws {
            self = Mood(rawValue: try content.value(String.self).lowercased()) ?? .calm
        }
    }

    @Test func userTypesNamedLikeStandardTypesAreGenerable() throws {
        let schema = Cast.Party.generationSchema
        guard case .object(let node) = schema.root else {
            Issue.record("Party's schema is not an object")
            return
        }
        #expect(node.properties.map(\.name) == ["members", "leader", "sets"])
        let json = schema.jsonSchemaString
        #expect(json.contains("\"reps\""))
        #expect(json.contains("\"nickname\""))
        let party = Cast.Party(members: [.init(name: "Ada", nickname: nil)], leader: .init(name: "Bo", nickname: "B"),
                               sets: [.init(reps: 8)])
        let decoded = try Cast.Party(party.generatedContent)
        #expect(decoded.members.map(\.name) == ["Ada"])
        #expect(decoded.leader?.nickname == "B")
        #expect(decoded.sets.map(\.reps) == [8])
    }

    @Test func selfInAPropertyTypeIsTheTypeInTheMirror() throws {
        let outline = Outline(title: "A", sections: [Outline(title: "B", sections: [], summary: .init(text: "b"))], summary: nil)
        let content = outline.generatedContent
        let decoded = try Outline(content)
        #expect(decoded.sections.map(\.title) == ["B"])
        let partial = try Outline.PartiallyGenerated(content)
        let sections: [Outline.PartiallyGenerated]? = partial.sections
        #expect(sections?.first?.title == "B")
        let summary: Outline.Summary.PartiallyGenerated? = partial.sections?.first?.summary
        #expect(summary?.text == "b")
        #expect(partial.summary == nil)
    }

    @Test func anEnumerationsOwnContentInitializerStands() throws {
        #expect(try Mood(GeneratedContent(json: #""TENSE""#)) == .tense)
        #expect(try Mood(GeneratedContent(json: #""unknown""#)) == .calm)
        #expect(Mood.tense.generatedContent.jsonString == #""tense""#)
        guard case .enumeration(let node) = Mood.generationSchema.root else {
            Issue.record("Mood's schema is not a set of choices")
            return
        }
        #expect(node.choices == ["calm", "tense"])
    }

    @Test func aNonLiteralDefaultKeepsThePublicTypesInitializerInternal() throws {
        let request = SpellingTestsRequest(text: "hello")
        #expect(request.locale == "en")
        #expect(request.count == -1)
        let decoded = try SpellingTestsRequest(GeneratedContent(json: #"{"text": "hi", "locale": "fr", "count": 2}"#))
        #expect(decoded.locale == "fr")
        #expect(decoded.count == 2)
    }
}
