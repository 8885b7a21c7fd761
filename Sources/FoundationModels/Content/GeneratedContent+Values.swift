extension GeneratedContent {
    /// Reads the content as a concrete type.
    ///
    /// ```swift
    /// let tags = try content.value([String].self)
    /// ```
    ///
    /// - Parameter type: The type to read.
    /// - Returns: The converted value.
    /// - Throws: The error `Value.init(_:)` throws, usually a `DecodingError` naming the expected type.
    public func value<Value>(_ type: Value.Type = Value.self) throws -> Value
    where Value: ConvertibleFromGeneratedContent {
        try Value(self)
    }

    /// Reads a property of a structure as a concrete type.
    ///
    /// ```swift
    /// let name = try content.value(String.self, forProperty: "name")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to read.
    ///   - property: The property's key.
    /// - Returns: The converted value.
    /// - Throws: `DecodingError.typeMismatch` if the content isn't a structure, `DecodingError.keyNotFound` if the
    ///   property is missing, or the conversion's error with the property added to its coding path.
    public func value<Value>(_ type: Value.Type = Value.self, forProperty property: String) throws -> Value
    where Value: ConvertibleFromGeneratedContent {
        guard let content = try propertyContent(property, reading: Value.self) else {
            throw DecodingError.keyNotFound(
                ContentKey(property),
                DecodingError.Context(
                    codingPath: [],
                    debugDescription: "No value for property \"\(property)\" (expected \(Value.self)); "
                        + "the structure has \(keyListDescription)."
                )
            )
        }
        return try ContentKey.prefixingErrors(with: property) { try Value(content) }
    }

    /// Reads an optional property of a structure as a concrete type.
    ///
    /// Returns `nil` when the property is missing or `null`, or is partial content that cannot be read yet.
    ///
    /// - Parameters:
    ///   - type: The optional type to read.
    ///   - property: The property's key.
    /// - Returns: The converted value, or `nil`.
    /// - Throws: `DecodingError.typeMismatch` if the content isn't a structure, or the conversion's error with the
    ///   property added to its coding path.
    public func value<Value>(_ type: Value?.Type = Value?.self, forProperty property: String) throws -> Value?
    where Value: ConvertibleFromGeneratedContent {
        guard let content = try propertyContent(property, reading: Value.self), content.kind != .null else {
            return nil
        }
        // A value still being generated (a case name half written, a case object without its key yet) is not
        // known yet: a streamed snapshot shows it as missing until it can be read.
        if !content.isComplete { return try? Value(content) }
        return try ContentKey.prefixingErrors(with: property) { try Value(content) }
    }

    /// The value of `property`, or `nil` when missing; throws if this content isn't a structure.
    private func propertyContent(_ property: String, reading type: Any.Type) throws -> GeneratedContent? {
        guard case .structure(let properties, _) = kind else {
            throw DecodingError.typeMismatch(
                type,
                DecodingError.Context(
                    codingPath: [],
                    debugDescription: "Expected an object to read property \"\(property)\" (\(type)) from, "
                        + "but found \(kind.typeName)."
                )
            )
        }
        return properties[property]
    }

    /// A short description of the keys present, for error messages.
    private var keyListDescription: String {
        guard case .structure(_, let keys) = kind, !keys.isEmpty else {
            return "no properties"
        }
        return "properties " + keys.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// Throws a `DecodingError.typeMismatch` that says what was expected and what was found.
    package func typeMismatch<T>(_ type: T.Type, expected: String) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            DecodingError.Context(codingPath: [], debugDescription: "Expected \(expected) but found \(kind.typeName).")
        )
    }
}

/// A coding key naming a structure property or array index in error coding paths.
struct ContentKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        stringValue = string
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        self.init(index: intValue)
    }

    /// Runs `body`, adding `key` to the front of the coding path of any `DecodingError` it throws.
    static func prefixingErrors<T>(with key: ContentKey, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DecodingError {
            throw error.prefixingCodingPath(with: key)
        }
    }

    /// Runs `body`, adding a property key to the front of the coding path of any `DecodingError` it throws.
    static func prefixingErrors<T>(with property: String, _ body: () throws -> T) throws -> T {
        try prefixingErrors(with: ContentKey(property), body)
    }
}

extension DecodingError {
    /// This error with `key` added at the front of its coding path.
    func prefixingCodingPath(with key: any CodingKey) -> DecodingError {
        func prefixed(_ context: Context) -> Context {
            Context(
                codingPath: [key] + context.codingPath,
                debugDescription: context.debugDescription,
                underlyingError: context.underlyingError
            )
        }
        switch self {
        case .typeMismatch(let type, let context): return .typeMismatch(type, prefixed(context))
        case .valueNotFound(let type, let context): return .valueNotFound(type, prefixed(context))
        case .keyNotFound(let missing, let context): return .keyNotFound(missing, prefixed(context))
        case .dataCorrupted(let context): return .dataCorrupted(prefixed(context))
        @unknown default: return self
        }
    }
}
