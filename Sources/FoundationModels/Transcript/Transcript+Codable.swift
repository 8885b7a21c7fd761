import Foundation

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
///     {"type": "structure", "id": "…", "source": "Itinerary", "content": "{\"title\":\"…\"}"}]},
///   {"type": "reasoning", "id": "…", "segments": […], "signature": "<base64>"}
/// ]}
/// ```
///
/// Generated content (structured segments, tool arguments) is stored as a string of its JSON text, so
/// property order survives; schemas are JSON Schema documents. Unknown keys are ignored when decoding.
/// Metadata is stored as JSON and read back as strings, numbers, Booleans and lists of them. Attachments
/// keep their file URL, orientation and label. A custom segment is written with its description and its
/// content's JSON, and read back as a text segment holding the description: the type that wrote it is not
/// known when decoding.
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
        case "reasoning": self = .reasoning(try Transcript.Reasoning(from: decoder))
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
        case .reasoning(let entry):
            try container.encode("reasoning", forKey: .type)
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
        case "attachment": self = .attachment(try Transcript.AttachmentSegment(from: decoder))
        case "custom":
            let custom = try decoder.container(keyedBy: CustomKeys.self)
            self = .text(.init(id: try custom.decode(String.self, forKey: .id), content: try custom.decode(String.self, forKey: .description)))
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
        case .attachment(let segment):
            try container.encode("attachment", forKey: .type)
            try segment.encode(to: encoder)
        case .custom(let segment):
            try container.encode("custom", forKey: .type)
            var custom = encoder.container(keyedBy: CustomKeys.self)
            try custom.encode(segment.id, forKey: .id)
            try custom.encode(segment.description, forKey: .description)
            try custom.encode(segment.content, forKey: .content)
        }
    }

    private enum CustomKeys: String, CodingKey { case id, description, content }
}

extension Transcript.Prompt: Codable {
    private enum CodingKeys: String, CodingKey { case id, segments, options, contextOptions, metadata, responseFormat }

    /// Decodes a prompt entry; `contextOptions` and `metadata` may be absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            metadata: try container.decodeMetadata(forKey: .metadata),
            segments: try container.decode([Transcript.Segment].self, forKey: .segments),
            options: try container.decodeIfPresent(GenerationOptions.self, forKey: .options) ?? GenerationOptions(),
            responseFormat: try container.decodeIfPresent(Transcript.ResponseFormat.self, forKey: .responseFormat),
            contextOptions: try container.decodeIfPresent(ContextOptions.self, forKey: .contextOptions) ?? ContextOptions())
    }

    /// Encodes the prompt entry.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(segments, forKey: .segments)
        try container.encode(options, forKey: .options)
        if contextOptions != ContextOptions() { try container.encode(contextOptions, forKey: .contextOptions) }
        try container.encodeMetadata(metadata, forKey: .metadata)
        try container.encodeIfPresent(responseFormat, forKey: .responseFormat)
    }
}

extension Transcript.Response: Codable {
    private enum CodingKeys: String, CodingKey { case id, assetIDs, metadata, segments }

    /// Decodes a response entry; `metadata` may be absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(String.self, forKey: .id), metadata: try container.decodeMetadata(forKey: .metadata),
                  segments: try container.decode([Transcript.Segment].self, forKey: .segments))
        assetIDs = try container.decodeIfPresent([String].self, forKey: .assetIDs) ?? []
    }

    /// Encodes the response entry.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(assetIDs, forKey: .assetIDs)
        try container.encodeMetadata(metadata, forKey: .metadata)
        try container.encode(segments, forKey: .segments)
    }
}

extension Transcript.ToolCall: Codable {
    private enum CodingKeys: String, CodingKey { case id, toolName, arguments, metadata }

    /// Decodes a tool call; `metadata` may be absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(String.self, forKey: .id), metadata: try container.decodeMetadata(forKey: .metadata),
                  toolName: try container.decode(String.self, forKey: .toolName),
                  arguments: try container.decode(GeneratedContent.self, forKey: .arguments))
    }

    /// Encodes the tool call.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(toolName, forKey: .toolName)
        try container.encode(arguments, forKey: .arguments)
        try container.encodeMetadata(metadata, forKey: .metadata)
    }
}

extension Transcript.Reasoning: Codable {
    private enum CodingKeys: String, CodingKey { case id, segments, signature, metadata }

    /// Decodes a reasoning entry.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(String.self, forKey: .id), metadata: try container.decodeMetadata(forKey: .metadata),
                  segments: try container.decode([Transcript.Segment].self, forKey: .segments),
                  signature: try container.decodeIfPresent(Data.self, forKey: .signature))
    }

    /// Encodes the reasoning entry.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(segments, forKey: .segments)
        try container.encodeIfPresent(signature, forKey: .signature)
        try container.encodeMetadata(metadata, forKey: .metadata)
    }
}

extension Transcript.AttachmentSegment: Codable {
    private enum CodingKeys: String, CodingKey { case id, label, image, orientation }

    /// Decodes an attachment segment: an image file URL with its orientation and label.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let orientation = try container.decodeIfPresent(UInt32.self, forKey: .orientation).flatMap(CGImagePropertyOrientation.init(rawValue:))
        self.init(id: try container.decode(String.self, forKey: .id),
                  content: .image(.init(imageURL: try container.decode(URL.self, forKey: .image), orientation: orientation)),
                  label: try container.decodeIfPresent(String.self, forKey: .label))
    }

    /// Encodes the attachment segment.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(label, forKey: .label)
        switch content {
        case .image(let image):
            try container.encodeIfPresent(image.url, forKey: .image)
            try container.encode(image.orientation.rawValue, forKey: .orientation)
        }
    }
}

extension KeyedDecodingContainer {
    /// Metadata stored as a JSON object, as plain Swift values; empty when absent.
    func decodeMetadata(forKey key: Key) throws -> [String: any Codable & Sendable & Equatable] {
        guard let values = try decodeIfPresent([String: JSONMetadataValue].self, forKey: key) else { return [:] }
        return values.mapValues(\.plainValue)
    }
}

extension KeyedEncodingContainer {
    /// Writes metadata as a JSON object, unless it is empty.
    mutating func encodeMetadata(_ metadata: [String: any Codable & Sendable & Equatable], forKey key: Key) throws {
        guard !metadata.isEmpty else { return }
        var nested = nestedContainer(keyedBy: MetadataKey.self, forKey: key)
        for (name, value) in metadata.sorted(by: { $0.key < $1.key }) {
            try nested.encode(value, forKey: MetadataKey(stringValue: name))
        }
    }
}

/// A metadata dictionary's key.
private struct MetadataKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
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
