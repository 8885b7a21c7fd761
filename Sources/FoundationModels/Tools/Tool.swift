public import Foundation

/// A tool that a model can call to gather information at runtime or perform side effects.
///
/// ```swift
/// struct WeatherTool: Tool {
///     let name = "getWeather"
///     let description = "Retrieve the latest weather for a city."
///     @Generable struct Arguments {
///         @Guide(description: "The city to get weather information for")
///         var city: String
///     }
///     func call(arguments: Arguments) async throws -> String {
///         "It is 21°C and sunny in \(arguments.city)."
///     }
/// }
/// ```
///
/// Tools must be `Sendable`: the session may run several calls at once.
public protocol Tool<Arguments, Output>: Sendable {
    /// The arguments the model generates for a call; typically a `@Generable` type or ``GeneratedContent``.
    associatedtype Arguments: ConvertibleFromGeneratedContent
    /// What the tool returns to the model; typically a `String` or a `@Generable` type.
    associatedtype Output: PromptRepresentable

    /// A unique name for the tool, such as `get_weather`. Defaults to the type's name.
    var name: String { get }
    /// A natural-language description of when and how to use the tool.
    var description: String { get }
    /// The schema of ``Arguments``; provided automatically when `Arguments` is `Generable`.
    var parameters: GenerationSchema { get }
    /// Whether the tool's name, description and parameters go into the session's instructions. Defaults to `true`.
    var includesSchemaInInstructions: Bool { get }

    /// Runs the tool. Errors thrown here reach the `respond` call as ``LanguageModelSession/ToolCallError``.
    ///
    /// Declared `@concurrent`, as in Apple's framework: a call through the protocol runs off the caller's actor.
    @concurrent func call(arguments: Arguments) async throws -> Output
}

extension Tool {
    /// The type's name, e.g. `WeatherTool`.
    public var name: String { String(describing: Self.self) }

    /// `true`: the model is told about the tool in the instructions.
    public var includesSchemaInInstructions: Bool { true }
}

extension Tool where Arguments: Generable {
    /// The arguments type's schema.
    public var parameters: GenerationSchema { Arguments.generationSchema }
}

// Apple's framework rejects tools whose arguments are a bare value: the model needs named arguments.

extension Tool where Arguments == String {
    /// Unavailable: use a `@Generable` structure as `Arguments`.
    @available(*, unavailable, message: "'Tool' that uses 'String' as 'Arguments' type is unsupported. Use '@Generable' struct instead.")
    public var parameters: GenerationSchema { fatalError("unavailable") }
}

extension Tool where Arguments == Int {
    /// Unavailable: use a `@Generable` structure as `Arguments`.
    @available(*, unavailable, message: "'Tool' that uses 'Int' as 'Arguments' type is unsupported. Use '@Generable' struct instead.")
    public var parameters: GenerationSchema { fatalError("unavailable") }
}

extension Tool where Arguments == Double {
    /// Unavailable: use a `@Generable` structure as `Arguments`.
    @available(*, unavailable, message: "'Tool' that uses 'Double' as 'Arguments' type is unsupported. Use '@Generable' struct instead.")
    public var parameters: GenerationSchema { fatalError("unavailable") }
}

extension Tool where Arguments == Float {
    /// Unavailable: use a `@Generable` structure as `Arguments`.
    @available(*, unavailable, message: "'Tool' that uses 'Float' as 'Arguments' type is unsupported. Use '@Generable' struct instead.")
    public var parameters: GenerationSchema { fatalError("unavailable") }
}

extension Tool where Arguments == Decimal {
    /// Unavailable: use a `@Generable` structure as `Arguments`.
    @available(*, unavailable, message: "'Tool' that uses 'Decimal' as 'Arguments' type is unsupported. Use '@Generable' struct instead.")
    public var parameters: GenerationSchema { fatalError("unavailable") }
}

extension Tool where Arguments == Bool {
    /// Unavailable: use a `@Generable` structure as `Arguments`.
    @available(*, unavailable, message: "'Tool' that uses 'Bool' as 'Arguments' type is unsupported. Use '@Generable' struct instead.")
    public var parameters: GenerationSchema { fatalError("unavailable") }
}
