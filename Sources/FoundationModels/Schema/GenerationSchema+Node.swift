extension GenerationSchema {
    /// The inspectable form of a schema node.
    ///
    /// Named types (structures, string enumerations and unions) appear inline only as the root; everywhere else they
    /// are `reference`s to a ``GenerationSchema/Definition``, which is how nested and recursive types are expressed.
    package indirect enum Node: Sendable, Hashable {
        /// A string, possibly constrained by guides.
        case string(StringGuides)
        /// A whole number within optional inclusive bounds.
        case integer(NumericBounds)
        /// A number within optional inclusive bounds.
        case number(NumericBounds)
        /// `true` or `false`.
        case boolean
        /// `null`.
        case null
        /// Any JSON value (the schema of ``GeneratedContent`` itself).
        case any
        /// An array.
        case array(ArrayNode)
        /// A structure with ordered properties.
        case object(ObjectNode)
        /// A named string enumeration.
        case enumeration(EnumerationNode)
        /// A named union: the value matches one of the choices.
        case anyOf(UnionNode)
        /// The definition with this name (or the root, if it has this name).
        case reference(String)
        /// Exactly one JSON value, held as its compact JSON text (a JSON Schema `const`, or an `enum` member that
        /// is not a string).
        case constant(String)

        /// The type name of a named node (structure, enumeration or union).
        package var typeName: String? {
            switch self {
            case .object(let node): node.name
            case .enumeration(let node): node.name
            case .anyOf(let node): node.name
            default: nil
            }
        }

        /// The description of a named node.
        package var typeDescription: String? {
            switch self {
            case .object(let node): node.description
            case .enumeration(let node): node.description
            case .anyOf(let node): node.description
            default: nil
            }
        }
    }

    /// String guides after combining all of a property's guides.
    package struct StringGuides: Sendable, Hashable {
        /// The allowed values, if restricted.
        package var choices: [String]?
        /// Whether `choices` came from a `constant` guide.
        package var isConstant = false
        /// The pattern the whole string must match, if any (the last one given wins).
        package var pattern: RegexPattern?
        /// JSON Schema `pattern`s: each must match somewhere in the string (they are not anchored).
        package var searchPatterns: [String] = []
        /// The fewest Unicode scalars allowed.
        package var minimumLength: Int?
        /// The most Unicode scalars allowed.
        package var maximumLength: Int?
        /// A JSON Schema `format` the string follows (one of ``JSONSchemaFormat``'s names).
        package var format: String?

        /// Creates guides.
        package init(choices: [String]? = nil, isConstant: Bool = false, pattern: RegexPattern? = nil) {
            self.choices = choices
            self.isConstant = isConstant
            self.pattern = pattern
        }

        /// Whether the guides use anything beyond choices and a whole-string pattern.
        package var hasJSONSchemaGuides: Bool {
            !searchPatterns.isEmpty || minimumLength != nil || maximumLength != nil || format != nil
        }
    }

    /// Inclusive numeric bounds.
    package struct NumericBounds: Sendable, Hashable {
        /// The smallest allowed value.
        package var minimum: Double?
        /// The largest allowed value.
        package var maximum: Double?
        /// Whether ``minimum`` itself is excluded.
        package var isMinimumExclusive = false
        /// Whether ``maximum`` itself is excluded.
        package var isMaximumExclusive = false
        /// A positive number every value must be a whole multiple of.
        package var multipleOf: Double?

        /// Creates bounds.
        package init(minimum: Double? = nil, maximum: Double? = nil) {
            self.minimum = minimum
            self.maximum = maximum
        }
    }

    /// An array node.
    package struct ArrayNode: Sendable, Hashable {
        /// The schema of each element.
        package var items: Node
        /// The fewest elements allowed.
        package var minimumCount: Int?
        /// The most elements allowed.
        package var maximumCount: Int?
        /// Schemas of the first elements, position by position; ``items`` applies after them.
        package var prefixItems: [Node] = []
        /// Whether every element must differ from the others.
        package var uniqueItems = false

        /// Creates an array node.
        package init(items: Node, minimumCount: Int? = nil, maximumCount: Int? = nil) {
            self.items = items
            self.minimumCount = minimumCount
            self.maximumCount = maximumCount
        }
    }

    /// A structure node.
    package struct ObjectNode: Sendable, Hashable {
        /// The type name.
        package var name: String
        /// What the type represents.
        package var description: String?
        /// The properties, in generation order.
        package var properties: [PropertyNode]
        /// Whether a `nil` optional appears as an explicit `null` rather than being left out.
        package var representsNilExplicitly = false
        /// For an object without declared properties: the shape of the values under any keys it holds (a map).
        /// `nil` means no keys beyond the declared properties.
        package var additionalValues: Node?

        /// Creates a structure node.
        package init(
            name: String,
            description: String? = nil,
            properties: [PropertyNode],
            representsNilExplicitly: Bool = false,
            additionalValues: Node? = nil
        ) {
            self.name = name
            self.description = description
            self.properties = properties
            self.representsNilExplicitly = representsNilExplicitly
            self.additionalValues = additionalValues
        }

        /// Any JSON object: any keys, each holding any JSON value.
        package static func anyObject(name: String) -> ObjectNode {
            ObjectNode(name: name, properties: [], additionalValues: .any)
        }
    }

    /// One property of a structure node.
    package struct PropertyNode: Sendable, Hashable {
        /// The JSON key.
        package var name: String
        /// What the property holds.
        package var description: String?
        /// The value's schema.
        package var node: Node
        /// Whether the property may be left out.
        package var isOptional: Bool

        /// Creates a property node.
        package init(name: String, description: String? = nil, node: Node, isOptional: Bool = false) {
            self.name = name
            self.description = description
            self.node = node
            self.isOptional = isOptional
        }
    }

    /// A string enumeration node.
    package struct EnumerationNode: Sendable, Hashable {
        /// The type name.
        package var name: String
        /// What the type represents.
        package var description: String?
        /// The allowed values.
        package var choices: [String]

        /// Creates an enumeration node.
        package init(name: String, description: String? = nil, choices: [String]) {
            self.name = name
            self.description = description
            self.choices = choices
        }
    }

    /// A union node.
    package struct UnionNode: Sendable, Hashable {
        /// The type name.
        package var name: String
        /// What the type represents.
        package var description: String?
        /// The alternatives.
        package var choices: [Node]

        /// Creates a union node.
        package init(name: String, description: String? = nil, choices: [Node]) {
            self.name = name
            self.description = description
            self.choices = choices
        }
    }

    /// A named node that references elsewhere in the schema point to.
    package struct Definition: Sendable, Hashable {
        /// The name references use.
        package var name: String
        /// The node.
        package var node: Node

        /// Creates a definition.
        package init(name: String, node: Node) {
            self.name = name
            self.node = node
        }
    }
}

extension GenerationSchema.Node {
    /// The `choices` that `values` also hold, compared by code points.
    private static func choices(_ choices: [String], among values: [String]) -> [String] {
        choices.filter { choice in values.contains { $0.unicodeScalars.elementsEqual(choice.unicodeScalars) } }
    }

    /// This node with guide constraints applied; constraints that don't fit the node's kind are ignored.
    package func applying(_ constraints: [GuideConstraint]) -> Self {
        guard !constraints.isEmpty else { return self }
        switch self {
        case .string(var guides):
            for constraint in constraints {
                switch constraint {
                // Choices match by their code points, as the generated JSON does: "é" and "e\u{301}" are two values.
                case .constant(let value):
                    guides.choices = guides.choices.map { Self.choices($0, among: [value]).isEmpty ? [] : [value] } ?? [value]
                    guides.isConstant = true
                case .anyOf(let values):
                    // Several choice lists intersect, keeping the earlier list's order.
                    guides.choices = guides.choices.map { Self.choices($0, among: values) } ?? values
                case .pattern(let pattern):
                    guides.pattern = pattern
                default:
                    continue
                }
            }
            return .string(guides)
        case .integer(let bounds):
            return .integer(bounds.applying(constraints))
        case .number(let bounds):
            return .number(bounds.applying(constraints))
        case .array(var array):
            for constraint in constraints {
                switch constraint {
                case .minimumCount(let count):
                    array.minimumCount = max(array.minimumCount ?? count, count)
                case .maximumCount(let count):
                    array.maximumCount = min(array.maximumCount ?? count, count)
                case .element(let elementConstraints):
                    array.items = array.items.applying(elementConstraints)
                default:
                    continue
                }
            }
            return .array(array)
        default:
            return self
        }
    }
}

extension GenerationSchema.NumericBounds {
    /// These bounds narrowed by minimum and maximum constraints.
    func applying(_ constraints: [GuideConstraint]) -> Self {
        var bounds = self
        for constraint in constraints {
            switch constraint {
            case .minimum(let value): bounds.minimum = Swift.max(bounds.minimum ?? value, value)
            case .maximum(let value): bounds.maximum = Swift.min(bounds.maximum ?? value, value)
            default: continue
            }
        }
        return bounds
    }
}

extension GenerationSchema {
    /// The node of the named type: its definition's, or the root's when the root bears the name.
    package func node(named name: String) -> Node? {
        if let definition = definitions.first(where: { $0.name == name }) { return definition.node }
        return root.typeName == name ? root : nil
    }

    /// `node` itself, or for a reference the node it names, following references to references; `nil` for a
    /// name the schema does not define or references that lead back to one another.
    ///
    /// Each call follows its own chain, so two fields that name one definition both resolve to it.
    package func resolving(_ node: Node) -> Node? {
        var followed: Set<String> = []
        var node = node
        while case .reference(let name) = node {
            guard followed.insert(name).inserted, let target = self.node(named: name) else { return nil }
            node = target
        }
        return node
    }

    /// Whether every value of the schema is a JSON object: its root is a structure (or a map), a reference to
    /// one, or a union of such.
    package var resolvesToObject: Bool {
        // The names on the way to a node: a name met again on its own path is a cycle with no object in it, while
        // one reached again by another path (two union members naming it) is judged again.
        var path: Set<String> = []
        func isObject(_ node: Node) -> Bool {
            switch node {
            case .object: return true
            case .anyOf(let union): return !union.choices.isEmpty && union.choices.allSatisfy(isObject)
            case .reference(let name):
                guard path.insert(name).inserted else { return false }
                defer { path.remove(name) }
                return self.node(named: name).map(isObject) ?? false
            default: return false
            }
        }
        return isObject(root)
    }
}

extension GenerationSchema.Node {
    /// The property names of a structure, in order; empty for other nodes.
    package var propertyNames: [String] {
        if case .object(let object) = self { return object.properties.map(\.name) }
        return []
    }
}

extension GenerationSchema.Node {
    /// The node with the named types in `names` renamed: references to them and, where one is this node or
    /// inside it, its own name.
    package func renamingTypes(_ names: [String: String]) -> Self {
        guard !names.isEmpty else { return self }
        switch self {
        case .reference(let name):
            return .reference(names[name] ?? name)
        case .array(var array):
            array.items = array.items.renamingTypes(names)
            array.prefixItems = array.prefixItems.map { $0.renamingTypes(names) }
            return .array(array)
        case .object(var object):
            object.name = names[object.name] ?? object.name
            object.properties = object.properties.map { property in
                var property = property
                property.node = property.node.renamingTypes(names)
                return property
            }
            object.additionalValues = object.additionalValues?.renamingTypes(names)
            return .object(object)
        case .enumeration(var enumeration):
            enumeration.name = names[enumeration.name] ?? enumeration.name
            return .enumeration(enumeration)
        case .anyOf(var union):
            union.name = names[union.name] ?? union.name
            union.choices = union.choices.map { $0.renamingTypes(names) }
            return .anyOf(union)
        case .string, .integer, .number, .boolean, .null, .any, .constant:
            return self
        }
    }
}
