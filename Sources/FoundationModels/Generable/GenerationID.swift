import Foundation

/// A unique identifier that is stable for the duration of a response, but not across responses.
///
/// The framework guarantees a `GenerationID` is present and stable when content comes from a session, so you can
/// use it to identify elements (for example in a SwiftUI `ForEach`) while their other properties still stream in.
/// An identifier you create yourself carries no such guarantee.
public struct GenerationID: Sendable, Hashable {
    /// The random value that makes this identifier unique.
    private let value: UUID

    /// Creates a new, unique generation identifier.
    public init() {
        value = UUID()
    }
}
