/// A type that represents structured, generated content.
///
/// Generated content may contain a single value, an array, or key-value pairs with unique keys. It is the untyped
/// result of schema-based generation, the usual `Arguments` type of a tool, and the storage behind every
/// ``Generable`` value. Properties keep the order in which they were written.
///
/// ```swift
/// let content = GeneratedContent(properties: ["city": "Cupertino", "temperature": 21])
/// let city = try content.value(String.self, forProperty: "city")
/// ```
public struct GeneratedContent: Sendable, Equatable, CustomDebugStringConvertible {
    /// An identifier that is stable across all partial generations of one response.
    ///
    /// Non-`nil` for content produced by a session; `nil` for content you create without an identifier.
    public var id: GenerationID?

    /// The value, in normalized form (structure keys are unique and listed once, in order).
    private var storage: Kind

    /// Whether the content was complete when it was parsed.
    private var complete: Bool

    /// Creates content from a kind, marking whether it is complete.
    package init(kind: Kind, id: GenerationID? = nil, isComplete: Bool) {
        self.storage = kind.normalized()
        self.id = id
        self.complete = isComplete
    }

    /// Creates generated content representing the given kind of value.
    ///
    /// For a ``Kind/structure(properties:orderedKeys:)``, keys missing from `orderedKeys` are appended in sorted
    /// order, and keys in `orderedKeys` without a value are dropped.
    ///
    /// - Parameters:
    ///   - kind: The value.
    ///   - id: An identifier for the content.
    public init(kind: Kind, id: GenerationID? = nil) {
        self.init(kind: kind, id: id, isComplete: true)
    }

    /// Creates generated content from another value.
    ///
    /// This satisfies ``ConvertibleFromGeneratedContent`` and simply copies `content`.
    public init(_ content: GeneratedContent) throws {
        self = content
    }

    /// Creates generated content for a single value.
    ///
    /// - Parameter value: The value; its ``ConvertibleToGeneratedContent/generatedContent`` is used.
    public init(_ value: some ConvertibleToGeneratedContent) {
        self = value.generatedContent
    }

    /// Creates generated content for a single value with a custom identifier.
    ///
    /// - Parameters:
    ///   - value: The value; its ``ConvertibleToGeneratedContent/generatedContent`` is used.
    ///   - id: The identifier to attach.
    public init(_ value: some ConvertibleToGeneratedContent, id: GenerationID) {
        self = value.generatedContent
        self.id = id
    }

    /// Creates generated content representing an array of elements.
    ///
    /// - Parameters:
    ///   - elements: The elements, in order.
    ///   - id: An identifier for the content.
    public init<S>(elements: S, id: GenerationID? = nil)
    where S: Sequence, S.Element == any ConvertibleToGeneratedContent {
        self.init(kind: .array(elements.map(\.generatedContent)), id: id)
    }

    /// Creates generated content representing a structure with the given properties.
    ///
    /// The order of properties is important: for ``Generable`` types it must match the order of the properties in
    /// the type's schema. If a key appears more than once, the last value wins and the first position is kept.
    ///
    /// ```swift
    /// GeneratedContent(properties: ["city": arguments.city, "temperature": temperature])
    /// ```
    ///
    /// - Parameters:
    ///   - properties: The key-value pairs, in order.
    ///   - id: An identifier for the content.
    public init(properties: KeyValuePairs<String, any ConvertibleToGeneratedContent>, id: GenerationID? = nil) {
        var values: [String: GeneratedContent] = [:]
        var keys: [String] = []
        for (key, value) in properties {
            if values.updateValue(value.generatedContent, forKey: key) == nil {
                keys.append(key)
            }
        }
        self.init(kind: .structure(properties: values, orderedKeys: keys), id: id)
    }

    /// Creates generated content representing a structure, combining the values of duplicate keys.
    ///
    /// Works like `Dictionary(_:uniquingKeysWith:)`, but keeps the order in which keys first appear.
    ///
    /// - Parameters:
    ///   - properties: The key-value pairs, in order.
    ///   - id: An identifier for the content.
    ///   - combine: Called with the current and the new value for a duplicate key; returns the value to keep.
    /// - Throws: Rethrows what `combine` throws.
    public init<S>(
        properties: S,
        id: GenerationID? = nil,
        uniquingKeysWith combine: (GeneratedContent, GeneratedContent) throws -> some ConvertibleToGeneratedContent
    ) rethrows where S: Sequence, S.Element == (String, any ConvertibleToGeneratedContent) {
        var values: [String: GeneratedContent] = [:]
        var keys: [String] = []
        for (key, value) in properties {
            let new = value.generatedContent
            if let existing = values[key] {
                values[key] = try combine(existing, new).generatedContent
            } else {
                values[key] = new
                keys.append(key)
            }
        }
        self.init(kind: .structure(properties: values, orderedKeys: keys), id: id)
    }

    /// Content representing `null`.
    public static let null = GeneratedContent(kind: .null)

    /// A strongly typed view of the value that preserves hierarchy and generation identifiers.
    public var kind: Kind {
        storage
    }

    /// Whether the content is complete.
    ///
    /// `false` for content parsed from a prefix of a JSON document, such as a partial snapshot of a streaming
    /// response; `true` for content you create from values.
    public var isComplete: Bool {
        complete
    }

    /// A textual representation for debugging, listing the JSON form and completeness.
    public var debugDescription: String {
        var text = "GeneratedContent(\(jsonString)"
        if !complete {
            text += ", incomplete"
        }
        return text + ")"
    }

    /// Whether two contents hold equal values and have the same completeness.
    ///
    /// Identifiers are not compared, so content from a session equals the same content written by hand.
    public static func == (lhs: GeneratedContent, rhs: GeneratedContent) -> Bool {
        lhs.complete == rhs.complete && lhs.storage == rhs.storage
    }
}
