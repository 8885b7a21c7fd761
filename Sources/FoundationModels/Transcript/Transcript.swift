public import Foundation

/// A linear history of entries that reflect an interaction with a session.
///
/// A transcript is a random-access, mutable collection of ``Entry`` values: instructions, prompts,
/// reasoning, tool calls, tool outputs and responses, in order. Use it to show a conversation, persist it
/// (it is `Codable`), edit it, or start a new session from it with
/// ``LanguageModelSession/init(model:tools:transcript:)-(SystemLanguageModel,_,_)``.
///
/// ```swift
/// var transcript = session.transcript
/// transcript.history.removeAll { if case .toolOutput = $0 { true } else { false } }
/// let trimmed = LanguageModelSession(transcript: transcript)
/// ```
public struct Transcript: Sendable, Equatable, RandomAccessCollection {
    /// The position of an entry.
    public typealias Index = Int

    var entries: [Entry]

    /// Creates a transcript from entries.
    public init(entries: some Sequence<Entry> = []) {
        self.entries = Array(entries)
    }

    /// The position of the first entry.
    public var startIndex: Int { entries.startIndex }
    /// The position after the last entry.
    public var endIndex: Int { entries.endIndex }
    /// Accesses the entry at `index`.
    public subscript(index: Index) -> Entry {
        get { entries[index] }
        set { entries[index] = newValue }
    }
}

extension Transcript {
    /// One entry of a transcript.
    public enum Entry: Sendable, Equatable, Identifiable, CustomStringConvertible {
        /// Instructions, typically provided by you, the developer.
        case instructions(Instructions)
        /// A prompt, typically sourced from an end user.
        case prompt(Prompt)
        /// Tool calls requested by the model.
        case toolCalls(ToolCalls)
        /// The output a tool returned.
        case toolOutput(ToolOutput)
        /// A response from the model.
        case response(Response)
        /// The model's reasoning before a response or tool calls.
        case reasoning(Reasoning)

        /// The entry's identifier.
        public var id: String {
            switch self {
            case .instructions(let e): e.id
            case .prompt(let e): e.id
            case .toolCalls(let e): e.id
            case .toolOutput(let e): e.id
            case .response(let e): e.id
            case .reasoning(let e): e.id
            }
        }

        /// A readable rendering of the entry.
        public var description: String {
            switch self {
            case .instructions(let e): "Instructions: \(e.description)"
            case .prompt(let e): "Prompt: \(e.description)"
            case .toolCalls(let e): "Tool calls: \(e.description)"
            case .toolOutput(let e): "Tool output (\(e.toolName)): \(e.description)"
            case .response(let e): "Response: \(e.description)"
            case .reasoning(let e): "Reasoning: \(e.description)"
            }
        }
    }

    /// A piece of an entry's content.
    public enum Segment: Sendable, Equatable, Identifiable, CustomStringConvertible {
        /// Text.
        case text(TextSegment)
        /// Structured content.
        case structure(StructuredSegment)
        /// An attachment, such as an image.
        case attachment(AttachmentSegment)
        /// Content of a type you define.
        case custom(any CustomSegment)

        /// The segment's identifier.
        public var id: String {
            switch self {
            case .text(let s): s.id
            case .structure(let s): s.id
            case .attachment(let s): s.id
            case .custom(let s): s.id
            }
        }

        /// The segment's text, its content's JSON, or a description of its attachment or custom content.
        public var description: String {
            switch self {
            case .text(let s): s.description
            case .structure(let s): s.description
            case .attachment(let s): s.description
            case .custom(let s): s.description
            }
        }

        /// Segments are equal when their cases and contents are; custom segments compare with
        /// ``CustomSegment/isEqual(to:)``.
        public static func == (lhs: Segment, rhs: Segment) -> Bool {
            switch (lhs, rhs) {
            case (.text(let a), .text(let b)): a == b
            case (.structure(let a), .structure(let b)): a == b
            case (.attachment(let a), .attachment(let b)): a == b
            case (.custom(let a), .custom(let b)): a.isEqual(to: b)
            default: false
            }
        }

        /// The text the model reads for the segment: text as is, structured content as compact JSON.
        package var modelText: String {
            switch self {
            case .text(let s): s.content
            case .structure(let s): s.content.compactJSONString
            case .attachment(let s): s.description
            case .custom(let s): s.description
            }
        }
    }

    /// A text segment.
    public struct TextSegment: Sendable, Equatable, Codable, Identifiable, CustomStringConvertible {
        /// The identifier.
        public var id: String
        /// The text.
        public var content: String

        /// Creates a text segment.
        public init(id: String = UUID().uuidString, content: String) {
            self.id = id
            self.content = content
        }

        /// The text.
        public var description: String { content }
    }

    /// A segment of structured content.
    public struct StructuredSegment: Sendable, Equatable, Codable, Identifiable, CustomStringConvertible {
        /// The identifier.
        public var id: String
        /// The name of the schema (the generated type) the content follows.
        public var schemaName: String
        /// The content.
        public var content: GeneratedContent

        /// Which type the content represents.
        ///
        /// Deprecated on Apple's platforms from 27, as Apple declares it; Linux has no such version, so code
        /// that uses it builds there without a warning, as it does for an earlier Apple deployment target.
        @available(macOS, deprecated: 27.0, renamed: "schemaName")
        @available(iOS, deprecated: 27.0, renamed: "schemaName")
        @available(visionOS, deprecated: 27.0, renamed: "schemaName")
        public var source: String {
            get { schemaName }
            set { schemaName = newValue }
        }

        /// Creates a structured segment.
        @available(macOS, deprecated: 27.0, renamed: "init(id:schemaName:content:)")
        @available(iOS, deprecated: 27.0, renamed: "init(id:schemaName:content:)")
        @available(visionOS, deprecated: 27.0, renamed: "init(id:schemaName:content:)")
        public init(id: String = UUID().uuidString, source: String, content: GeneratedContent) {
            self.init(id: id, schemaName: source, content: content)
        }

        /// Creates a structured segment.
        public init(id: String = UUID().uuidString, schemaName: String, content: GeneratedContent) {
            self.id = id
            self.schemaName = schemaName
            self.content = content
        }

        /// The content's JSON.
        public var description: String { content.jsonString }

        private enum CodingKeys: String, CodingKey {
            // `source` is the key this library has always written.
            case id, schemaName = "source", content
        }
    }

    /// Instructions that define the model's behaviour, with the tools it may call.
    public struct Instructions: Sendable, Equatable, Codable, Identifiable, CustomStringConvertible {
        /// The identifier.
        public var id: String
        /// The instructions' content.
        public var segments: [Segment]
        /// The tools the model may call.
        public var toolDefinitions: [ToolDefinition]

        /// Creates an instructions entry.
        public init(id: String = UUID().uuidString, segments: [Segment], toolDefinitions: [ToolDefinition]) {
            self.id = id
            self.segments = segments
            self.toolDefinitions = toolDefinitions
        }

        /// The segments' text.
        public var description: String { segments.map(\.description).joined(separator: "\n") }
    }

    /// A prompt with the options and response format of its request.
    public struct Prompt: Sendable, Equatable, Identifiable, CustomStringConvertible {
        /// The identifier.
        public var id: String
        /// The prompt's content.
        public var segments: [Segment]
        /// The generation options of the request.
        public var options: GenerationOptions
        /// The context options of the request.
        public var contextOptions: ContextOptions
        /// The metadata the caller passed with the request.
        public var metadata: [String: any Codable & Sendable & Equatable]
        /// The format the response had to conform to, if any.
        public var responseFormat: ResponseFormat?

        /// Creates a prompt entry.
        public init(
            id: String = UUID().uuidString,
            segments: [Segment],
            options: GenerationOptions = GenerationOptions(),
            responseFormat: ResponseFormat? = nil
        ) {
            self.init(id: id, segments: segments, options: options, responseFormat: responseFormat, contextOptions: ContextOptions())
        }

        /// Creates a prompt entry with context options and metadata.
        public init(
            id: String = UUID().uuidString,
            metadata: [String: any Codable & Sendable & Equatable] = [:],
            segments: [Segment],
            options: GenerationOptions = GenerationOptions(),
            responseFormat: ResponseFormat? = nil,
            contextOptions: ContextOptions = ContextOptions()
        ) {
            self.id = id
            self.metadata = metadata
            self.segments = segments
            self.options = options
            self.responseFormat = responseFormat
            self.contextOptions = contextOptions
        }

        /// Prompts are equal when their identifiers, content, options, formats and metadata are.
        public static func == (lhs: Prompt, rhs: Prompt) -> Bool {
            lhs.id == rhs.id && lhs.segments == rhs.segments && lhs.options == rhs.options
                && lhs.contextOptions == rhs.contextOptions && lhs.responseFormat == rhs.responseFormat
                && Transcript.metadataEqual(lhs.metadata, rhs.metadata)
        }

        /// The segments' text.
        public var description: String { segments.map(\.description).joined(separator: "\n") }
    }

    /// A response from the model.
    public struct Response: Sendable, Equatable, Identifiable, CustomStringConvertible {
        /// The identifier.
        public var id: String
        /// Version-aware identifiers of the assets (model file, adapters) that produced the response.
        public var assetIDs: [String]
        /// What the executor reported about the response — for the on-device model, `assetIDs` and `finishReason`.
        /// Read-only, as on Apple's platforms.
        public internal(set) var metadata: [String: any Codable & Sendable & Equatable]
        /// The response's content.
        public var segments: [Segment]

        /// Creates a response entry.
        public init(id: String = UUID().uuidString, assetIDs: [String], segments: [Segment]) {
            self.id = id
            self.assetIDs = assetIDs
            self.metadata = ["assetIDs": assetIDs]
            self.segments = segments
        }

        /// Creates a response entry with metadata.
        public init(id: String = UUID().uuidString, metadata: [String: any Sendable & Codable & Equatable] = [:], segments: [Segment]) {
            self.id = id
            self.assetIDs = metadata["assetIDs"] as? [String] ?? []
            self.metadata = metadata
            self.segments = segments
        }

        /// Responses are equal when their identifiers, assets, content and metadata are.
        public static func == (lhs: Response, rhs: Response) -> Bool {
            lhs.id == rhs.id && lhs.assetIDs == rhs.assetIDs && lhs.segments == rhs.segments
                && Transcript.metadataEqual(lhs.metadata, rhs.metadata)
        }

        /// The segments' text.
        public var description: String { segments.map(\.description).joined(separator: "\n") }
    }

    /// The format a response must conform to.
    public struct ResponseFormat: Sendable, Equatable, Codable, CustomStringConvertible {
        /// The format's name: the generated type's name, or the schema's. Read-only, as on Apple's platforms.
        public internal(set) var name: String
        /// The schema the response conforms to.
        let schema: GenerationSchema

        /// Creates a response format from a schema.
        public init(schema: GenerationSchema) {
            self.schema = schema
            self.name = schema.root.typeName ?? "GeneratedContent"
        }

        /// Creates a response format for a generable type.
        public init<Content: Generable>(type: Content.Type) {
            self.schema = Content.generationSchema
            self.name = String(describing: Content.self)
        }

        /// The format's name.
        public var description: String { name }

        /// Formats are equal when their names are.
        public static func == (lhs: ResponseFormat, rhs: ResponseFormat) -> Bool { lhs.name == rhs.name }
    }

    /// A tool the model may call.
    public struct ToolDefinition: Sendable, Equatable, Codable {
        /// The tool's name.
        public var name: String
        /// When and how to use the tool.
        public var description: String
        /// The schema of the tool's arguments.
        public var parameters: GenerationSchema

        /// Creates a tool definition.
        public init(name: String, description: String, parameters: GenerationSchema) {
            self.name = name
            self.description = description
            self.parameters = parameters
        }

        /// Creates the definition of a tool.
        public init(tool: some Tool) {
            self.init(name: tool.name, description: tool.description, parameters: tool.parameters)
        }

        /// Definitions are equal when their names and descriptions are.
        public static func == (lhs: ToolDefinition, rhs: ToolDefinition) -> Bool {
            lhs.name == rhs.name && lhs.description == rhs.description
        }
    }

    /// One call of a tool requested by the model.
    public struct ToolCall: Sendable, Equatable, Identifiable, CustomStringConvertible {
        /// The identifier.
        public var id: String
        /// The tool's name.
        public var toolName: String
        /// The arguments the model generated.
        public var arguments: GeneratedContent
        /// What the executor reported about the call.
        public var metadata: [String: any Codable & Sendable & Equatable]

        /// Creates a tool call.
        public init(id: String, toolName: String, arguments: GeneratedContent) {
            self.init(id: id, metadata: [:], toolName: toolName, arguments: arguments)
        }

        /// Creates a tool call with metadata.
        public init(id: String, metadata: [String: any Codable & Sendable & Equatable], toolName: String, arguments: GeneratedContent) {
            self.id = id
            self.metadata = metadata
            self.toolName = toolName
            self.arguments = arguments
        }

        /// Calls are equal when their identifiers, tools, arguments and metadata are.
        public static func == (lhs: ToolCall, rhs: ToolCall) -> Bool {
            lhs.id == rhs.id && lhs.toolName == rhs.toolName && lhs.arguments == rhs.arguments
                && Transcript.metadataEqual(lhs.metadata, rhs.metadata)
        }

        /// `name(arguments)`.
        public var description: String { "\(toolName)(\(arguments.jsonString))" }
    }

    /// The tool calls of one model turn.
    public struct ToolCalls: Sendable, Equatable, Identifiable, CustomStringConvertible, RandomAccessCollection {
        /// The identifier.
        public var id: String
        var calls: [ToolCall]

        /// Creates a group of tool calls.
        public init<S: Sequence>(id: String = UUID().uuidString, _ calls: S) where S.Element == ToolCall {
            self.id = id
            self.calls = Array(calls)
        }

        /// The position of the first call.
        public var startIndex: Int { calls.startIndex }
        /// The position after the last call.
        public var endIndex: Int { calls.endIndex }
        /// The call at `position`.
        public subscript(position: Int) -> ToolCall { calls[position] }

        /// The calls.
        public var description: String { calls.map(\.description).joined(separator: ", ") }
    }

    /// What a tool returned.
    public struct ToolOutput: Sendable, Equatable, Codable, Identifiable, CustomStringConvertible {
        /// The identifier.
        public var id: String
        /// The tool's name.
        public var toolName: String
        /// The output's content.
        public var segments: [Segment]

        /// Creates a tool output entry.
        public init(id: String, toolName: String, segments: [Segment]) {
            self.id = id
            self.toolName = toolName
            self.segments = segments
        }

        /// The segments' text.
        public var description: String { segments.map(\.description).joined(separator: "\n") }
    }
}
