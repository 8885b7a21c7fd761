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

    /// The identifier of the value at `path` inside the content identified by `root`: the same for the same
    /// root and path, so every snapshot of a response names a nested element alike, and distinct for other paths.
    package init(derivedFrom root: GenerationID, path: String) {
        // Two 64-bit SipHash digests (seeded per process, which is all a response's lifetime needs) make 128 bits.
        func digest(_ salt: UInt8) -> UInt64 {
            var hasher = Hasher()
            hasher.combine(root.value)
            hasher.combine(path)
            hasher.combine(salt)
            return UInt64(bitPattern: Int64(hasher.finalize()))
        }
        let (high, low) = (digest(0), digest(1))
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * index))
        }
        value = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
