extension GeneratedContent {
    /// A representation of the different kinds of content that can be stored in generated content.
    ///
    /// All numbers are `Double`s. A structure lists its keys in `orderedKeys`, in the order they were generated.
    public enum Kind: Equatable, Sendable {
        /// A null value.
        case null
        /// A Boolean value.
        case bool(Bool)
        /// A number.
        case number(Double)
        /// A string.
        case string(String)
        /// An ordered list of values.
        case array([GeneratedContent])
        /// Key-value pairs, with the keys in their generated order.
        case structure(properties: [String: GeneratedContent], orderedKeys: [String])

        /// This kind with structure keys made consistent: each key with a value listed exactly once.
        func normalized() -> Kind {
            guard case .structure(let properties, let orderedKeys) = self else {
                return self
            }
            var seen: Set<String> = []
            var keys = orderedKeys.filter { properties[$0] != nil && seen.insert($0).inserted }
            if keys.count != properties.count {
                keys += properties.keys.filter { !seen.contains($0) }.sorted()
            }
            return .structure(properties: properties, orderedKeys: keys)
        }

        /// A short name for this kind of value, used in error messages.
        package var typeName: String {
            switch self {
            case .null: "null"
            case .bool: "a Boolean"
            case .number: "a number"
            case .string: "a string"
            case .array: "an array"
            case .structure: "an object"
            }
        }
    }
}
