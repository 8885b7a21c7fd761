public import Foundation

extension GenerationSchema {
    /// An error that occurs when building a schema from dynamic schemas.
    public enum SchemaError: Error, LocalizedError {
        /// Context about a schema error.
        public struct Context: Sendable {
            /// A description of what went wrong, for debugging; not localized.
            public let debugDescription: String

            /// Creates a context.
            ///
            /// - Parameter debugDescription: A description of what went wrong.
            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        /// Two or more subschemas share a type name.
        case duplicateType(schema: String?, type: String, context: GenerationSchema.SchemaError.Context)

        /// An object schema has two properties with the same name.
        case duplicateProperty(schema: String, property: String, context: GenerationSchema.SchemaError.Context)

        /// An any-of schema has no choices.
        case emptyTypeChoices(schema: String, context: GenerationSchema.SchemaError.Context)

        /// A schema refers to names that no schema defines.
        case undefinedReferences(schema: String?, references: [String], context: GenerationSchema.SchemaError.Context)

        /// A description of the error.
        public var errorDescription: String? {
            switch self {
            case .duplicateType(let schema, let type, _):
                "The type \"\(type)\" is defined more than once\(Self.location(schema))."
            case .duplicateProperty(let schema, let property, _):
                "The schema \"\(schema)\" has more than one property named \"\(property)\"."
            case .emptyTypeChoices(let schema, _):
                "The any-of schema \"\(schema)\" has no choices."
            case .undefinedReferences(let schema, let references, _):
                "Undefined reference\(references.count == 1 ? "" : "s") "
                    + references.map { "\"\($0)\"" }.joined(separator: ", ") + Self.location(schema) + "."
            }
        }

        /// A suggestion for fixing the error.
        public var recoverySuggestion: String? {
            switch self {
            case .duplicateType:
                "Give each dynamic schema a unique name, or refer to a shared schema with init(referenceTo:)."
            case .duplicateProperty:
                "Rename or remove one of the properties."
            case .emptyTypeChoices:
                "Provide at least one choice."
            case .undefinedReferences:
                "Pass every referenced schema in the dependencies, and check the names for typos."
            }
        }

        /// The error's context.
        var context: Context {
            switch self {
            case .duplicateType(_, _, let context), .duplicateProperty(_, _, let context),
                .emptyTypeChoices(_, let context), .undefinedReferences(_, _, let context):
                context
            }
        }

        private static func location(_ schema: String?) -> String {
            schema.map { " in schema \"\($0)\"" } ?? ""
        }
    }
}
