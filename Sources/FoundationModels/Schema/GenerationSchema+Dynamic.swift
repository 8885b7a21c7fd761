extension GenerationSchema {
    /// Creates a schema from a dynamic root schema and the named schemas it refers to.
    ///
    /// Named schemas (objects, unions and enumerations), whether nested or passed as dependencies, become
    /// definitions that references resolve to by name.
    ///
    /// - Parameters:
    ///   - root: The schema of the whole value.
    ///   - dependencies: Named schemas that `root` (or other dependencies) refer to with `init(referenceTo:)`.
    /// - Throws: ``SchemaError`` for duplicate type or property names, empty choice lists, or references to names
    ///   that no schema defines.
    public init(root: DynamicGenerationSchema, dependencies: [DynamicGenerationSchema]) throws {
        var converter = DynamicSchemaConverter(rootName: root.name)
        let rootNode = try converter.convert(root, isRoot: true)
        for dependency in dependencies {
            // Converting a named dependency registers it as a definition; the returned reference isn't needed.
            _ = try converter.convert(dependency, isRoot: false)
        }
        let defined = Set(converter.definitions.map(\.name) + [root.name].compactMap { $0 })
        let missing = converter.references.filter { !defined.contains($0) }
        guard missing.isEmpty else {
            throw SchemaError.undefinedReferences(
                schema: root.name,
                references: missing,
                context: .init(debugDescription: "No schema named \(missing.joined(separator: ", ")) was provided.")
            )
        }
        self.init(root: rootNode, definitions: converter.definitions)
    }
}

/// Converts dynamic schemas into schema nodes, collecting named definitions and checking names.
private struct DynamicSchemaConverter {
    /// The root schema's name, if any.
    let rootName: String?
    /// Named schemas other than the root, in order of appearance.
    var definitions: [GenerationSchema.Definition] = []
    /// Every name referred to, in order of first use.
    var references: [String] = []

    init(rootName: String?) {
        self.rootName = rootName
    }

    /// Converts a schema; named non-root schemas become definitions and a reference to them is returned.
    mutating func convert(_ schema: DynamicGenerationSchema, isRoot: Bool) throws -> GenerationSchema.Node {
        let node: GenerationSchema.Node
        switch schema.body {
        case .object(let name, let description, let properties, let explicitNil):
            var names: Set<String> = []
            var nodes: [GenerationSchema.PropertyNode] = []
            for property in properties {
                guard names.insert(property.name).inserted else {
                    throw GenerationSchema.SchemaError.duplicateProperty(
                        schema: name,
                        property: property.name,
                        context: .init(debugDescription: "Property \"\(property.name)\" appears twice in \"\(name)\".")
                    )
                }
                nodes.append(
                    GenerationSchema.PropertyNode(
                        name: property.name,
                        description: property.description,
                        node: try convert(property.schema, isRoot: false),
                        isOptional: property.isOptional
                    )
                )
            }
            node = .object(.init(name: name, description: description, properties: nodes,
                                 representsNilExplicitly: explicitNil))
        case .anyOf(let name, let description, let choices):
            guard !choices.isEmpty else {
                throw GenerationSchema.SchemaError.emptyTypeChoices(
                    schema: name, context: .init(debugDescription: "\"\(name)\" has an empty anyOf list."))
            }
            node = .anyOf(.init(name: name, description: description,
                                choices: try choices.map { try convert($0, isRoot: false) }))
        case .enumeration(let name, let description, let choices):
            guard !choices.isEmpty else {
                throw GenerationSchema.SchemaError.emptyTypeChoices(
                    schema: name, context: .init(debugDescription: "\"\(name)\" has an empty list of strings."))
            }
            node = .enumeration(.init(name: name, description: description, choices: choices))
        case .array(let items, let minimumCount, let maximumCount):
            return .array(.init(items: try convert(items, isRoot: false), minimumCount: minimumCount,
                                maximumCount: maximumCount))
        case .reference(let name):
            if !references.contains(name) { references.append(name) }
            return .reference(name)
        case .type(let typeSchema):
            // Inside another schema a type's parts are embedded as a property's are: a part named like another
            // definition of another shape (`A.Item` beside `B.Item`) is renamed rather than refused, since neither
            // name was chosen by the caller.
            if !isRoot { return typeSchema.embedded(into: &definitions, reserving: rootName) }
            for definition in typeSchema.definitions {
                try define(definition)
            }
            node = typeSchema.root
        }
        guard !isRoot, let name = node.typeName else {
            return node
        }
        try define(GenerationSchema.Definition(name: name, node: node))
        return .reference(name)
    }

    /// Adds a definition, rejecting a second schema with the same name.
    private mutating func define(_ definition: GenerationSchema.Definition) throws {
        if let existing = definitions.first(where: { $0.name == definition.name }) {
            // The same static type used twice is fine; two different schemas with one name are not.
            if existing == definition { return }
            throw duplicate(definition.name)
        }
        if definition.name == rootName {
            throw duplicate(definition.name)
        }
        definitions.append(definition)
    }

    private func duplicate(_ name: String) -> GenerationSchema.SchemaError {
        .duplicateType(schema: rootName, type: name,
                       context: .init(debugDescription: "More than one schema is named \"\(name)\"."))
    }
}
