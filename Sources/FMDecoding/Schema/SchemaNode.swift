/// The value shapes the constrained decoder can enforce: a JSON-Schema subset.
///
/// `FoundationModels` lowers a `GenerationSchema` into this tree; the grammar compiler turns it into
/// a byte-level automaton. Keeping the decoder's own representation means this module needs neither
/// the public API nor llama.cpp, and can be tested with any vocabulary.
public indirect enum SchemaNode: Sendable, Hashable {
    /// A JSON string, optionally constrained.
    case string(StringConstraint)
    /// A JSON number written without fraction or exponent, within inclusive bounds when given.
    case integer(minimum: Int?, maximum: Int?)
    /// A JSON number that may have a fraction, within inclusive bounds when given.
    case number(minimum: Double?, maximum: Double?)
    /// `true` or `false`.
    case boolean
    /// `null`.
    case null
    /// A JSON array of `items`, with inclusive element-count bounds; `uniqueItems` forbids repeated elements.
    case array(items: SchemaNode, minimumCount: Int, maximumCount: Int?, uniqueItems: Bool)
    /// A JSON object whose properties appear in exactly this order; optional ones may be left out.
    case object(properties: [SchemaProperty])
    /// A JSON object with any keys, in any number, each holding a value of shape `values` (a map, or a JSON
    /// object of unknown keys).
    case dictionary(values: SchemaNode)
    /// A JSON array whose first elements follow `prefix` position by position and any further ones `items`
    /// (`nil`: no further elements), with inclusive element-count bounds.
    case tuple(prefix: [SchemaNode], items: SchemaNode?, minimumCount: Int, maximumCount: Int?)
    /// Exactly one of the alternatives; the model chooses which.
    case anyOf([SchemaNode])
    /// Exactly this JSON text (compact canonical JSON of one value, such as a `const` or an `enum` member).
    case literal(String)
    /// The named definition in the enclosing ``SchemaDocument`` (allows recursion).
    case reference(String)
}

/// How the characters of a JSON string are constrained.
public enum StringConstraint: Sendable, Hashable {
    /// Any string.
    case any
    /// Exactly one of these values (never empty).
    case choices([String])
    /// A regular expression the whole string must match (ECMAScript-like syntax, implicitly anchored).
    case pattern(String)
    /// Every pattern matches the whole string (none: any string), and its length in Unicode scalars lies in
    /// `minimumLength...maximumLength` (no maximum when `nil`).
    case matching(patterns: [String], minimumLength: Int, maximumLength: Int?)
}

/// One property of an object node.
public struct SchemaProperty: Sendable, Hashable {
    /// The JSON key.
    public var name: String
    /// The value's shape.
    public var schema: SchemaNode
    /// Whether the model may leave the property out.
    public var isOptional: Bool

    /// Creates a property.
    public init(name: String, schema: SchemaNode, isOptional: Bool = false) {
        self.name = name
        self.schema = schema
        self.isOptional = isOptional
    }
}

/// A root node with the named definitions its references point to.
public struct SchemaDocument: Sendable, Hashable {
    /// The shape of the whole value.
    public var root: SchemaNode
    /// Named shapes that ``SchemaNode/reference(_:)`` nodes refer to.
    public var definitions: [String: SchemaNode]

    /// Creates a document.
    public init(root: SchemaNode, definitions: [String: SchemaNode] = [:]) {
        self.root = root
        self.definitions = definitions
    }
}
