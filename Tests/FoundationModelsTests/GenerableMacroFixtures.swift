import FoundationModels

// Types the macro runtime tests need beyond the seeds: optionals, both nil representations and a regex guide.

/// Fixtures for `GenerableMacroRuntimeTests`.
enum GenerableMacroFixtures {
    @Generable
    struct Contact {
        let name: String
        let nickname: String?
    }

    @Generable(representNilExplicitlyInGeneratedContent: true)
    struct ExplicitContact {
        let name: String
        let nickname: String?
    }

    @Generable
    struct Product {
        @Guide(description: "SKU", /[A-Z]{3}-\d{4}/)
        var sku: String

        @Guide(#/a/b/#)
        var path: String?
    }

    /// Declares Equatable and Hashable, and an initializer of its own with one unnamed parameter.
    @Generable
    struct Tag: Hashable {
        var name: String
        var weight: Int?

        init(_ name: String) {
            self.name = name
            weight = nil
        }
    }

    /// Declares Hashable inside a composition.
    @Generable
    struct Pin: Codable & Hashable {
        var name: String
    }

    /// An enum with associated values that holds itself.
    @Generable
    indirect enum Outline: Equatable {
        case text(String)
        case list([Outline])
    }

    @Generable
    struct Document {
        var title: String
        var outline: Outline
    }

    @Generable
    struct Node {
        var value: Int
        var children: [Node]
    }

    @Generable(description: "A drawable shape")
    enum Shape: Equatable {
        case circle(radius: Double)
        case text(String)
        case pair(Int, Int)
        case labelled(title: String, subtitle: String?)
        case none
    }

    /// Instance properties named like the static schema and the partial mirror, which Swift lets stand beside them.
    @Generable
    struct FieldsNamedLikeMembers {
        var generationSchema: String
        var PartiallyGenerated: Int
    }

    /// An enum with the schema's name as a computed instance property, and labels that are keywords.
    @Generable
    enum Move: Equatable {
        case step(`in`: String, `default`: Int)
        case stay

        var generationSchema: String { "not the schema" }
    }

    @Generable
    enum Mood: Equatable {
        case cheerful, calm
    }

    @Generable
    struct Day {
        var title: String
    }

    @Generable
    struct Plan {
        var days: [Day]
    }

    @Generable
    struct Drawing {
        var title: String
        var shape: Shape
        var mood: Mood
        var moods: [Mood]
    }

    /// A generic enum, used with two element types in one schema.
    @Generable
    enum Choice<Value: Generable> {
        case one(Value)
        case nothing
    }

    @Generable
    struct Choices {
        var number: Choice<Int>
        var text: Choice<String>
    }

    @Generable
    enum EitherChoice {
        case number(Choice<Int>)
        case text(Choice<String>)
    }

    @Generable(representNilExplicitlyInGeneratedContent: true)
    enum ExplicitReading: Equatable {
        case value(x: Int?)
    }

    /// A user `id`, the mirror's identity.
    @Generable
    struct LabelledByName {
        var id: String
        var count: Int
    }
}
