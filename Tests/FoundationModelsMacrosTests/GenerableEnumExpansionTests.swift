import MacroTesting
import Testing

@Suite(.macros(foundationModelsMacros))
struct GenerableEnumExpansionTests {
    @Test func simpleEnum() {
        assertMacro {
            """
            @Generable(description: "A note category")
            enum NoteCategory: String, CaseIterable {
                case personal
                case work, `default`
            }
            """
        } expansion: {
            #"""
            enum NoteCategory: String, CaseIterable {
                case personal
                case work, `default`

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(type: Self.self, description: "A note category", anyOf: ["personal", "work", "default"])
                }
            }

            extension NoteCategory: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    let choice = try content.value(String.self)
                    switch choice {
                    case "personal":
                        self = .personal
                    case "work":
                        self = .work
                    case "default":
                        self = .`default`
                    default:
                        throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(codingPath: [], debugDescription: "unexpected case '\(choice)'"))
                    }
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    switch self {
                    case .personal:
                        FoundationModels.GeneratedContent(kind: .string("personal"))
                    case .work:
                        FoundationModels.GeneratedContent(kind: .string("work"))
                    case .`default`:
                        FoundationModels.GeneratedContent(kind: .string("default"))
                    }
                }
            }
            """#
        }
    }

    @Test func publicSimpleEnum() {
        assertMacro {
            """
            @Generable
            public enum Breakfast {
                case waffles
                case pancakes
            }
            """
        } expansion: {
            #"""
            public enum Breakfast {
                case waffles
                case pancakes

                public nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema(type: Self.self, anyOf: ["waffles", "pancakes"])
                }
            }

            extension Breakfast: nonisolated FoundationModels.Generable {
                public nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    let choice = try content.value(String.self)
                    switch choice {
                    case "waffles":
                        self = .waffles
                    case "pancakes":
                        self = .pancakes
                    default:
                        throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(codingPath: [], debugDescription: "unexpected case '\(choice)'"))
                    }
                }

                public nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    switch self {
                    case .waffles:
                        FoundationModels.GeneratedContent(kind: .string("waffles"))
                    case .pancakes:
                        FoundationModels.GeneratedContent(kind: .string("pancakes"))
                    }
                }
            }
            """#
        }
    }

    @Test func enumWithAssociatedValues() {
        assertMacro {
            """
            @Generable
            enum Shape {
                case circle(radius: Double)
                case text(String)
                case pair(Int, Int)
                case labelled(title: String, subtitle: String?)
                case nested(Landmark)
                case none
            }
            """
        } expansion: {
            #"""
            enum Shape {
                case circle(radius: Double)
                case text(String)
                case pair(Int, Int)
                case labelled(title: String, subtitle: String?)
                case nested(Landmark)
                case none

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema._building(Self.self) { name in
                        let root = FoundationModels.DynamicGenerationSchema(
                            name: name,
                            anyOf: [
                                FoundationModels.DynamicGenerationSchema(
                                    name: name + ".circle",
                                    properties: [
                                        FoundationModels.DynamicGenerationSchema.Property(
                                            name: "circle",
                                            schema: FoundationModels.DynamicGenerationSchema(
                                                name: name + ".circle.payload",
                                                properties: [
                                                    FoundationModels.DynamicGenerationSchema.Property(name: "radius", schema: FoundationModels.DynamicGenerationSchema(type: Double.self)),
                                                ]
                                            )
                                        ),
                                    ]
                                ),
                                FoundationModels.DynamicGenerationSchema(
                                    name: name + ".text",
                                    properties: [
                                        FoundationModels.DynamicGenerationSchema.Property(
                                            name: "text",
                                            schema: FoundationModels.DynamicGenerationSchema(type: String.self)
                                        ),
                                    ]
                                ),
                                FoundationModels.DynamicGenerationSchema(
                                    name: name + ".pair",
                                    properties: [
                                        FoundationModels.DynamicGenerationSchema.Property(
                                            name: "pair",
                                            schema: FoundationModels.DynamicGenerationSchema(
                                                name: name + ".pair.payload",
                                                properties: [
                                                    FoundationModels.DynamicGenerationSchema.Property(name: "_0", schema: FoundationModels.DynamicGenerationSchema(type: Int.self)),
                                                    FoundationModels.DynamicGenerationSchema.Property(name: "_1", schema: FoundationModels.DynamicGenerationSchema(type: Int.self)),
                                                ]
                                            )
                                        ),
                                    ]
                                ),
                                FoundationModels.DynamicGenerationSchema(
                                    name: name + ".labelled",
                                    properties: [
                                        FoundationModels.DynamicGenerationSchema.Property(
                                            name: "labelled",
                                            schema: FoundationModels.DynamicGenerationSchema(
                                                name: name + ".labelled.payload",
                                                properties: [
                                                    FoundationModels.DynamicGenerationSchema.Property(name: "title", schema: FoundationModels.DynamicGenerationSchema(type: String.self)),
                                                    FoundationModels.DynamicGenerationSchema.Property(name: "subtitle", schema: FoundationModels.DynamicGenerationSchema(type: String.self), isOptional: true),
                                                ]
                                            )
                                        ),
                                    ]
                                ),
                                FoundationModels.DynamicGenerationSchema(
                                    name: name + ".nested",
                                    properties: [
                                        FoundationModels.DynamicGenerationSchema.Property(
                                            name: "nested",
                                            schema: FoundationModels.DynamicGenerationSchema(type: Landmark.self)
                                        ),
                                    ]
                                ),
                                FoundationModels.DynamicGenerationSchema(
                                    name: name + ".none",
                                    properties: [
                                        FoundationModels.DynamicGenerationSchema.Property(
                                            name: "none",
                                            schema: FoundationModels.DynamicGenerationSchema(
                                                name: name + ".none.payload",
                                                properties: []
                                            )
                                        ),
                                    ]
                                ),
                            ]
                        )
                        // The alternatives are built from the enum's own cases, so they cannot conflict.
                        return try! FoundationModels.GenerationSchema(root: root, dependencies: [])
                    }
                }
            }

            extension Shape: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    guard case .structure(let properties, let orderedKeys) = content.kind,
                        let caseName = orderedKeys.first,
                        let payload = properties[caseName]
                    else {
                        throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(codingPath: [], debugDescription: "expected an object with one key naming a case of Shape"))
                    }
                    switch caseName {
                    case "circle":
                        self = .circle(radius: try payload.value(forProperty: "radius"))
                    case "text":
                        self = .text(try payload.value())
                    case "pair":
                        self = .pair(try payload.value(forProperty: "_0"), try payload.value(forProperty: "_1"))
                    case "labelled":
                        self = .labelled(title: try payload.value(forProperty: "title"), subtitle: try payload.value(forProperty: "subtitle"))
                    case "nested":
                        self = .nested(try payload.value())
                    case "none":
                        self = .none
                    default:
                        throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(codingPath: [], debugDescription: "unexpected case '\(caseName)'"))
                    }
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    switch self {
                    case .circle(let value0):
                        let payload = FoundationModels.GeneratedContent(properties: ["radius": value0])
                        return FoundationModels.GeneratedContent(properties: ["circle": payload])
                    case .text(let value0):
                        return FoundationModels.GeneratedContent(properties: ["text": value0])
                    case .pair(let value0, let value1):
                        let payload = FoundationModels.GeneratedContent(properties: ["_0": value0, "_1": value1])
                        return FoundationModels.GeneratedContent(properties: ["pair": payload])
                    case .labelled(let value0, let value1):
                        let payload: FoundationModels.GeneratedContent = {
                            var properties: [(String, any FoundationModels.ConvertibleToGeneratedContent)] = []
                            properties.append(("title", value0))
                            if let value = value1 {
                                properties.append(("subtitle", value))
                            }
                            return FoundationModels.GeneratedContent(properties: properties, uniquingKeysWith: { first, _ in
                                    first
                                })
                        }()
                        return FoundationModels.GeneratedContent(properties: ["labelled": payload])
                    case .nested(let value0):
                        return FoundationModels.GeneratedContent(properties: ["nested": value0])
                    case .none:
                        return FoundationModels.GeneratedContent(properties: ["none": FoundationModels.GeneratedContent(properties: [:])])
                    }
                }
            }
            """#
        }
    }

    /// Labels are passed as a call spells them: a keyword plainly (escaped, it draws a warning), `inout` and `_`
    /// escaped.
    @Test func labelsAreSpelledAsACallNeedsThem() {
        assertMacro {
            """
            @Generable
            enum Move {
                case step(`in`: String, `default`: Int, `inout`: Int, `_`: Int)
            }
            """
        } expansion: {
            #"""
            enum Move {
                case step(`in`: String, `default`: Int, `inout`: Int, `_`: Int)

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema._building(Self.self) { name in
                        let root = FoundationModels.DynamicGenerationSchema(
                            name: name,
                            anyOf: [
                                FoundationModels.DynamicGenerationSchema(
                                    name: name + ".step",
                                    properties: [
                                        FoundationModels.DynamicGenerationSchema.Property(
                                            name: "step",
                                            schema: FoundationModels.DynamicGenerationSchema(
                                                name: name + ".step.payload",
                                                properties: [
                                                    FoundationModels.DynamicGenerationSchema.Property(name: "in", schema: FoundationModels.DynamicGenerationSchema(type: String.self)),
                                                    FoundationModels.DynamicGenerationSchema.Property(name: "default", schema: FoundationModels.DynamicGenerationSchema(type: Int.self)),
                                                    FoundationModels.DynamicGenerationSchema.Property(name: "inout", schema: FoundationModels.DynamicGenerationSchema(type: Int.self)),
                                                    FoundationModels.DynamicGenerationSchema.Property(name: "_", schema: FoundationModels.DynamicGenerationSchema(type: Int.self)),
                                                ]
                                            )
                                        ),
                                    ]
                                ),
                            ]
                        )
                        // The alternatives are built from the enum's own cases, so they cannot conflict.
                        return try! FoundationModels.GenerationSchema(root: root, dependencies: [])
                    }
                }
            }

            extension Move: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    guard case .structure(let properties, let orderedKeys) = content.kind,
                        let caseName = orderedKeys.first,
                        let payload = properties[caseName]
                    else {
                        throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(codingPath: [], debugDescription: "expected an object with one key naming a case of Move"))
                    }
                    switch caseName {
                    case "step":
                        self = .step(in: try payload.value(forProperty: "in"), default: try payload.value(forProperty: "default"), `inout`: try payload.value(forProperty: "inout"), `_`: try payload.value(forProperty: "_"))
                    default:
                        throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(codingPath: [], debugDescription: "unexpected case '\(caseName)'"))
                    }
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    switch self {
                    case .step(let value0, let value1, let value2, let value3):
                        let payload = FoundationModels.GeneratedContent(properties: ["in": value0, "default": value1, "inout": value2, "_": value3])
                        return FoundationModels.GeneratedContent(properties: ["step": payload])
                    }
                }
            }
            """#
        }
    }

    @Test func recursiveEnum() {
        assertMacro {
            """
            @Generable
            indirect enum Expression {
                case number(Double)
                case sum([Expression])
            }
            """
        } expansion: {
            #"""
            indirect enum Expression {
                case number(Double)
                case sum([Expression])

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema._building(Self.self) { name in
                        let root = FoundationModels.DynamicGenerationSchema(
                            name: name,
                            anyOf: [
                                FoundationModels.DynamicGenerationSchema(
                                    name: name + ".number",
                                    properties: [
                                        FoundationModels.DynamicGenerationSchema.Property(
                                            name: "number",
                                            schema: FoundationModels.DynamicGenerationSchema(type: Double.self)
                                        ),
                                    ]
                                ),
                                FoundationModels.DynamicGenerationSchema(
                                    name: name + ".sum",
                                    properties: [
                                        FoundationModels.DynamicGenerationSchema.Property(
                                            name: "sum",
                                            schema: FoundationModels.DynamicGenerationSchema(type: [Expression].self)
                                        ),
                                    ]
                                ),
                            ]
                        )
                        // The alternatives are built from the enum's own cases, so they cannot conflict.
                        return try! FoundationModels.GenerationSchema(root: root, dependencies: [])
                    }
                }
            }

            extension Expression: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    guard case .structure(let properties, let orderedKeys) = content.kind,
                        let caseName = orderedKeys.first,
                        let payload = properties[caseName]
                    else {
                        throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(codingPath: [], debugDescription: "expected an object with one key naming a case of Expression"))
                    }
                    switch caseName {
                    case "number":
                        self = .number(try payload.value())
                    case "sum":
                        self = .sum(try payload.value())
                    default:
                        throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(codingPath: [], debugDescription: "unexpected case '\(caseName)'"))
                    }
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    switch self {
                    case .number(let value0):
                        return FoundationModels.GeneratedContent(properties: ["number": value0])
                    case .sum(let value0):
                        return FoundationModels.GeneratedContent(properties: ["sum": value0])
                    }
                }
            }
            """#
        }
    }

    /// A payload's optionals are nullable, like a struct's, when nil is written as null.
    @Test func payloadsRepresentNilExplicitly() {
        assertMacro {
            """
            @Generable(representNilExplicitlyInGeneratedContent: true)
            enum Reading {
                case value(x: Int?)
            }
            """
        } expansion: {
            #"""
            enum Reading {
                case value(x: Int?)

                nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                    FoundationModels.GenerationSchema._building(Self.self) { name in
                        let root = FoundationModels.DynamicGenerationSchema(
                            name: name,
                            anyOf: [
                                FoundationModels.DynamicGenerationSchema(
                                    name: name + ".value",
                                    properties: [
                                        FoundationModels.DynamicGenerationSchema.Property(
                                            name: "value",
                                            schema: FoundationModels.DynamicGenerationSchema(
                                                name: name + ".value.payload",
                                                representNilExplicitlyInGeneratedContent: true,
                                                properties: [
                                                    FoundationModels.DynamicGenerationSchema.Property(name: "x", schema: FoundationModels.DynamicGenerationSchema(type: Int.self), isOptional: true),
                                                ]
                                            )
                                        ),
                                    ]
                                ),
                            ]
                        )
                        // The alternatives are built from the enum's own cases, so they cannot conflict.
                        return try! FoundationModels.GenerationSchema(root: root, dependencies: [])
                    }
                }
            }

            extension Reading: nonisolated FoundationModels.Generable {
                nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                    guard case .structure(let properties, let orderedKeys) = content.kind,
                        let caseName = orderedKeys.first,
                        let payload = properties[caseName]
                    else {
                        throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(codingPath: [], debugDescription: "expected an object with one key naming a case of Reading"))
                    }
                    switch caseName {
                    case "value":
                        self = .value(x: try payload.value(forProperty: "x"))
                    default:
                        throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(codingPath: [], debugDescription: "unexpected case '\(caseName)'"))
                    }
                }

                nonisolated var generatedContent: FoundationModels.GeneratedContent {
                    switch self {
                    case .value(let value0):
                        let payload = FoundationModels.GeneratedContent(properties: ["x": value0])
                        return FoundationModels.GeneratedContent(properties: ["value": payload])
                    }
                }
            }
            """#
        }
    }
}
