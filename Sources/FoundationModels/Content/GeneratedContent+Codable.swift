extension GeneratedContent: Codable {
    /// Creates content from its encoded form: a string holding the JSON text.
    ///
    /// The JSON text is stored as a string (not as nested containers) because encoders and decoders don't keep
    /// key order, and property order is part of generated content.
    ///
    /// - Throws: A `DecodingError` if the value isn't a string of JSON text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let json = try container.decode(String.self)
        self = try GeneratedContent(json: json)
    }

    /// Encodes the content as a string holding its JSON text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(compactJSONString)
    }
}
