import FMLlama

/// The built-in few-shot examples of the content-tagging use case.
///
/// A 135M-parameter model copies examples placed in its system text but follows examples given as earlier
/// user/assistant turns (measured with `fm eval`), so the tagging use case opens every fresh
/// conversation with a few such turns. They are written for the requested schema: each example is annotated
/// with tags of several kinds, and a schema whose properties are all tag lists of known kinds gets one
/// answer per example, each list cut to the property's maximum. Schemas with other fields (choices, numbers,
/// free text) get no built-in examples — an example answer there would have to invent values.
///
/// The texts deliberately avoid the examples of Apple's documentation (the picnic sentence and its kin), so
/// tests on those measure the model, not a copied answer.
enum TaggingExamples {
    struct Example {
        var text: String
        var tags: [Kind: [String]]
    }

    /// The kinds of tags the examples annotate, by the property names that ask for them.
    enum Kind: CaseIterable {
        case topics, actions, emotions, objects, people, places

        /// Property names (lowercased) that mean this kind.
        var names: Set<String> {
            switch self {
            case .topics: ["topics", "topic", "tags", "keywords", "themes", "subjects"]
            case .actions: ["actions", "activities", "verbs"]
            case .emotions: ["emotions", "feelings", "sentiments", "moods"]
            case .objects: ["objects", "things", "items", "entities"]
            case .people: ["people", "persons", "characters"]
            case .places: ["places", "locations"]
            }
        }

        static func named(_ name: String) -> Kind? {
            let key = name.lowercased()
            return allCases.first { $0.names.contains(key) }
        }
    }

    /// A question, a list, a complaint and a story: the shapes of text taggers meet most. Feelings come last,
    /// so the final example before the real text has every kind of tag filled in. Each list is ordered most
    /// important first and is cut to the schema's maximum: a model copies the example's length, so a list the
    /// schema allows to be long shows up to four topics, not the two a short one keeps.
    static let examples: [Example] = [
        Example(
            text: "How do I fix a flat tire on my bike?",
            tags: [.topics: ["cycling", "repair", "bike maintenance", "tires"], .actions: ["asking", "repairing"], .emotions: [],
                   .objects: ["bike", "tire"], .people: [], .places: []]),
        Example(
            text: "Packing list: 1. Tent 2. Sleeping bag 3. Flashlight",
            tags: [.topics: ["camping", "packing", "outdoor gear", "checklist"], .actions: ["packing"], .emotions: [],
                   .objects: ["tent", "sleeping bag", "flashlight"], .people: [], .places: []]),
        Example(
            text: "The train was cancelled again and I missed my job interview. So frustrating!",
            tags: [.topics: ["commuting", "job interview", "public transport", "delays"], .actions: ["missing interview"],
                   .emotions: ["frustration", "disappointment"], .objects: ["train"], .people: ["i"], .places: ["train station"]]),
        Example(
            text: "We hiked up the mountain trail with our dog and watched the sunset from the top.",
            tags: [.topics: ["hiking", "nature", "sunset", "pets"], .actions: ["hiking", "watching sunset"], .emotions: ["joy", "awe"],
                   .objects: ["mountain trail", "dog", "sunset"], .people: ["we"], .places: ["mountain"]]),
    ]

    /// The example turns for a response schema, or none when the schema is not made of known tag lists.
    static func messages(for schema: GenerationSchema) -> [ChatMessage] {
        guard case .object(let object) = schema.root, !object.properties.isEmpty else { return [] }
        var fields: [(name: String, kind: Kind, minimum: Int, maximum: Int)] = []
        for property in object.properties {
            guard case .array(let array) = property.node, case .string(let guides) = array.items,
                  guides.choices == nil, guides.pattern == nil, let kind = Kind.named(property.name)
            else { return [] }
            fields.append((property.name, kind, array.minimumCount ?? 0, array.maximumCount ?? 5))
        }
        var messages: [ChatMessage] = []
        examples: for example in examples {
            var members: [String] = []
            for field in fields {
                let tags = Array((example.tags[field.kind] ?? []).prefix(field.maximum))
                // An example that cannot meet a minimum would teach the wrong shape; leave it out.
                guard tags.count >= field.minimum else { continue examples }
                members.append("\"\(field.name)\":[" + tags.map { "\"\($0)\"" }.joined(separator: ",") + "]")
            }
            messages.append(ChatMessage(role: "user", content: example.text))
            messages.append(ChatMessage(role: "assistant", content: "{" + members.joined(separator: ",") + "}"))
        }
        return messages
    }
}
