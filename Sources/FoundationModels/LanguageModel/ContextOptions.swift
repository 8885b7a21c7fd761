/// Options that control how a request is presented to the model: whether the response schema is
/// described in the prompt, and how much the model reasons first.
///
/// ```swift
/// let response = try await session.respond(
///     to: "Plan a day in Lisbon.",
///     generating: Itinerary.self,
///     contextOptions: ContextOptions(includeSchemaInPrompt: false)
/// )
/// ```
///
/// `nil` leaves the choice to the model: the schema is described (as with `includeSchemaInPrompt: true`),
/// and a reasoning model reasons at its default level.
public struct ContextOptions: Sendable, Equatable {
    /// How much effort a reasoning model spends before answering.
    public enum ReasoningLevel: Sendable, Equatable {
        /// Brief reasoning.
        case light
        /// A balance of speed and depth.
        case moderate
        /// Extended reasoning.
        case deep
        /// A level a particular model understands, by name.
        case custom(String)
    }

    /// Whether to describe the response schema in the prompt; `nil` means yes.
    ///
    /// Turn it off only when the model already knows the format, for example from earlier turns.
    public var includeSchemaInPrompt: Bool?

    /// How much the model reasons; `nil` leaves it to the model. Requests with a level need a model with the
    /// ``LanguageModelCapabilities/Capability/reasoning`` capability.
    public var reasoningLevel: ReasoningLevel?

    /// Creates context options.
    public init(includeSchemaInPrompt: Bool? = nil, reasoningLevel: ReasoningLevel? = nil) {
        self.includeSchemaInPrompt = includeSchemaInPrompt
        self.reasoningLevel = reasoningLevel
    }
}

// Stored with the prompts of a persisted transcript (a Linux addition, like `GenerationOptions`' conformance).
extension ContextOptions: Codable {}
extension ContextOptions.ReasoningLevel: Codable {}
