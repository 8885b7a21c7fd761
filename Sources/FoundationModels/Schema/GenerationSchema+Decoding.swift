package import FMDecoding

// Bridges from a schema to the decoder and to the prompt.

/// An error lowering a schema into the decoder's representation.
///
/// The session reports ``Code-swift.enum/unsupportedGuide`` as `GenerationError.unsupportedGuide`.
package struct SchemaLoweringError: Error, CustomStringConvertible {
    /// The kind of problem.
    package enum Code: Sendable, Hashable {
        /// A guide can't be enforced: a pattern whose text is unknown, or guides no value can satisfy.
        case unsupportedGuide
        /// A reference names no definition.
        case undefinedReference
    }

    /// The kind of problem.
    package var code: Code
    /// What is wrong, naming the property or type.
    package var message: String

    /// Creates an error.
    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    package var description: String { message }
}

extension GenerationSchema {
    /// The name under which the "any JSON value" shape is defined when a schema needs it.
    package static let anyValueDefinitionName = "GeneratedContent.Any"

    /// Lowers the schema into the decoder's representation.
    ///
    /// Strings become `.string` (a `constant` is a one-element `.choices`), whole numbers `.integer`, other numbers
    /// `.number`, string enumerations `.string(.choices)`, unions `.anyOf`, structures `.object` with properties in
    /// order, and nested or recursive types `.reference`s into `definitions`. Optional properties are optional;
    /// with explicit nil they are required but may be `null`.
    ///
    /// - Returns: The decoder's schema document.
    /// - Throws: ``SchemaLoweringError`` for a pattern whose source text is unknown, guides no value satisfies, or
    ///   a reference to a missing definition.
    package func decodingDocument() throws -> SchemaDocument {
        var lowering = Lowering()
        let rootNode = try lowering.lower(root, at: root.typeName ?? "root")
        var definitions: [String: SchemaNode] = [:]
        for definition in self.definitions {
            definitions[definition.name] = try lowering.lower(definition.node, at: definition.name)
        }
        if let name = root.typeName, lowering.references.contains(name), definitions[name] == nil {
            definitions[name] = rootNode
        }
        if lowering.usesAnyValue {
            definitions[Self.anyValueDefinitionName] = Self.anyValueNode
        }
        if let missing = lowering.references.sorted().first(where: { definitions[$0] == nil }) {
            throw SchemaLoweringError(code: .undefinedReference, message: "The schema refers to an undefined type \"\(missing)\".")
        }
        return SchemaDocument(root: rootNode, definitions: definitions)
    }

    /// Any JSON value; objects are limited to `{}` because the decoder only knows fixed properties.
    private static var anyValueNode: SchemaNode {
        let any = SchemaNode.reference(anyValueDefinitionName)
        return .anyOf([
            .string(.any), .number(minimum: nil, maximum: nil), .boolean, .null,
            .array(items: any, minimumCount: 0, maximumCount: nil, uniqueItems: false), .object(properties: []),
        ])
    }
}

/// The state of one lowering pass.
private struct Lowering {
    /// Every definition name referred to.
    var references: Set<String> = []
    /// Whether some node accepts any JSON value.
    var usesAnyValue = false

    mutating func lower(_ node: GenerationSchema.Node, at path: String) throws -> SchemaNode {
        switch node {
        case .string(let guides):
            if let choices = guides.choices {
                guard !choices.isEmpty else {
                    throw SchemaLoweringError(code: .unsupportedGuide,
                                              message: "The string guides at \(path) allow no value.")
                }
                return .string(.choices(choices))
            }
            if let pattern = guides.pattern {
                guard let source = pattern.source else {
                    throw SchemaLoweringError(
                        code: .unsupportedGuide,
                        message: "The pattern guide at \(path) has no recoverable source text; use a regex literal "
                            + "in @Guide, or GenerationGuide._pattern(_:source:).")
                }
                return .string(.pattern(source))
            }
            return .string(.any)
        case .integer(let bounds):
            let minimum = bounds.minimum.map { Self.integer($0.rounded(.up)) }
            let maximum = bounds.maximum.map { Self.integer($0.rounded(.down)) }
            if let minimum, let maximum, minimum > maximum {
                throw SchemaLoweringError(code: .unsupportedGuide, message: "The range at \(path) allows no integer.")
            }
            return .integer(minimum: minimum, maximum: maximum)
        case .number(let bounds):
            if let minimum = bounds.minimum, let maximum = bounds.maximum, minimum > maximum {
                throw SchemaLoweringError(code: .unsupportedGuide, message: "The range at \(path) allows no number.")
            }
            return .number(minimum: bounds.minimum, maximum: bounds.maximum)
        case .boolean:
            return .boolean
        case .null:
            return .null
        case .any:
            usesAnyValue = true
            return .reference(GenerationSchema.anyValueDefinitionName)
        case .array(let array):
            let minimum = max(array.minimumCount ?? 0, 0)
            if let maximum = array.maximumCount, maximum < minimum {
                throw SchemaLoweringError(code: .unsupportedGuide,
                                          message: "The count guides at \(path) allow no array length.")
            }
            return .array(items: try lower(array.items, at: path + "[]"), minimumCount: minimum,
                          maximumCount: array.maximumCount, uniqueItems: false)
        case .object(let object):
            return .object(properties: try object.properties.map { property in
                var schema = try lower(property.node, at: "\(path).\(property.name)")
                var isOptional = property.isOptional
                if isOptional, object.representsNilExplicitly {
                    // Explicit nil: the key is always written, holding null when there is no value.
                    schema = .anyOf([schema, .null])
                    isOptional = false
                }
                return SchemaProperty(name: property.name, schema: schema, isOptional: isOptional)
            })
        case .enumeration(let enumeration):
            guard !enumeration.choices.isEmpty else {
                throw SchemaLoweringError(code: .unsupportedGuide, message: "The enumeration \(path) has no cases.")
            }
            return .string(.choices(enumeration.choices))
        case .anyOf(let union):
            return .anyOf(try union.choices.enumerated().map { try lower($1, at: "\(path)|\($0)") })
        case .reference(let name):
            references.insert(name)
            return .reference(name)
        }
    }

    /// A whole-valued bound as an `Int`, clamped to `Int`'s range.
    private static func integer(_ value: Double) -> Int {
        if value >= Double(Int.max) { return Int.max }
        if value <= Double(Int.min) { return Int.min }
        return Int(value)
    }
}
