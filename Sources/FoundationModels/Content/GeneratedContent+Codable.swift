extension GeneratedContent: Codable {
    /// Creates content from its encoded form: a string holding the JSON text.
    ///
    /// The JSON text is stored as a string (not as nested containers) because encoders and decoders don't keep
    /// key order, and property order is part of generated content.
    ///
    /// - Throws: A `DecodingError` if the value isn't a string of whole JSON text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let json = try container.decode(String.self)
        let content = try GeneratedContent(json: json)
        // Encoding writes whole values only, so cut-off text is a damaged file, not a value to read on.
        guard content.isComplete else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "The JSON text ends before its value does: \(json.prefix(200))")
        }
        self = content
    }

    /// Encodes the content as a string holding its JSON text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(compactJSONString)
    }
}
