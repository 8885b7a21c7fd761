/// A type that describes the properties of an object and any guides on their values.
///
/// A schema guides the model's output so it deterministically has the desired format. `@Generable` types get one
/// from the macro; you can also build one from properties, or at runtime from ``DynamicGenerationSchema`` values:
///
/// ```swift
/// let schema = GenerationSchema(
///     type: GeneratedContent.self,
///     description: "A cat",
///     properties: [
///         GenerationSchema.Property(name: "name", type: String.self),
///         GenerationSchema.Property(name: "age", type: Int.self, guides: [.range(0...20)]),
///     ]
/// )
/// ```
///
/// Property order is significant: the model generates properties in the order given. Nested `Generable` types
/// become named definitions that the schema refers to, so recursive types are supported.
public struct GenerationSchema: Sendable {
    /// The shape of the whole value.
    package var root: Node

    /// Named shapes that ``Node/reference(_:)`` nodes refer to, in the order they were first used.
    package var definitions: [Definition]

    /// Creates a schema from its parts.
    package init(root: Node, definitions: [Definition] = []) {
        self.root = root
        self.definitions = definitions
    }

    /// Creates a schema for a structure with the given properties, in order.
    ///
    /// - Parameters:
    ///   - type: The type the schema describes; its name becomes the schema's name.
    ///   - description: What the type represents, for the model.
    ///   - properties: The properties, in the order the model should generate them.
    public init(type: any Generable.Type, description: String? = nil, properties: [GenerationSchema.Property]) {
        self.init(type: type, description: description, representsNilExplicitly: false, properties: properties)
    }

    /// Creates a schema for a structure, choosing whether `nil` optionals are written as `null`.
    ///
    /// - Parameters:
    ///   - type: The type the schema describes; its name becomes the schema's name.
    ///   - description: What the type represents, for the model.
    ///   - explicitNil: Whether optional properties are always present, holding `null` when they have no value,
    ///     instead of being left out.
    ///   - properties: The properties, in the order the model should generate them.
    public init(
        type: any Generable.Type,
        description: String? = nil,
        representNilExplicitlyInGeneratedContent explicitNil: Bool,
        properties: [GenerationSchema.Property]
    ) {
        self.init(type: type, description: description, representsNilExplicitly: explicitNil, properties: properties)
    }

    /// Creates a schema for a string enumeration.
    ///
    /// - Parameters:
    ///   - type: The type the schema describes; its name becomes the schema's name.
    ///   - description: What the type represents, for the model.
    ///   - choices: The allowed strings.
    public init(type: any Generable.Type, description: String? = nil, anyOf choices: [String]) {
        self.init(root: .enumeration(EnumerationNode(name: SchemaResolver.name(of: type), description: description,
                                                     choices: choices)))
    }

    /// Creates a schema for a union of other generable types (used for enumerations with associated values).
    ///
    /// - Parameters:
    ///   - type: The type the schema describes; its name becomes the schema's name.
    ///   - description: What the type represents, for the model.
    ///   - types: The alternatives; the model generates a value of one of them.
    public init(type: any Generable.Type, description: String? = nil, anyOf types: [any Generable.Type]) {
        var definitions: [Definition] = []
        let name = SchemaResolver.name(of: type)
        let choices = SchemaResolver.building(type) {
            types.map { SchemaResolver.schema(for: $0).embedded(into: &definitions, reserving: name) }
        }
        self.init(
            root: .anyOf(UnionNode(name: name, description: description, choices: choices)),
            definitions: definitions.filter { $0.name != name }
        )
    }

    /// The shared implementation of the structure initializers.
    private init(
        type: any Generable.Type,
        description: String?,
        representsNilExplicitly: Bool,
        properties: [GenerationSchema.Property]
    ) {
        var definitions: [Definition] = []
        var seen: Set<String> = []
        let name = SchemaResolver.name(of: type)
        let nodes = SchemaResolver.building(type) {
            // Property types are resolved only now, with `type` marked as in progress, so recursion terminates.
            properties.compactMap { property -> PropertyNode? in
                guard seen.insert(property.name).inserted else { return nil }
                let node = SchemaResolver.schema(for: property.valueType).embedded(into: &definitions, reserving: name)
                return PropertyNode(
                    name: property.name,
                    description: property.description,
                    node: node.applying(property.constraints),
                    isOptional: property.isOptional
                )
            }
        }
        self.init(
            root: .object(ObjectNode(name: name, description: description, properties: nodes,
                                     representsNilExplicitly: representsNilExplicitly)),
            definitions: definitions.filter { $0.name != name }
        )
    }

    /// This schema's root as a node inside another schema, adding its named parts to `definitions`.
    ///
    /// A named root becomes a definition and the returned node refers to it; an unnamed root (a string, a number,
    /// an array…) is returned inline. A part whose name is already defined as the same node is shared. A part whose
    /// name is taken by another node (two nested types both called `Item`), or is `reserved` (the enclosing type's
    /// name), is renamed `Item2`, `Item3`…, together with every reference to it, so each keeps its own shape.
    package func embedded(into definitions: inout [Definition], reserving reserved: String? = nil) -> Node {
        // The root first, then what it uses, so definitions read in order of first use.
        var parts = self.definitions.filter { $0.name != root.typeName }
        if let name = root.typeName { parts.insert(Definition(name: name, node: root), at: 0) }
        let existing = Dictionary(definitions.map { ($0.name, $0.node) }, uniquingKeysWith: { first, _ in first })
        let partNames = Set(parts.map(\.name))
        // Each part takes the first of its name, name2, name3… that is free or already holds the same node; what
        // a part holds depends on the names of the parts it refers to, so this repeats until nothing changes.
        func choose(_ renames: [String: String]) -> [String: String] {
            var chosen: [String: String] = [:]
            for part in parts {
                var suffix = 1
                while true {
                    let candidate = suffix == 1 ? part.name : "\(part.name)\(suffix)"
                    suffix += 1
                    if candidate == reserved || chosen.values.contains(candidate) { continue }
                    if suffix > 2, partNames.contains(candidate) { continue }
                    if let node = existing[candidate] {
                        var trial = renames
                        trial[part.name] = candidate
                        if node != part.node.renamingTypes(trial) { continue }
                    }
                    if candidate != part.name { chosen[part.name] = candidate }
                    break
                }
            }
            return chosen
        }
        var renames: [String: String] = [:]
        for _ in 0...parts.count {
            let next = choose(renames)
            if next == renames { break }
            renames = next
        }
        // Should the choices not settle, every part gets a name of its own: correct, if less shared.
        if choose(renames) != renames {
            renames = [:]
            for part in parts {
                var suffix = 2
                while existing[("\(part.name)\(suffix)")] != nil || partNames.contains("\(part.name)\(suffix)")
                        || renames.values.contains("\(part.name)\(suffix)") || "\(part.name)\(suffix)" == reserved {
                    suffix += 1
                }
                renames[part.name] = "\(part.name)\(suffix)"
            }
        }
        for part in parts {
            let name = renames[part.name] ?? part.name
            if !definitions.contains(where: { $0.name == name }) {
                definitions.append(Definition(name: name, node: part.node.renamingTypes(renames)))
            }
        }
        return root.typeName.map { .reference(renames[$0] ?? $0) } ?? root.renamingTypes(renames)
    }
}

extension GenerationSchema {
    /// A property of a structure: a name, an optional description, a type and guides.
    ///
    /// Fields are strongly typed and have optional descriptions and guides.
    public struct Property: Sendable {
        /// The JSON key.
        package var name: String
        /// What the property holds, for the model.
        package var description: String?
        /// The property's value type; resolved lazily so recursive types terminate.
        package var valueType: any Generable.Type
        /// The combined constraints of the property's guides.
        package var constraints: [GuideConstraint]
        /// Whether the model may leave the property out.
        package var isOptional: Bool

        /// Creates a property.
        ///
        /// - Parameters:
        ///   - name: The property's name (its JSON key).
        ///   - description: What the property holds, for the model.
        ///   - type: The property's type.
        ///   - guides: Guides that constrain the value; they combine.
        public init<Value>(
            name: String,
            description: String? = nil,
            type: Value.Type,
            guides: [GenerationGuide<Value>] = []
        ) where Value: Generable {
            self.name = name
            self.description = description
            self.valueType = type
            self.constraints = guides.flatMap(\.constraints)
            self.isOptional = false
        }

        /// Creates an optional property, which the model may leave out.
        ///
        /// - Parameters:
        ///   - name: The property's name (its JSON key).
        ///   - description: What the property holds, for the model.
        ///   - type: The property's optional type.
        ///   - guides: Guides that constrain the value when present; they combine.
        public init<Value>(
            name: String,
            description: String? = nil,
            type: Value?.Type,
            guides: [GenerationGuide<Value>] = []
        ) where Value: Generable {
            self.init(name: name, description: description, type: Value.self, guides: guides)
            self.isOptional = true
        }

        /// Creates a string property that must match a regular expression.
        ///
        /// If several regexes are given, only the last one applies.
        ///
        /// - Parameters:
        ///   - name: The property's name (its JSON key).
        ///   - description: What the property holds, for the model.
        ///   - type: `String.self`.
        ///   - guides: The patterns; only the last one applies.
        public init<RegexOutput>(
            name: String,
            description: String? = nil,
            type: String.Type,
            guides: [Regex<RegexOutput>] = []
        ) {
            self.init(
                name: name,
                description: description,
                type: String.self,
                guides: guides.last.map { [GenerationGuide<String>.pattern($0)] } ?? []
            )
        }

        /// Creates an optional string property that must match a regular expression when present.
        ///
        /// If several regexes are given, only the last one applies.
        ///
        /// - Parameters:
        ///   - name: The property's name (its JSON key).
        ///   - description: What the property holds, for the model.
        ///   - type: `String?.self`.
        ///   - guides: The patterns; only the last one applies.
        public init<RegexOutput>(
            name: String,
            description: String? = nil,
            type: String?.Type,
            guides: [Regex<RegexOutput>] = []
        ) {
            self.init(name: name, description: description, type: String.self, guides: guides)
            self.isOptional = true
        }
    }
}

/// Resolves the schemas of generable types while guarding against infinite recursion.
///
/// A recursive type's schema mentions the type itself. While a type's schema is being built it is marked as in
/// progress; asking for its schema again yields a reference to it by name instead of recursing.
enum SchemaResolver {
    /// The types whose schemas are being built on this task or thread.
    @TaskLocal static var typesInProgress: [ObjectIdentifier] = []

    /// The schema of `type`, or a reference to it if its schema is being built.
    static func schema(for type: any Generable.Type) -> GenerationSchema {
        if typesInProgress.contains(ObjectIdentifier(type)) {
            return GenerationSchema(root: .reference(name(of: type)))
        }
        return type.generationSchema
    }

    /// Runs `body` with `type` marked as in progress.
    static func building<Result>(_ type: any Generable.Type, _ body: () -> Result) -> Result {
        $typesInProgress.withValue(typesInProgress + [ObjectIdentifier(type)], operation: body)
    }

    /// Schema names given with `@Generable(name:)`, for the types whose schemas are being built.
    @TaskLocal static var customNames: [ObjectIdentifier: String] = [:]

    /// The schema name of a type: the name `@Generable(name:)` gave it, or its name as Swift prints it.
    static func name(of type: Any.Type) -> String {
        customNames[ObjectIdentifier(type)] ?? String(describing: type)
    }
}

extension GenerationSchema {
    /// Builds `type`'s schema with `type` marked as in progress, passing the name the schema must have, so an
    /// associated value of the type's own type refers to it by that name instead of recursing (the expansion of
    /// `@Generable` on an enum with associated values; not for direct use).
    public static func _building(_ type: any Generable.Type, _ build: (String) -> GenerationSchema) -> GenerationSchema {
        let name = SchemaResolver.name(of: type)
        return SchemaResolver.building(type) { build(name) }
    }
}

extension GenerationSchema {
    /// Builds `type`'s schema under `name` instead of the type's own name (the expansion of
    /// `@Generable(name:)`; not for direct use).
    public static func _named(_ name: String, for type: any Generable.Type, _ build: () -> GenerationSchema) -> GenerationSchema {
        SchemaResolver.$customNames.withValue(SchemaResolver.customNames.merging([ObjectIdentifier(type): name]) { $1 }, operation: build)
    }
}
