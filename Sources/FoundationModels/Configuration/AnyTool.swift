/// A tool of any type, with arguments as ``GeneratedContent`` and output as a ``Prompt``.
///
/// ```swift
/// let tools: [AnyTool] = [AnyTool(WeatherTool()), AnyTool(CalendarTool())]
/// ```
public struct AnyTool: Tool {
    /// The arguments: the model's generated content, converted to the wrapped tool's arguments when called.
    public typealias Arguments = GeneratedContent
    /// The output: the wrapped tool's output as a prompt.
    public typealias Output = Prompt

    private let base: any Tool
    private let invoke: @Sendable (GeneratedContent) async throws -> Prompt

    /// The wrapped tool's name.
    public var name: String { base.name }
    /// The wrapped tool's description.
    public var description: String { base.description }
    /// The wrapped tool's parameters.
    public var parameters: GenerationSchema { base.parameters }
    /// Whether the wrapped tool is described in the instructions.
    public var includesSchemaInInstructions: Bool { base.includesSchemaInInstructions }

    /// Wraps `tool`.
    public init(_ tool: some Tool) {
        base = tool
        invoke = { arguments in try await Self.call(tool, arguments: arguments) }
    }

    /// Converts the arguments for the wrapped tool and calls it.
    public nonisolated(nonsending) func call(arguments: GeneratedContent) async throws -> Prompt {
        try await invoke(arguments)
    }

    private static func call<T: Tool>(_ tool: T, arguments: GeneratedContent) async throws -> Prompt {
        Prompt(try await tool.call(arguments: try T.Arguments(arguments)))
    }
}
