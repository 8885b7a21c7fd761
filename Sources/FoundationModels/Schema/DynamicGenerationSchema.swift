/// The dynamic counterpart to the generation schema, for describing output whose shape is known only at runtime.
///
/// Schemas can refer to each other by name; references are resolved when you create a ``GenerationSchema`` with
/// ``GenerationSchema/init(root:dependencies:)``.
///
/// ```swift
/// let menu = DynamicGenerationSchema(
///     name: "Menu",
///     properties: [
///         DynamicGenerationSchema.Property(
///             name: "dailySoup",
///             schema: DynamicGenerationSchema(name: "dailySoup", anyOf: ["Tomato", "Chicken Noodle"])
///         ),
///     ]
/// )
/// let schema = try GenerationSchema(root: menu, dependencies: [])
/// ```
public struct DynamicGenerationSchema: Sendable {
    /// The schema's shape.
    package var body: Body

    /// The shapes a dynamic schema can have.
    package indirect enum Body: Sendable {
        /// A named structure.
        case object(name: String, description: String?, properties: [Property], representsNilExplicitly: Bool)
        /// A named union of schemas.
        case anyOf(name: String, description: String?, choices: [DynamicGenerationSchema])
        /// A named string enumeration.
        case enumeration(name: String, description: String?, choices: [String])
        /// An array with optional element-count bounds.
        case array(items: DynamicGenerationSchema, minimumCount: Int?, maximumCount: Int?)
        /// A reference to a named schema.
        case reference(String)
        /// The schema of a static generable type, with guides applied.
        case type(GenerationSchema)
    }

    /// A schema for `null`.
    public static var null: DynamicGenerationSchema {
        DynamicGenerationSchema(body: .type(GenerationSchema(root: .null)))
    }

    private init(body: Body) {
        self.body = body
    }

    /// Creates an object schema.
    ///
    /// - Parameters:
    ///   - name: The schema's name, which references use.
    ///   - description: What the object represents, for the model.
    ///   - properties: The properties, in the order the model should generate them.
    public init(name: String, description: String? = nil, properties: [DynamicGenerationSchema.Property]) {
        body = .object(name: name, description: description, properties: properties, representsNilExplicitly: false)
    }

    /// Creates an object schema, choosing whether `nil` optionals are written as `null`.
    ///
    /// - Parameters:
    ///   - name: The schema's name, which references use.
    ///   - description: What the object represents, for the model.
    ///   - explicitNil: Whether optional properties are always present, holding `null` when they have no value.
    ///   - properties: The properties, in the order the model should generate them.
    public init(
        name: String,
        description: String? = nil,
        representNilExplicitlyInGeneratedContent explicitNil: Bool,
        properties: [DynamicGenerationSchema.Property]
    ) {
        body = .object(name: name, description: description, properties: properties,
                       representsNilExplicitly: explicitNil)
    }

    /// Creates a union: the value matches one of the given schemas.
    ///
    /// - Parameters:
    ///   - name: The schema's name, which references use.
    ///   - description: What the union represents, for the model.
    ///   - choices: The alternatives; must not be empty.
    public init(name: String, description: String? = nil, anyOf choices: [DynamicGenerationSchema]) {
        body = .anyOf(name: name, description: description, choices: choices)
    }

    /// Creates a string enumeration.
    ///
    /// - Parameters:
    ///   - name: The schema's name, which references use.
    ///   - description: What the enumeration represents, for the model.
    ///   - choices: The allowed strings; must not be empty.
    public init(name: String, description: String? = nil, anyOf choices: [String]) {
        body = .enumeration(name: name, description: description, choices: choices)
    }

    /// Creates an array schema.
    ///
    /// - Parameters:
    ///   - itemSchema: The schema of each element.
    ///   - minimumElements: The fewest elements allowed.
    ///   - maximumElements: The most elements allowed.
    public init(arrayOf itemSchema: DynamicGenerationSchema, minimumElements: Int? = nil, maximumElements: Int? = nil) {
        body = .array(items: itemSchema, minimumCount: minimumElements, maximumCount: maximumElements)
    }

    /// Creates a schema for a static generable type, such as `String.self` or `Int.self`, with guides.
    ///
    /// - Parameters:
    ///   - type: The type.
    ///   - guides: Guides that constrain the value; they combine.
    public init<Value>(type: Value.Type, guides: [GenerationGuide<Value>] = []) where Value: Generable {
        var schema = SchemaResolver.schema(for: type)
        schema.root = schema.root.applying(guides.flatMap(\.constraints))
        body = .type(schema)
    }

    /// Creates a reference to the schema with the given name.
    ///
    /// References allow reuse and recursion.
    ///
    /// - Parameter name: The name of a schema passed as the root or a dependency.
    public init(referenceTo name: String) {
        body = .reference(name)
    }

    /// The schema's name, if it is a named kind (object, union or enumeration).
    var name: String? {
        switch body {
        case .object(let name, _, _, _), .anyOf(let name, _, _), .enumeration(let name, _, _): name
        case .array, .reference: nil
        case .type(let schema): schema.root.typeName
        }
    }
}

extension DynamicGenerationSchema {
    /// A property of a dynamic object schema.
    ///
    /// Properties are strongly typed and have optional descriptions.
    public struct Property: Sendable {
        /// The JSON key.
        package var name: String
        /// What the property holds.
        package var description: String?
        /// The value's schema.
        package var schema: DynamicGenerationSchema
        /// Whether the model may leave the property out.
        package var isOptional: Bool

        /// Creates a property.
        ///
        /// - Parameters:
        ///   - name: The property's name (its JSON key).
        ///   - description: What the property holds, for the model.
        ///   - schema: The value's schema.
        ///   - isOptional: Whether the model may leave the property out.
        public init(
            name: String,
            description: String? = nil,
            schema: DynamicGenerationSchema,
            isOptional: Bool = false
        ) {
            self.name = name
            self.description = description
            self.schema = schema
            self.isOptional = isOptional
        }
    }
}
