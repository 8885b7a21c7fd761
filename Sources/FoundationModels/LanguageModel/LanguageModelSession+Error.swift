public import Foundation

extension LanguageModelSession {
    /// A failure caused by incorrect use of a language model session.
    ///
    /// ```swift
    /// do {
    ///     _ = try await session.respond(to: "Hello")
    /// } catch LanguageModelSession.Error.concurrentRequests {
    ///     // Wait until `isResponding` is false.
    /// }
    /// ```
    public enum Error: LocalizedError, CustomDebugStringConvertible, Hashable {
        /// The session received a request while it was responding to another.
        case concurrentRequests
        /// A request mutated the session's transcript while it was in progress.
        case transcriptMutationWhileResponding

        /// A description for developers.
        public var debugDescription: String {
            switch self {
            case .concurrentRequests:
                "The session is already responding to a request; wait until isResponding is false, or use another session."
            case .transcriptMutationWhileResponding:
                "The session's history was changed while it was responding; change it between requests."
            }
        }

        /// What went wrong.
        public var errorDescription: String? { debugDescription }
    }
}
