import MacroTesting
import Testing

@Suite(.macros(foundationModelsMacros))
struct GenerableStructExpansionTests {
    @Test func primitivesWithDescription() {
        assertMacro {
            """
            @Generable(description: "Basic profile information about a cat")
            struct CatProfile {
                var name: String
                var age: Int
                var weight: Double
                var isIndoor: Bool
            }
            """
        } expansion: {
            """
            struct CatProfile {
                var name: String
                var age: Int
                var weight: Double
                var isIndoor: Bool

                nonisolated init(name: String, age: Int, weight: Double, isIndoor: Bool) {
                    self.name = name
                    self.age = age
                    self.weight = weight
                    self.isIndoor = isIndoor
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        description: "Basic profile information about a cat",
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "name", type: String.self),
                            FoundationModels.GenerationSchema.Property(name: "age", type: Int.self),
                            FoundationModels.GenerationSchema.Property(name: "weight", type: Double.self),
                            FoundationModels.GenerationSchema.Property(name: "isIndoor", type: Bool.self),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var name: String.PartiallyGenerated?
                    var age: Int.PartiallyGenerated?
                    var weight: Double.PartiallyGenerated?
                    var isIndoor: Bool.PartiallyGenerated?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.name = try content.value(forProperty: "name")
                        self.age = try content.value(forProperty: "age")
                        self.weight = try content.value(forProperty: "weight")
                        self.isIndoor = try content.value(forProperty: "isIndoor")
                    }
                }
            }

            extension CatProfile: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.name = try content.value(forProperty: "name")
                    self.age = try content.value(forProperty: "age")
                    self.weight = try content.value(forProperty: "weight")
                    self.isIndoor = try content.value(forProperty: "isIndoor")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "name": self.name,
                            "age": self.age,
                            "weight": self.weight,
                            "isIndoor": self.isIndoor,
                        ]
                    )
                }
            }
            """
        }
    }

    @Test func optionalsAreLeftOutWhenNil() {
        assertMacro {
            """
            @Generable
            struct Contact {
                let name: String
                var nickname: String?
                let age: Optional<Int>
            }
            """
        } expansion: {
            """
            struct Contact {
                let name: String
                var nickname: String?
                let age: Optional<Int>

                nonisolated init(name: String, nickname: String? = nil, age: Optional<Int>) {
                    self.name = name
                    self.nickname = nickname
                    self.age = age
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "name", type: String.self),
                            FoundationModels.GenerationSchema.Property(name: "nickname", type: String?.self),
                            FoundationModels.GenerationSchema.Property(name: "age", type: Optional<Int>.self),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var name: String.PartiallyGenerated?
                    var nickname: String.PartiallyGenerated?
                    var age: Int.PartiallyGenerated?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.name = try content.value(forProperty: "name")
                        self.nickname = try content.value(forProperty: "nickname")
                        self.age = try content.value(forProperty: "age")
                    }
                }
            }

            extension Contact: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.name = try content.value(forProperty: "name")
                    self.nickname = try content.value(forProperty: "nickname")
                    self.age = try content.value(forProperty: "age")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    var properties: [(String, any FoundationModels.ConvertibleToGeneratedContent)] = []
                    properties.append(("name", self.name))
                    if let value = self.nickname {
                        properties.append(("nickname", value))
                    }
                    if let value = self.age {
                        properties.append(("age", value))
                    }
                    return FoundationModels.GeneratedContent(properties: properties, uniquingKeysWith: { first, _ in
                            first
                        })
                }
            }
            """
        }
    }

    @Test func optionalsRepresentedExplicitly() {
        assertMacro {
            """
            @Generable(representNilExplicitlyInGeneratedContent: true)
            struct Contact {
                let name: String
                let nickname: String?
            }
            """
        } expansion: {
            """
            struct Contact {
                let name: String
                let nickname: String?

                nonisolated init(name: String, nickname: String?) {
                    self.name = name
                    self.nickname = nickname
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        representNilExplicitlyInGeneratedContent: true,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "name", type: String.self),
                            FoundationModels.GenerationSchema.Property(name: "nickname", type: String?.self),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var name: String.PartiallyGenerated?
                    var nickname: String.PartiallyGenerated?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.name = try content.value(forProperty: "name")
                        self.nickname = try content.value(forProperty: "nickname")
                    }
                }
            }

            extension Contact: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.name = try content.value(forProperty: "name")
                    self.nickname = try content.value(forProperty: "nickname")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "name": self.name,
                            "nickname": self.nickname,
                        ]
                    )
                }
            }
            """
        }
    }

    @Test func arraysAndNestedGenerableTypes() {
        assertMacro {
            """
            @Generable
            struct Itinerary {
                var title: String
                var days: [DayPlan]
                var tags: Array<String>
                var cover: Landmark?
            }
            """
        } expansion: {
            """
            struct Itinerary {
                var title: String
                var days: [DayPlan]
                var tags: Array<String>
                var cover: Landmark?

                nonisolated init(title: String, days: [DayPlan], tags: Array<String>, cover: Landmark? = nil) {
                    self.title = title
                    self.days = days
                    self.tags = tags
                    self.cover = cover
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "title", type: String.self),
                            FoundationModels.GenerationSchema.Property(name: "days", type: [DayPlan].self),
                            FoundationModels.GenerationSchema.Property(name: "tags", type: Array<String>.self),
                            FoundationModels.GenerationSchema.Property(name: "cover", type: Landmark?.self),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var title: String.PartiallyGenerated?
                    var days: [DayPlan.PartiallyGenerated]?
                    var tags: [String.PartiallyGenerated]?
                    var cover: Landmark.PartiallyGenerated?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.title = try content.value(forProperty: "title")
                        self.days = try content.value(forProperty: "days")
                        self.tags = try content.value(forProperty: "tags")
                        self.cover = try content.value(forProperty: "cover")
                    }
                }
            }

            extension Itinerary: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.title = try content.value(forProperty: "title")
                    self.days = try content.value(forProperty: "days")
                    self.tags = try content.value(forProperty: "tags")
                    self.cover = try content.value(forProperty: "cover")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    var properties: [(String, any FoundationModels.ConvertibleToGeneratedContent)] = []
                    properties.append(("title", self.title))
                    properties.append(("days", self.days))
                    properties.append(("tags", self.tags))
                    if let value = self.cover {
                        properties.append(("cover", value))
                    }
                    return FoundationModels.GeneratedContent(properties: properties, uniquingKeysWith: { first, _ in
                            first
                        })
                }
            }
            """
        }
    }

    @Test func recursiveType() {
        assertMacro {
            """
            @Generable
            struct Node {
                var value: Int
                var children: [Node]
            }
            """
        } expansion: {
            """
            struct Node {
                var value: Int
                var children: [Node]

                nonisolated init(value: Int, children: [Node]) {
                    self.value = value
                    self.children = children
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "value", type: Int.self),
                            FoundationModels.GenerationSchema.Property(name: "children", type: [Node].self),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var value: Int.PartiallyGenerated?
                    var children: [Node.PartiallyGenerated]?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.value = try content.value(forProperty: "value")
                        self.children = try content.value(forProperty: "children")
                    }
                }
            }

            extension Node: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.value = try content.value(forProperty: "value")
                    self.children = try content.value(forProperty: "children")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "value": self.value,
                            "children": self.children,
                        ]
                    )
                }
            }
            """
        }
    }

    @Test func publicStructGetsPublicMembers() {
        assertMacro {
            """
            @Generable
            public struct Summary {
                public let text: String
            }
            """
        } expansion: {
            """
            public struct Summary {
                public let text: String

                public nonisolated init(text: String) {
                    self.text = text
                }

                public nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "text", type: String.self),
                        ]
                    )
                }

                public nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    public var id: FoundationModels.GenerationID
                    public var text: String.PartiallyGenerated?

                    public init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.text = try content.value(forProperty: "text")
                    }
                }
            }

            extension Summary: nonisolated FoundationModels.Generable {
                public nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.text = try content.value(forProperty: "text")
                }

                public nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "text": self.text,
                        ]
                    )
                }
            }
            """
        }
    }

    @Test func generationIDIsNotGenerated() {
        assertMacro {
            """
            @Generable
            struct SearchTerm {
                var id: GenerationID

                @Guide(description: "A 2 or 3 word search term, like 'Beautiful sunsets'")
                var searchTerm: String
            }
            """
        } expansion: {
            """
            struct SearchTerm {
                var id: GenerationID
                var searchTerm: String

                nonisolated init(id: GenerationID, searchTerm: String) {
                    self.id = id
                    self.searchTerm = searchTerm
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "searchTerm", description: "A 2 or 3 word search term, like 'Beautiful sunsets'", type: String.self),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: GenerationID
                    var searchTerm: String.PartiallyGenerated?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.searchTerm = try content.value(forProperty: "searchTerm")
                    }
                }
            }

            extension SearchTerm: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.id = content.id ?? FoundationModels.GenerationID()
                    self.searchTerm = try content.value(forProperty: "searchTerm")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "searchTerm": self.searchTerm,
                        ],
                        id: self.id
                    )
                }
            }
            """
        }
    }

    @Test func skipsStaticComputedAndInitialisedLet() {
        assertMacro {
            """
            @Generable
            struct Recipe {
                static let version = 2
                static var shared: Recipe? = nil
                let kind = "recipe"
                var title: String
                var servings: Int = 2
                var summary: String { title }
                var notes: String {
                    get { title }
                    set {}
                }
                var rating: Int {
                    didSet { print(rating) }
                }
                lazy var cached: String = title
            }
            """
        } expansion: {
            """
            struct Recipe {
                static let version = 2
                static var shared: Recipe? = nil
                let kind = "recipe"
                var title: String
                var servings: Int = 2
                var summary: String { title }
                var notes: String {
                    get { title }
                    set {}
                }
                var rating: Int {
                    didSet { print(rating) }
                }
                lazy var cached: String = title

                nonisolated init(title: String, servings: Int = 2, rating: Int) {
                    self.title = title
                    self.servings = servings
                    self.rating = rating
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "title", type: String.self),
                            FoundationModels.GenerationSchema.Property(name: "servings", type: Int.self),
                            FoundationModels.GenerationSchema.Property(name: "rating", type: Int.self),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var title: String.PartiallyGenerated?
                    var servings: Int.PartiallyGenerated?
                    var rating: Int.PartiallyGenerated?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.title = try content.value(forProperty: "title")
                        self.servings = try content.value(forProperty: "servings")
                        self.rating = try content.value(forProperty: "rating")
                    }
                }
            }

            extension Recipe: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.title = try content.value(forProperty: "title")
                    self.servings = try content.value(forProperty: "servings")
                    self.rating = try content.value(forProperty: "rating")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "title": self.title,
                            "servings": self.servings,
                            "rating": self.rating,
                        ]
                    )
                }
            }
            """
        }
    }

    /// A static `generationSchema` and a type named `PartiallyGenerated` that the user wrote stand: the macro
    /// declares neither again.
    @Test func userWrittenSchemaAndMirrorAreKept() {
        assertMacro {
            """
            @Generable
            struct Fixed {
                var name: String
                static var generationSchema: GenerationSchema { GenerationSchema(type: Self.self, properties: []) }
                typealias PartiallyGenerated = Fixed
            }
            """
        } expansion: {
            """
            struct Fixed {
                var name: String
                static var generationSchema: GenerationSchema { GenerationSchema(type: Self.self, properties: []) }
                typealias PartiallyGenerated = Fixed

                nonisolated init(name: String) {
                    self.name = name
                }
            }

            extension Fixed: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.name = try content.value(forProperty: "name")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "name": self.name,
                        ]
                    )
                }
            }
            """
        }
    }

    @Test func userWrittenInitializerIsKept() {
        assertMacro {
            """
            @Generable
            struct Point {
                var x: Int
                var y: Int

                init(x: Int) {
                    self.x = x
                    self.y = 0
                }
            }
            """
        } expansion: {
            """
            struct Point {
                var x: Int
                var y: Int

                init(x: Int) {
                    self.x = x
                    self.y = 0
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "x", type: Int.self),
                            FoundationModels.GenerationSchema.Property(name: "y", type: Int.self),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var x: Int.PartiallyGenerated?
                    var y: Int.PartiallyGenerated?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.x = try content.value(forProperty: "x")
                        self.y = try content.value(forProperty: "y")
                    }
                }
            }

            extension Point: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.x = try content.value(forProperty: "x")
                    self.y = try content.value(forProperty: "y")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "x": self.x,
                            "y": self.y,
                        ]
                    )
                }
            }
            """
        }
    }

    @Test func emptyStruct() {
        assertMacro {
            """
            @Generable
            struct Nothing {
            }
            """
        } expansion: {
            """
            struct Nothing {

                nonisolated init() {
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: []
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                    }
                }
            }

            extension Nothing: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(properties: [:])
                }
            }
            """
        }
    }

    /// A type without a modifier in a `public extension` is public, so the conformance's members are too.
    @Test func typeInPublicExtensionGetsPublicMembers() {
        assertMacro {
            """
            public extension Outer {
                @Generable
                struct InExtension {
                    var text: String
                }
            }
            """
        } expansion: {
            """
            public extension Outer {
                struct InExtension {
                    var text: String

                    nonisolated init(text: String) {
                        self.text = text
                    }

                    public nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                        FoundationModels.GenerationSchema(
                            type: Self.self,
                            properties: [
                                FoundationModels.GenerationSchema.Property(name: "text", type: String.self),
                            ]
                        )
                    }

                    public nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                        public var id: FoundationModels.GenerationID
                        var text: String.PartiallyGenerated?

                        public init(_ content: FoundationModels.GeneratedContent) throws {
                            self.id = content.id ?? FoundationModels.GenerationID()
                            self.text = try content.value(forProperty: "text")
                        }
                    }
                }
            }

            extension Outer.InExtension: nonisolated FoundationModels.Generable {
                public nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.text = try content.value(forProperty: "text")
                }

                public nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "text": self.text,
                        ]
                    )
                }
            }
            """
        }
    }

    /// The memberwise initializer is as visible as the least visible property, as Swift's own is, and each
    /// mirror property keeps its property's level (`private` becomes `fileprivate`, so the type can read it).
    @Test func lessVisiblePropertiesLimitTheInitializerAndTheirMirrors() {
        assertMacro {
            """
            @Generable
            public struct Profile {
                public var name: String
                var hidden: Hidden
                private var secret: Int
            }
            """
        } expansion: {
            """
            public struct Profile {
                public var name: String
                var hidden: Hidden
                private var secret: Int

                fileprivate nonisolated init(name: String, hidden: Hidden, secret: Int) {
                    self.name = name
                    self.hidden = hidden
                    self.secret = secret
                }

                public nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "name", type: String.self),
                            FoundationModels.GenerationSchema.Property(name: "hidden", type: Hidden.self),
                            FoundationModels.GenerationSchema.Property(name: "secret", type: Int.self),
                        ]
                    )
                }

                public nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    public var id: FoundationModels.GenerationID
                    public var name: String.PartiallyGenerated?
                    var hidden: Hidden.PartiallyGenerated?
                    fileprivate var secret: Int.PartiallyGenerated?

                    public init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.name = try content.value(forProperty: "name")
                        self.hidden = try content.value(forProperty: "hidden")
                        self.secret = try content.value(forProperty: "secret")
                    }
                }
            }

            extension Profile: nonisolated FoundationModels.Generable {
                public nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.name = try content.value(forProperty: "name")
                    self.hidden = try content.value(forProperty: "hidden")
                    self.secret = try content.value(forProperty: "secret")
                }

                public nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "name": self.name,
                            "hidden": self.hidden,
                            "secret": self.secret,
                        ]
                    )
                }
            }
            """
        }
    }

    /// A property more visible than its type gives the type's level to the initializer and the mirror.
    @Test func propertiesMoreVisibleThanTheTypeAreCapped() {
        assertMacro {
            """
            @Generable
            package struct Profile {
                package var name: String
                public var age: Int
            }
            """
        } expansion: {
            """
            package struct Profile {
                package var name: String
                public var age: Int

                package nonisolated init(name: String, age: Int) {
                    self.name = name
                    self.age = age
                }

                package nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "name", type: String.self),
                            FoundationModels.GenerationSchema.Property(name: "age", type: Int.self),
                        ]
                    )
                }

                package nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    package var id: FoundationModels.GenerationID
                    package var name: String.PartiallyGenerated?
                    package var age: Int.PartiallyGenerated?

                    package init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.name = try content.value(forProperty: "name")
                        self.age = try content.value(forProperty: "age")
                    }
                }
            }

            extension Profile: nonisolated FoundationModels.Generable {
                package nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.name = try content.value(forProperty: "name")
                    self.age = try content.value(forProperty: "age")
                }

                package nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "name": self.name,
                            "age": self.age,
                        ]
                    )
                }
            }
            """
        }
    }

    /// Defaults that name nothing less visible than the type (literals, `.calm`, `.init` of literals) keep a public
    /// type's memberwise initializer public, so other modules can call it.
    @Test func publicInitializerWithDefaultsVisibleAnywhere() {
        assertMacro {
            """
            @Generable
            public struct Settings {
                public var mood: Mood = .calm
                public var size: Size = .init(width: 2)
                public var count: Int = -1
                public var names: [String] = ["a"]
            }
            """
        } expansion: {
            """
            public struct Settings {
                public var mood: Mood = .calm
                public var size: Size = .init(width: 2)
                public var count: Int = -1
                public var names: [String] = ["a"]

                public nonisolated init(mood: Mood = .calm, size: Size = .init(width: 2), count: Int = -1, names: [String] = ["a"]) {
                    self.mood = mood
                    self.size = size
                    self.count = count
                    self.names = names
                }

                public nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "mood", type: Mood.self),
                            FoundationModels.GenerationSchema.Property(name: "size", type: Size.self),
                            FoundationModels.GenerationSchema.Property(name: "count", type: Int.self),
                            FoundationModels.GenerationSchema.Property(name: "names", type: [String].self),
                        ]
                    )
                }

                public nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    public var id: FoundationModels.GenerationID
                    public var mood: Mood.PartiallyGenerated?
                    public var size: Size.PartiallyGenerated?
                    public var count: Int.PartiallyGenerated?
                    public var names: [String.PartiallyGenerated]?

                    public init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.mood = try content.value(forProperty: "mood")
                        self.size = try content.value(forProperty: "size")
                        self.count = try content.value(forProperty: "count")
                        self.names = try content.value(forProperty: "names")
                    }
                }
            }

            extension Settings: nonisolated FoundationModels.Generable {
                public nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.mood = try content.value(forProperty: "mood")
                    self.size = try content.value(forProperty: "size")
                    self.count = try content.value(forProperty: "count")
                    self.names = try content.value(forProperty: "names")
                }

                public nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "mood": self.mood,
                            "size": self.size,
                            "count": self.count,
                            "names": self.names,
                        ]
                    )
                }
            }
            """
        }
    }

    /// A default that may name something internal makes the initializer internal, as Swift's own is.
    @Test func internalInitializerWhenADefaultMayNameSomethingInternal() {
        assertMacro {
            """
            @Generable
            public struct Greeting {
                public var text: String = "Hi \\(name)"
                public var count: Int = -limit
            }
            """
        } expansion: {
            #"""
            public struct Greeting {
                public var text: String = "Hi \(name)"
                public var count: Int = -limit

                nonisolated init(text: String = "Hi \(name)", count: Int = -limit) {
                    self.text = text
                    self.count = count
                }

                public nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "text", type: String.self),
                            FoundationModels.GenerationSchema.Property(name: "count", type: Int.self),
                        ]
                    )
                }

                public nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    public var id: FoundationModels.GenerationID
                    public var text: String.PartiallyGenerated?
                    public var count: Int.PartiallyGenerated?

                    public init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.text = try content.value(forProperty: "text")
                        self.count = try content.value(forProperty: "count")
                    }
                }
            }

            extension Greeting: nonisolated FoundationModels.Generable {
                public nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.text = try content.value(forProperty: "text")
                    self.count = try content.value(forProperty: "count")
                }

                public nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "text": self.text,
                            "count": self.count,
                        ]
                    )
                }
            }
            """#
        }
    }
}
