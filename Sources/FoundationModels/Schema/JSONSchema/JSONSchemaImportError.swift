import Foundation

/// An error importing a JSON Schema document: a keyword that cannot be enforced, a malformed value, or a schema
/// no value satisfies.
package struct JSONSchemaImportError: Error, CustomStringConvertible, LocalizedError {
    /// A JSON Pointer-like path to the offending schema, such as `#/properties/age`.
    package var path: String
    /// The keyword at fault, when one is.
    package var keyword: String?
    /// What is wrong.
    package var message: String
    /// Whether the schema at `path` itself allows no value (rather than using something unsupported): a union
    /// leaves such a member out instead of refusing the whole.
    package var allowsNoValue = false

    /// Creates an error.
    package init(path: String, keyword: String? = nil, message: String, allowsNoValue: Bool = false) {
        self.path = path
        self.keyword = keyword
        self.message = message
        self.allowsNoValue = allowsNoValue
    }

    /// An error saying that the schema at `path` allows no value.
    package static func unsatisfiable(path: String, keyword: String?, message: String) -> Self {
        Self(path: path, keyword: keyword, message: message, allowsNoValue: true)
    }

    /// Whether this says that the schema at `path` itself allows no value (not a part deeper down).
    package func allowsNoValue(at path: String) -> Bool { allowsNoValue && self.path == path }

    /// The message and location; the document's root (`#`) is no location worth naming, and a message that
    /// names its own place (a schema no value satisfies) already ends its sentence.
    package var description: String {
        let sentence = message.hasSuffix(".") ? String(message.dropLast()) : message
        return path == "#" ? sentence + "." : "\(sentence) at \(path)."
    }
    /// The message and location.
    package var errorDescription: String? { description }
}
