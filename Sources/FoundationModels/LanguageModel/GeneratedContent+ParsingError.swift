public import Foundation

extension GeneratedContent {
    /// A failure to turn model output into the requested content: output that is not a complete value of
    /// the schema, for example because it reached `maximumResponseTokens` first.
    ///
    /// ```swift
    /// do {
    ///     let recipe = try await session.respond(to: prompt, generating: Recipe.self, options: options)
    /// } catch let error as GeneratedContent.ParsingError {
    ///     print("Could not read: \(error.rawContent)")
    /// }
    /// ```
    public struct ParsingError: LocalizedError, CustomDebugStringConvertible, Sendable {
        /// The text the model produced.
        public var rawContent: String
        /// What the parser reported, if anything.
        public var underlyingError: (any Swift.Error)?
        /// A description for developers.
        public var debugDescription: String

        /// Creates a parsing error.
        public init(rawContent: String, underlyingError: (any Swift.Error)? = nil, debugDescription: String) {
            self.rawContent = rawContent
            self.underlyingError = underlyingError
            self.debugDescription = debugDescription
        }

        /// What went wrong.
        public var errorDescription: String? {
            "The response could not be read as the requested content. \(debugDescription)"
        }
    }
}
