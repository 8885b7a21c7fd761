import MacroTesting
import Testing

@Suite(.macros(foundationModelsMacros))
struct GuideExpansionTests {
    @Test func everyGuideKind() {
        assertMacro {
            #"""
            @Generable
            struct Everything {
                @Guide(description: "A greeting", .constant("hello"))
                var greeting: String

                @Guide(.anyOf(["red", "green", "blue"]))
                var color: String

                @Guide(.pattern(/[a-z]+/))
                var word: String

                @Guide(.minimum(1))
                var lower: Int

                @Guide(.maximum(9.5))
                var upper: Double

                @Guide(description: "The age of the cat", .range(0...20))
                var age: Int

                @Guide(.count(3))
                var exactly: [String]

                @Guide(.count(1...3))
                var between: [String]

                @Guide(.minimumCount(1), .maximumCount(10))
                var bounded: [String]

                @Guide(description: "Digits", .element(.range(0...9)), .count(4))
                var code: [Int]
            }
            """#
        } expansion: {
            """
            struct Everything {
                var greeting: String
                var color: String
                var word: String
                var lower: Int
                var upper: Double
                var age: Int
                var exactly: [String]
                var between: [String]
                var bounded: [String]
                var code: [Int]

                nonisolated init(greeting: String, color: String, word: String, lower: Int, upper: Double, age: Int, exactly: [String], between: [String], bounded: [String], code: [Int]) {
                    self.greeting = greeting
                    self.color = color
                    self.word = word
                    self.lower = lower
                    self.upper = upper
                    self.age = age
                    self.exactly = exactly
                    self.between = between
                    self.bounded = bounded
                    self.code = code
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "greeting", description: "A greeting", type: String.self, guides: [FoundationModels.GenerationGuide<String>.constant("hello")]),
                            FoundationModels.GenerationSchema.Property(name: "color", type: String.self, guides: [FoundationModels.GenerationGuide<String>.anyOf(["red", "green", "blue"])]),
                            FoundationModels.GenerationSchema.Property(name: "word", type: String.self, guides: [FoundationModels.GenerationGuide<String>._pattern(/[a-z]+/, source: "[a-z]+")]),
                            FoundationModels.GenerationSchema.Property(name: "lower", type: Int.self, guides: [FoundationModels.GenerationGuide<Int>.minimum(1)]),
                            FoundationModels.GenerationSchema.Property(name: "upper", type: Double.self, guides: [FoundationModels.GenerationGuide<Double>.maximum(9.5)]),
                            FoundationModels.GenerationSchema.Property(name: "age", description: "The age of the cat", type: Int.self, guides: [FoundationModels.GenerationGuide<Int>.range(0 ... 20)]),
                            FoundationModels.GenerationSchema.Property(name: "exactly", type: [String].self, guides: [FoundationModels.GenerationGuide<[String]>.count(3)]),
                            FoundationModels.GenerationSchema.Property(name: "between", type: [String].self, guides: [FoundationModels.GenerationGuide<[String]>.count(1 ... 3)]),
                            FoundationModels.GenerationSchema.Property(name: "bounded", type: [String].self, guides: [FoundationModels.GenerationGuide<[String]>.minimumCount(1), FoundationModels.GenerationGuide<[String]>.maximumCount(10)]),
                            FoundationModels.GenerationSchema.Property(name: "code", description: "Digits", type: [Int].self, guides: [FoundationModels.GenerationGuide<[Int]>.element(.range(0 ... 9)), FoundationModels.GenerationGuide<[Int]>.count(4)]),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var greeting: String.PartiallyGenerated?
                    var color: String.PartiallyGenerated?
                    var word: String.PartiallyGenerated?
                    var lower: Int.PartiallyGenerated?
                    var upper: Double.PartiallyGenerated?
                    var age: Int.PartiallyGenerated?
                    var exactly: [String.PartiallyGenerated]?
                    var between: [String.PartiallyGenerated]?
                    var bounded: [String.PartiallyGenerated]?
                    var code: [Int.PartiallyGenerated]?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.greeting = try content.value(forProperty: "greeting")
                        self.color = try content.value(forProperty: "color")
                        self.word = try content.value(forProperty: "word")
                        self.lower = try content.value(forProperty: "lower")
                        self.upper = try content.value(forProperty: "upper")
                        self.age = try content.value(forProperty: "age")
                        self.exactly = try content.value(forProperty: "exactly")
                        self.between = try content.value(forProperty: "between")
                        self.bounded = try content.value(forProperty: "bounded")
                        self.code = try content.value(forProperty: "code")
                    }
                }
            }

            extension Everything: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.greeting = try content.value(forProperty: "greeting")
                    self.color = try content.value(forProperty: "color")
                    self.word = try content.value(forProperty: "word")
                    self.lower = try content.value(forProperty: "lower")
                    self.upper = try content.value(forProperty: "upper")
                    self.age = try content.value(forProperty: "age")
                    self.exactly = try content.value(forProperty: "exactly")
                    self.between = try content.value(forProperty: "between")
                    self.bounded = try content.value(forProperty: "bounded")
                    self.code = try content.value(forProperty: "code")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "greeting": self.greeting,
                            "color": self.color,
                            "word": self.word,
                            "lower": self.lower,
                            "upper": self.upper,
                            "age": self.age,
                            "exactly": self.exactly,
                            "between": self.between,
                            "bounded": self.bounded,
                            "code": self.code,
                        ]
                    )
                }
            }
            """
        }
    }

    @Test func regexLiterals() {
        assertMacro {
            #"""
            @Generable
            struct Product {
                @Guide(description: "SKU", /[A-Z]{3}-\d{4}/)
                var sku: String

                @Guide(#/a/b"c/#)
                var path: String?

                @Guide(.element(.pattern(/\w+/)))
                var words: [String]
            }
            """#
        } expansion: {
            #"""
            struct Product {
                var sku: String
                var path: String?
                var words: [String]

                nonisolated init(sku: String, path: String? = nil, words: [String]) {
                    self.sku = sku
                    self.path = path
                    self.words = words
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "sku", description: "SKU", type: String.self, guides: [FoundationModels.GenerationGuide<String>._pattern(/[A-Z]{3}-\d{4}/, source: "[A-Z]{3}-\\d{4}")]),
                            FoundationModels.GenerationSchema.Property(name: "path", type: String?.self, guides: [FoundationModels.GenerationGuide<String>._pattern(#/a/b"c/#, source: "a/b\"c")]),
                            FoundationModels.GenerationSchema.Property(name: "words", type: [String].self, guides: [FoundationModels.GenerationGuide<[String]>.element(FoundationModels.GenerationGuide<String>._pattern(/\w+/, source: "\\w+"))]),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var sku: String.PartiallyGenerated?
                    var path: String.PartiallyGenerated?
                    var words: [String.PartiallyGenerated]?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.sku = try content.value(forProperty: "sku")
                        self.path = try content.value(forProperty: "path")
                        self.words = try content.value(forProperty: "words")
                    }
                }
            }

            extension Product: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.sku = try content.value(forProperty: "sku")
                    self.path = try content.value(forProperty: "path")
                    self.words = try content.value(forProperty: "words")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    var properties: [(String, any FoundationModels.ConvertibleToGeneratedContent)] = []
                    properties.append(("sku", self.sku))
                    if let value = self.path {
                        properties.append(("path", value))
                    }
                    properties.append(("words", self.words))
                    return FoundationModels.GeneratedContent(properties: properties, uniquingKeysWith: { first, _ in
                            first
                        })
                }
            }
            """#
        }
    }

    @Test func stackedGuidesMerge() {
        assertMacro {
            """
            @Generable
            struct Trip {
                @Guide(description: "A list of day-by-day plans.")
                @Guide(.count(3))
                let days: [DayPlan]
            }
            """
        } expansion: {
            """
            struct Trip {
                let days: [DayPlan]

                nonisolated init(days: [DayPlan]) {
                    self.days = days
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "days", description: "A list of day-by-day plans.", type: [DayPlan].self, guides: [FoundationModels.GenerationGuide<[DayPlan]>.count(3)]),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var days: [DayPlan.PartiallyGenerated]?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.days = try content.value(forProperty: "days")
                    }
                }
            }

            extension Trip: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.days = try content.value(forProperty: "days")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "days": self.days,
                        ]
                    )
                }
            }
            """
        }
    }

    @Test func namedConstantsPassThrough() {
        assertMacro {
            """
            @Generable
            struct Tagging {
                @Guide(description: Descriptions.topics, .maximumCount(Limits.topics))
                let topics: [String]

                @Guide(.range(0...maxScore))
                let score: Int

                @Guide(.anyOf(Category.allNames))
                let category: String
            }
            """
        } expansion: {
            """
            struct Tagging {
                let topics: [String]
                let score: Int
                let category: String

                nonisolated init(topics: [String], score: Int, category: String) {
                    self.topics = topics
                    self.score = score
                    self.category = category
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "topics", description: Descriptions.topics, type: [String].self, guides: [FoundationModels.GenerationGuide<[String]>.maximumCount(Limits.topics)]),
                            FoundationModels.GenerationSchema.Property(name: "score", type: Int.self, guides: [FoundationModels.GenerationGuide<Int>.range(0 ... maxScore)]),
                            FoundationModels.GenerationSchema.Property(name: "category", type: String.self, guides: [FoundationModels.GenerationGuide<String>.anyOf(Category.allNames)]),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var topics: [String.PartiallyGenerated]?
                    var score: Int.PartiallyGenerated?
                    var category: String.PartiallyGenerated?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.topics = try content.value(forProperty: "topics")
                        self.score = try content.value(forProperty: "score")
                        self.category = try content.value(forProperty: "category")
                    }
                }
            }

            extension Tagging: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.topics = try content.value(forProperty: "topics")
                    self.score = try content.value(forProperty: "score")
                    self.category = try content.value(forProperty: "category")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    FoundationModels.GeneratedContent(
                        properties: [
                            "topics": self.topics,
                            "score": self.score,
                            "category": self.category,
                        ]
                    )
                }
            }
            """
        }
    }

    @Test func guideOnComputedProperty() {
        assertMacro {
            """
            struct Holder {
                @Guide(description: "Computed")
                var computed: String { "x" }
            }
            """
        } diagnostics: {
            """
            struct Holder {
                @Guide(description: "Computed")
                ┬──────────────────────────────
                ╰─ 🛑 @Guide can only be applied to a stored property; this is a computed property
                var computed: String { "x" }
            }
            """
        }
    }

    @Test func guideOnStaticProperty() {
        assertMacro {
            """
            struct Holder {
                @Guide(description: "Static")
                static var shared: String = ""
            }
            """
        } diagnostics: {
            """
            struct Holder {
                @Guide(description: "Static")
                ┬────────────────────────────
                ╰─ 🛑 @Guide can only be applied to a stored property; this is a static property
                static var shared: String = ""
            }
            """
        }
    }

    @Test func guideOnFunction() {
        assertMacro {
            """
            struct Holder {
                @Guide(description: "Function")
                func make() {}
            }
            """
        } diagnostics: {
            """
            struct Holder {
                @Guide(description: "Function")
                ┬──────────────────────────────
                ╰─ 🛑 @Guide can only be applied to a stored property
                func make() {}
            }
            """
        }
    }

    @Test func duplicateDescriptionWarns() {
        assertMacro {
            """
            @Generable
            struct Named {
                @Guide(description: "First")
                @Guide(description: "Second")
                var name: String
            }
            """
        } diagnostics: {
            """
            @Generable
            struct Named {
                @Guide(description: "First")
                @Guide(description: "Second")
                ┬────────────────────────────
                ╰─ ⚠️ property 'name' has more than one @Guide description; the first one is used
                var name: String
            }
            """
        } expansion: {
            """
            struct Named {
                var name: String

                nonisolated init(name: String) {
                    self.name = name
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "name", description: "First", type: String.self),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var name: String.PartiallyGenerated?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.name = try content.value(forProperty: "name")
                    }
                }
            }

            extension Named: nonisolated FoundationModels.Generable {
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

    /// A guide on a property `@Generable` leaves out would have no effect.
    @Test func guideOnPropertiesThatAreNotGenerated() {
        assertMacro {
            """
            @Generable
            struct Rating {
                @Guide(description: "Fixed", .range(0...5))
                let fixed: Int = 3
                @Guide(description: "Identifier")
                var id: GenerationID
                var stars: Int
            }
            """
        } diagnostics: {
            """
            @Generable
            struct Rating {
                @Guide(description: "Fixed", .range(0...5))
                ┬──────────────────────────────────────────
                ╰─ 🛑 @Guide has no effect on 'fixed': a 'let' with an initial value cannot be assigned, so the model does not generate it
                let fixed: Int = 3
                @Guide(description: "Identifier")
                ┬────────────────────────────────
                ╰─ 🛑 @Guide has no effect on 'id': a GenerationID takes the response's identifier, so the model does not generate it
                var id: GenerationID
                var stars: Int
            }
            """
        }
    }
}
