/// The JSON form of a transcript, stable across versions of this library:
///
/// ```json
/// {"version": 1, "entries": [
///   {"type": "instructions", "id": "…", "segments": [{"type": "text", "id": "…", "content": "…"}],
///    "toolDefinitions": [{"name": "getWeather", "description": "…", "parameters": {JSON Schema}}]},
///   {"type": "prompt", "id": "…", "segments": […], "options": {…}, "responseFormat": {"name": "…", "schema": {JSON Schema}}},
///   {"type": "toolCalls", "id": "…", "calls": [{"id": "…", "toolName": "getWeather", "arguments": "{\"city\":\"Paris\"}"}]},
///   {"type": "toolOutput", "id": "…", "toolName": "getWeather", "segments": […]},
///   {"type": "response", "id": "…", "assetIDs": ["SmolLM2-135M-Instruct.Q4_1.gguf"], "segments": [
///     {"type": "structure", "id": "…", "source": "Itinerary", "content": "{\"title\":\"…\"}"}]}
/// ]}
/// ```
///
/// Generated content (structured segments, tool arguments) is stored as a string of its JSON text, so
/// property order survives; schemas are JSON Schema documents. Unknown keys are ignored when decoding.
extension Transcript: Codable {
    private enum CodingKeys: String, CodingKey { case version, entries }

    /// The version of the JSON form this library writes.
    static let encodingVersion = 1

    /// Decodes a transcript from its JSON form.
    ///
    /// - Throws: `DecodingError` for a newer, unknown version or malformed entries.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decodeIfPresent(Int.self, forKey: .version) ?? Self.encodingVersion
        guard version <= Self.encodingVersion else {
            throw DecodingError.dataCorruptedError(forKey: .version, in: container,
                                                   debugDescription: "Transcript version \(version) is newer than this library reads.")
        }
        self.init(entries: try container.decode([Entry].self, forKey: .entries))
    }

    /// Encodes the transcript in its JSON form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.encodingVersion, forKey: .version)
        try container.encode(entries, forKey: .entries)
    }
}

/// The `type` discriminator of entries and segments.
private enum TypeKey: String, CodingKey { case type }

extension Transcript.Entry: Codable {
    /// Decodes an entry: its `type` selects the case, the other keys are the entry's fields.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TypeKey.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "instructions": self = .instructions(try Transcript.Instructions(from: decoder))
        case "prompt": self = .prompt(try Transcript.Prompt(from: decoder))
        case "toolCalls": self = .toolCalls(try Transcript.ToolCalls(from: decoder))
        case "toolOutput": self = .toolOutput(try Transcript.ToolOutput(from: decoder))
        case "response": self = .response(try Transcript.Response(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "Unknown transcript entry type \"\(type)\".")
        }
    }

    /// Encodes the entry as one object with a `type` key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TypeKey.self)
        switch self {
        case .instructions(let entry):
            try container.encode("instructions", forKey: .type)
            try entry.encode(to: encoder)
        case .prompt(let entry):
            try container.encode("prompt", forKey: .type)
            try entry.encode(to: encoder)
        case .toolCalls(let entry):
            try container.encode("toolCalls", forKey: .type)
            try entry.encode(to: encoder)
        case .toolOutput(let entry):
            try container.encode("toolOutput", forKey: .type)
            try entry.encode(to: encoder)
        case .response(let entry):
            try container.encode("response", forKey: .type)
            try entry.encode(to: encoder)
        }
    }
}

extension Transcript.Segment: Codable {
    /// Decodes a segment: `type` is `text` or `structure`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TypeKey.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "text": self = .text(try Transcript.TextSegment(from: decoder))
        case "structure": self = .structure(try Transcript.StructuredSegment(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "Unknown segment type \"\(type)\".")
        }
    }

    /// Encodes the segment as one object with a `type` key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TypeKey.self)
        switch self {
        case .text(let segment):
            try container.encode("text", forKey: .type)
            try segment.encode(to: encoder)
        case .structure(let segment):
            try container.encode("structure", forKey: .type)
            try segment.encode(to: encoder)
        }
    }
}


extension Transcript.ToolCalls: Codable {
    private enum CodingKeys: String, CodingKey { case id, calls }

    /// Decodes a group of calls from `id` and `calls`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(String.self, forKey: .id), try container.decode([Transcript.ToolCall].self, forKey: .calls))
    }

    /// Encodes the group as `id` and `calls`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(calls, forKey: .calls)
    }
}
