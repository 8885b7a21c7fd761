/// What a language model can do.
///
/// ```swift
/// if model.capabilities.contains(.guidedGeneration) {
///     let itinerary = try await session.respond(to: prompt, generating: Itinerary.self)
/// }
/// ```
///
/// A session checks the capabilities a request needs before it reaches the executor and throws
/// ``LanguageModelError/unsupportedCapability(_:)`` when one is missing.
public struct LanguageModelCapabilities: Sendable {
    private var members: Set<Capability>

    /// Whether the model has `capability`.
    public func contains(_ capability: Capability) -> Bool {
        members.contains(capability)
    }

    /// Creates a set of capabilities.
    public init(capabilities: [Capability]) {
        members = Set(capabilities)
    }

    /// One thing a model can do.
    public struct Capability: Sendable, Hashable {
        private enum Kind: Hashable { case vision, guidedGeneration, reasoning, toolCalling }
        private let kind: Kind

        /// Understanding image attachments.
        public static var vision: Capability { Capability(kind: .vision) }
        /// Generating output that follows a schema (``Generable`` types, ``GenerationSchema``).
        public static var guidedGeneration: Capability { Capability(kind: .guidedGeneration) }
        /// Reasoning before answering, at a ``ContextOptions/ReasoningLevel``.
        public static var reasoning: Capability { Capability(kind: .reasoning) }
        /// Calling ``Tool``s.
        public static var toolCalling: Capability { Capability(kind: .toolCalling) }
    }
}

extension LanguageModelCapabilities.Capability: CustomStringConvertible {
    /// The capability's name, e.g. `guidedGeneration`.
    public var description: String { "\(kind)" }
}
