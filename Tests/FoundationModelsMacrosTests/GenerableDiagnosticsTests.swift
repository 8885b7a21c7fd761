import MacroTesting
import Testing

@Suite(.macros(foundationModelsMacros))
struct GenerableDiagnosticsTests {
    @Test func missingTypeAnnotation() {
        assertMacro {
            """
            @Generable
            struct Counter {
                var count = 0
            }
            """
        } diagnostics: {
            """
            @Generable
            struct Counter {
                var count = 0
                    ┬────
                    ╰─ 🛑 @Generable property 'count' needs an explicit type annotation
            }
            """
        }
    }

    @Test func destructuringPattern() {
        assertMacro {
            """
            @Generable
            struct Place {
                var (lat, lon): (Double, Double)
            }
            """
        } diagnostics: {
            """
            @Generable
            struct Place {
                var (lat, lon): (Double, Double)
                    ┬─────────
                    ╰─ 🛑 @Generable cannot name the properties bound by '(lat, lon)'; declare each property on its own (for example 'var a: Int' and 'var b: Int')
            }
            """
        }
    }

    /// The expansion keeps an enumeration's own content initializer, so one inside `#if` (which it cannot see)
    /// would be declared twice.
    @Test func enumContentInitializerInsideIfConfig() {
        assertMacro {
            """
            @Generable
            enum Mood {
                case calm
                #if os(Linux)
                init(_ content: GeneratedContent) throws { self = .calm }
                #endif
            }
            """
        } diagnostics: {
            """
            @Generable
            enum Mood {
                case calm
                #if os(Linux)
                init(_ content: GeneratedContent) throws { self = .calm }
                ┬───
                ╰─ 🛑 initializer is declared inside '#if'; @Generable cannot tell whether it is compiled, so declare it outside '#if'
                #endif
            }
            """
        }
    }

    @Test func nonGenerablePropertyTypes() {
        assertMacro {
            """
            @Generable
            struct Event {
                var action: () -> Void
                var position: (Int, Int)
                var scores: [String: Int]
                var tags: Set<String>
                var date: Date
                var dates: [Date]?
                var value: any Equatable
            }
            """
        } diagnostics: {
            """
            @Generable
            struct Event {
                var action: () -> Void
                            ┬─────────
                            ╰─ 🛑 @Generable property 'action' has type '() -> Void', which cannot be generated: function types have no schema
                var position: (Int, Int)
                              ┬─────────
                              ╰─ 🛑 @Generable property 'position' has type '(Int, Int)', which cannot be generated: tuples have no schema; use a @Generable struct
                var scores: [String: Int]
                            ┬────────────
                            ╰─ 🛑 @Generable property 'scores' has type '[String: Int]', which cannot be generated: dictionaries have no schema; use a @Generable struct or an array of pairs
                var tags: Set<String>
                          ┬──────────
                          ╰─ 🛑 @Generable property 'tags' has type 'Set<String>', which cannot be generated: sets are not Generable; use an array
                var date: Date
                          ┬───
                          ╰─ 🛑 @Generable property 'date' has type 'Date', which cannot be generated: Date is not Generable; use a String (for example ISO 8601) or a @Generable struct
                var dates: [Date]?
                           ┬──────
                           ╰─ 🛑 @Generable property 'dates' has type '[Date]?', which cannot be generated: Date is not Generable; use a String (for example ISO 8601) or a @Generable struct
                var value: any Equatable
                           ┬────────────
                           ╰─ 🛑 @Generable property 'value' has type 'any Equatable', which cannot be generated: 'any' types have no schema; use a concrete type
            }
            """
        }
    }

    /// Swift's and Foundation's types are refused when qualified by their module too; a type qualified by any
    /// other name is the user's own and passes (see GenerableSpellingTests for ones that compile).
    @Test func qualifiedStandardTypesAreRefused() {
        assertMacro {
            """
            @Generable
            struct Letter {
                var initial: Swift.Character
                var sent: Foundation.Date
                var kinds: Swift.Set<String>
            }
            """
        } diagnostics: {
            """
            @Generable
            struct Letter {
                var initial: Swift.Character
                             ┬──────────────
                             ╰─ 🛑 @Generable property 'initial' has type 'Swift.Character', which cannot be generated: Character is not Generable; use a String
                var sent: Foundation.Date
                          ┬──────────────
                          ╰─ 🛑 @Generable property 'sent' has type 'Foundation.Date', which cannot be generated: Date is not Generable; use a String (for example ISO 8601) or a @Generable struct
                var kinds: Swift.Set<String>
                           ┬────────────────
                           ╰─ 🛑 @Generable property 'kinds' has type 'Swift.Set<String>', which cannot be generated: sets are not Generable; use an array
            }
            """
        }
    }

    @Test func nonGenerableAssociatedValue() {
        assertMacro {
            """
            @Generable
            enum Payload {
                case timed(at: Date)
                case callback(() -> Void)
            }
            """
        } diagnostics: {
            """
            @Generable
            enum Payload {
                case timed(at: Date)
                               ┬───
                               ╰─ 🛑 associated value of case 'timed' has type 'Date', which cannot be generated: Date is not Generable; use a String (for example ISO 8601) or a @Generable struct
                case callback(() -> Void)
                              ┬─────────
                              ╰─ 🛑 associated value of case 'callback' has type '() -> Void', which cannot be generated: function types have no schema
            }
            """
        }
    }

    /// `Optional` marks a property that may be left out, one level deep: an optional of an optional, or an array of
    /// optionals, has no schema, and is refused at the property rather than by the conformance inside the expansion.
    @Test func optionalsInsideOptionalsOrArraysAreRefused() {
        assertMacro {
            """
            @Generable
            struct Reading {
                var twice: Int??
                var spelled: Optional<Int?>
                var gaps: [Int?]
                var maybeGaps: [String?]?
                var wrapped: (Int?)?
            }
            """
        } diagnostics: {
            """
            @Generable
            struct Reading {
                var twice: Int??
                           ┬────
                           ╰─ 🛑 @Generable property 'twice' has type 'Int??', which cannot be generated: an optional of an optional has no schema; use one '?'
                var spelled: Optional<Int?>
                             ┬─────────────
                             ╰─ 🛑 @Generable property 'spelled' has type 'Optional<Int?>', which cannot be generated: an optional of an optional has no schema; use one '?'
                var gaps: [Int?]
                          ┬─────
                          ╰─ 🛑 @Generable property 'gaps' has type '[Int?]', which cannot be generated: an array's elements cannot be optional; leave out the '?' of the elements (the array itself may be optional)
                var maybeGaps: [String?]?
                               ┬─────────
                               ╰─ 🛑 @Generable property 'maybeGaps' has type '[String?]?', which cannot be generated: an array's elements cannot be optional; leave out the '?' of the elements (the array itself may be optional)
                var wrapped: (Int?)?
                             ┬──────
                             ╰─ 🛑 @Generable property 'wrapped' has type '(Int?)?', which cannot be generated: an optional of an optional has no schema; use one '?'
            }
            """
        }
    }

    /// An unlabeled associated value is keyed by its position (`_1`); a label spelled the same would share the key,
    /// and one of the two values would be lost in the content and the schema would not build.
    @Test func associatedValuesOfOneKeyAreRejected() {
        assertMacro {
            """
            @Generable
            enum Pair {
                case p(_1: Int, Int)
                case q(Int, _0: String)
            }
            """
        } diagnostics: {
            """
            @Generable
            enum Pair {
                case p(_1: Int, Int)
                                ┬──
                                ╰─ 🛑 two associated values of case 'p' are keyed '_1' (@Generable keys an unlabeled value by its position: _0, _1, …); label them apart
                case q(Int, _0: String)
                            ┬─────────
                            ╰─ 🛑 two associated values of case 'q' are keyed '_0' (@Generable keys an unlabeled value by its position: _0, _1, …); label them apart
            }
            """
        }
    }

    /// Cases that differ only in their labels would share one choice and one schema name: refused at compile time.
    @Test func casesOfOneNameAreRejected() {
        assertMacro {
            """
            @Generable
            enum Point {
                case p(x: Int)
                case p(y: String)
            }
            """
        } diagnostics: {
            """
            @Generable
            enum Point {
                case p(x: Int)
                case p(y: String)
                     ┬
                     ╰─ 🛑 more than one case is named 'p'; @Generable names each answer by its case, so give the cases distinct names
            }
            """
        }
    }

    @Test func classIsRejected() {
        assertMacro {
            """
            @Generable
            class Profile {
                var name: String = ""
            }
            """
        } diagnostics: {
            """
            @Generable
            ┬─────────
            ╰─ 🛑 @Generable can only be applied to a struct or an enum, not to a class
            class Profile {
                var name: String = ""
            }
            """
        }
    }

    @Test func actorIsRejected() {
        assertMacro {
            """
            @Generable
            actor Profile {
                var name: String = ""
            }
            """
        } diagnostics: {
            """
            @Generable
            ┬─────────
            ╰─ 🛑 @Generable can only be applied to a struct or an enum, not to an actor
            actor Profile {
                var name: String = ""
            }
            """
        }
    }

    /// A macro cannot tell which `#if` clause is compiled, so members that shape the expansion are refused there.
    @Test func storedPropertyAndInitializerInsideIfConfig() {
        assertMacro {
            """
            @Generable
            struct Settings {
                var name: String
                #if DEBUG
                var note: String
                var flag = false
                static var shared = 0
                var summary: String { name }
                #elseif os(Linux)
                init(name: String) {
                    self.name = name
                }
                #endif
            }
            """
        } diagnostics: {
            """
            @Generable
            struct Settings {
                var name: String
                #if DEBUG
                var note: String
                    ┬───
                    ╰─ 🛑 stored property 'note' is declared inside '#if'; @Generable cannot tell whether it is compiled, so declare it outside '#if'
                var flag = false
                    ┬───
                    ╰─ ⚠️ stored property 'flag' is declared inside '#if', where @Generable cannot see it: it is not generated and keeps its initial value; declare it outside '#if' to include it
                static var shared = 0
                var summary: String { name }
                #elseif os(Linux)
                init(name: String) {
                ┬───
                ╰─ 🛑 initializer is declared inside '#if'; @Generable cannot tell whether it is compiled, so declare it outside '#if'
                    self.name = name
                }
                #endif
            }
            """
        }
    }

    /// A property with an initial value, or an initializer the expansion does not declare again, compiles without
    /// the macro seeing it: a warning says what is left out, and the type still expands.
    @Test func ifConfigMembersThatCompileGetWarnings() {
        assertMacro {
            """
            @Generable
            struct Note {
                var text: String
                #if DEBUG
                var flag = false
                init(debugText: String) {
                    self.text = debugText
                }
                #endif
            }
            """
        } diagnostics: {
            """
            @Generable
            struct Note {
                var text: String
                #if DEBUG
                var flag = false
                    ┬───
                    ╰─ ⚠️ stored property 'flag' is declared inside '#if', where @Generable cannot see it: it is not generated and keeps its initial value; declare it outside '#if' to include it
                init(debugText: String) {
                ┬───
                ╰─ ⚠️ initializer is declared inside '#if', where @Generable cannot see it: @Generable adds its initializers as if it were not there; declare it outside '#if' to include it
                    self.text = debugText
                }
                #endif
            }
            """
        } expansion: {
            """
            struct Note {
                var text: String
                #if DEBUG
                var flag = false
                init(debugText: String) {
                    self.text = debugText
                }
                #endif

                nonisolated init(text: String) {
                    self.text = text
                }

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(
                        type: Self.self,
                        properties: [
                            FoundationModels.GenerationSchema.Property(name: "text", type: String.self),
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                    var id: FoundationModels.GenerationID
                    var text: String.PartiallyGenerated?

                    init(_ content: FoundationModels.GeneratedContent) throws {
                        self.id = content.id ?? FoundationModels.GenerationID()
                        self.text = try content.value(forProperty: "text")
                    }
                }
            }

            extension Note: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    self.text = try content.value(forProperty: "text")
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
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

    /// A case inside `#if` is refused: the macro cannot tell whether it is compiled.
    @Test func caseInsideIfConfig() {
        assertMacro {
            """
            @Generable
            enum Level {
                case low
                #if DEBUG
                case debug
                #endif
            }
            """
        } diagnostics: {
            """
            @Generable
            enum Level {
                case low
                #if DEBUG
                case debug
                     ┬────
                     ╰─ 🛑 case 'debug' is declared inside '#if'; @Generable cannot tell whether it is compiled, so declare it outside '#if'
                #endif
            }
            """
        }
    }
}
