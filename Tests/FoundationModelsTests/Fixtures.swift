import FoundationModels

// Hand-written `Generable` conformances, shaped like what the `@Generable` macro produces.

struct Cat: Generable, Equatable {
    var name: String
    var age: Int
    var nickname: String?
    var toys: [Toy]

    static var generationSchema: GenerationSchema {
        GenerationSchema(
            type: Cat.self,
            description: "A cat",
            properties: [
                GenerationSchema.Property(name: "name", type: String.self),
                GenerationSchema.Property(name: "age", description: "Age in years", type: Int.self,
                                          guides: [.range(0...20)]),
                GenerationSchema.Property(name: "nickname", type: String?.self),
                GenerationSchema.Property(name: "toys", type: [Toy].self, guides: [.maximumCount(3)]),
            ]
        )
    }

    init(name: String, age: Int, nickname: String? = nil, toys: [Toy] = []) {
        self.name = name
        self.age = age
        self.nickname = nickname
        self.toys = toys
    }

    init(_ content: GeneratedContent) throws {
        name = try content.value(forProperty: "name")
        age = try content.value(forProperty: "age")
        nickname = try content.value(forProperty: "nickname")
        toys = try content.value(forProperty: "toys")
    }

    var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["name": name, "age": age, "nickname": nickname, "toys": toys])
    }

    /// A macro-style partial mirror: every property optional.
    struct PartiallyGenerated: ConvertibleFromGeneratedContent {
        var name: String?
        var age: Int?
        var toys: [Toy.PartiallyGenerated]?

        init(_ content: GeneratedContent) throws {
            name = try content.value(forProperty: "name")
            age = try content.value(forProperty: "age")
            toys = try content.value(forProperty: "toys")
        }
    }
}

struct Toy: Generable, Equatable {
    var kind: Kind

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Toy.self, properties: [GenerationSchema.Property(name: "kind", type: Kind.self)])
    }

    init(kind: Kind) {
        self.kind = kind
    }

    init(_ content: GeneratedContent) throws {
        kind = try content.value(forProperty: "kind")
    }

    var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["kind": kind])
    }

    enum Kind: String, Generable {
        case ball, mouse

        static var generationSchema: GenerationSchema {
            GenerationSchema(type: Kind.self, description: "A toy kind", anyOf: ["ball", "mouse"])
        }

        init(_ content: GeneratedContent) throws {
            let raw = try String(content)
            guard let kind = Kind(rawValue: raw) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Unknown kind \(raw)"))
            }
            self = kind
        }

        var generatedContent: GeneratedContent {
            GeneratedContent(rawValue)
        }
    }
}

/// A recursive type: a tree of named nodes.
struct TreeNode: Generable {
    var name: String
    var children: [TreeNode]

    static var generationSchema: GenerationSchema {
        GenerationSchema(
            type: TreeNode.self,
            properties: [
                GenerationSchema.Property(name: "name", type: String.self),
                GenerationSchema.Property(name: "children", type: [TreeNode].self),
            ]
        )
    }

    init(_ content: GeneratedContent) throws {
        name = try content.value(forProperty: "name")
        children = try content.value(forProperty: "children")
    }

    var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["name": name, "children": children])
    }
}

/// Mutually recursive types.
struct Person: Generable {
    var name: String
    var employer: Company?

    static var generationSchema: GenerationSchema {
        GenerationSchema(
            type: Person.self,
            properties: [
                GenerationSchema.Property(name: "name", type: String.self),
                GenerationSchema.Property(name: "employer", type: Company?.self),
            ]
        )
    }

    init(_ content: GeneratedContent) throws {
        name = try content.value(forProperty: "name")
        employer = try content.value(forProperty: "employer")
    }

    var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["name": name, "employer": employer])
    }
}

struct Company: Generable {
    var staff: [Person]

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Company.self, properties: [GenerationSchema.Property(name: "staff", type: [Person].self)])
    }

    init(_ content: GeneratedContent) throws {
        staff = try content.value(forProperty: "staff")
    }

    var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["staff": staff])
    }
}

/// A union, as the macro builds for an enumeration with associated values.
enum Shape: Generable {
    case circle(Circle)
    case label(String)

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Shape.self, description: "A shape", anyOf: [Circle.self, String.self])
    }

    init(_ content: GeneratedContent) throws {
        if case .string(let text) = content.kind {
            self = .label(text)
        } else {
            self = .circle(try Circle(content))
        }
    }

    var generatedContent: GeneratedContent {
        switch self {
        case .circle(let circle): circle.generatedContent
        case .label(let text): text.generatedContent
        }
    }
}

struct Circle: Generable {
    var radius: Double

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Circle.self, properties: [
            GenerationSchema.Property(name: "radius", type: Double.self, guides: [.minimum(0)]),
        ])
    }

    init(_ content: GeneratedContent) throws {
        radius = try content.value(forProperty: "radius")
    }

    var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["radius": radius])
    }
}
