import MacroTesting
import Testing

/// `@SessionPropertyEntry` and `@Generable(name:)` expansions.
@Suite(.macros(foundationModelsMacros))
struct SessionPropertyEntryExpansionTests {
    @Test func entryWithDefault() {
        assertMacro {
            """
            extension SessionPropertyValues {
                @SessionPropertyEntry var isPremiumUser: Bool = false
            }
            """
        } expansion: {
            """
            extension SessionPropertyValues {
                var isPremiumUser: Bool {
                    get {
                        self[__Key_isPremiumUser.self]
                    }
                    set {
                        self[__Key_isPremiumUser.self] = newValue
                    }
                }

                private struct __Key_isPremiumUser: FoundationModels.SessionPropertyKey {
                    static var defaultValue: Bool {
                        false
                    }
                }
            }
            """
        }
    }

    @Test func optionalEntryDefaultsToNil() {
        assertMacro {
            """
            extension SessionPropertyValues {
                @SessionPropertyEntry public var visits: Int?
            }
            """
        } expansion: {
            """
            extension SessionPropertyValues {
                public var visits: Int? {
                    get {
                        self[__Key_visits.self]
                    }
                    set {
                        self[__Key_visits.self] = newValue
                    }
                }

                struct __Key_visits: FoundationModels.SessionPropertyKey {
                    static var defaultValue: Int? {
                        nil
                    }
                }
            }
            """
        }
    }

    @Test func entryWithoutDefaultIsDiagnosed() {
        assertMacro {
            """
            extension SessionPropertyValues {
                @SessionPropertyEntry var name: String
            }
            """
        } diagnostics: {
            """
            extension SessionPropertyValues {
                @SessionPropertyEntry var name: String
                ┬────────────────────
                ╰─ 🛑 @SessionPropertyEntry property 'name' needs a default value
            }
            """
        }
    }

    @Test func namedGenerable() {
        assertMacro {
            """
            @Generable(name: "Pet")
            struct NamedPet {
                var name: String
            }
            """
        } expansion: {
            """
            struct NamedPet {
                var name: String

                nonisolated init(name: String) {
                    self.name = name
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema._named("Pet", for: Self.self) {
                        FoundationModels.GenerationSchema(
                            type: Self.self,
                            properties: [
                                    FoundationModels.GenerationSchema.Property(name: "name", type: String.self),
                                ]
                        )
                    }
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

            extension NamedPet: nonisolated FoundationModels.Generable {
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
}
