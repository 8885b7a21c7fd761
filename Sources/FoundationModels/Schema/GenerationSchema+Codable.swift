extension GenerationSchema: Codable {
    /// Decodes a schema from its JSON Schema form.
    ///
    /// Decoders don't keep object key order, so property order comes from each object's `propertyOrdering` list,
    /// which ``encode(to:)`` writes.
    ///
    /// - Throws: `DecodingError.dataCorrupted` if the document uses unsupported JSON Schema keywords.
    public init(from decoder: any Decoder) throws {
        let document = try JSONValueCoding.decode(from: decoder)
        do {
            try self.init(jsonSchema: document)
        } catch let error as JSONSchemaImportError {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.description,
                                      underlyingError: error)
            )
        }
    }

    /// Encodes the schema as a JSON Schema document.
    ///
    /// Members are written in a fixed order; encoders that keep insertion order (unlike Foundation's
    /// `JSONEncoder`) reproduce it exactly.
    public func encode(to encoder: any Encoder) throws {
        try JSONValueCoding.encode(jsonSchema, to: encoder)
    }
}

/// Encodes and decodes arbitrary JSON values (as ``GeneratedContent``) through `Encoder`/`Decoder` containers.
enum JSONValueCoding {
    /// Encodes `value` as nested containers.
    static func encode(_ value: GeneratedContent, to encoder: any Encoder) throws {
        switch value.kind {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let bool):
            var container = encoder.singleValueContainer()
            try container.encode(bool)
        case .number(let number):
            var container = encoder.singleValueContainer()
            if let integer = Int(exactly: number) {
                try container.encode(integer)
            } else {
                try container.encode(number)
            }
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                try encode(element, to: container.superEncoder())
            }
        case .structure(let properties, let keys):
            var container = encoder.container(keyedBy: ContentKey.self)
            for key in keys {
                try encode(properties[key] ?? .null, to: container.superEncoder(forKey: ContentKey(key)))
            }
        }
    }

    /// Decodes any JSON value; object keys come back sorted, since decoders don't keep their order.
    static func decode(from decoder: any Decoder) throws -> GeneratedContent {
        if let container = try? decoder.container(keyedBy: ContentKey.self) {
            var properties: [String: GeneratedContent] = [:]
            for key in container.allKeys {
                properties[key.stringValue] = try decode(from: container.superDecoder(forKey: key))
            }
            return GeneratedContent(kind: .structure(properties: properties,
                                                     orderedKeys: properties.keys.sorted()))
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [GeneratedContent] = []
            while !container.isAtEnd {
                elements.append(try decode(from: container.superDecoder()))
            }
            return GeneratedContent(kind: .array(elements))
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            return .null
        }
        if let bool = try? container.decode(Bool.self) {
            return GeneratedContent(kind: .bool(bool))
        }
        if let number = try? container.decode(Double.self) {
            return GeneratedContent(kind: .number(number))
        }
        return GeneratedContent(kind: .string(try container.decode(String.self)))
    }
}
