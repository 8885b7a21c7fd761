import Foundation

/// Why a session's tools cannot be offered: two of them, with different definitions, share a name. Thrown as a
/// ``LanguageModelSession/ToolCallError`` naming the second tool, before the model is asked (so no tool ran).
struct ToolNameClash: Error, LocalizedError, Sendable {
    /// The shared name.
    var name: String

    var errorDescription: String? {
        "it was not called: another tool of the session, with another description or other arguments, is also named '\(name)', and a model calls tools by name, so each needs a name of its own"
    }
}
