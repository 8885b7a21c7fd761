import Foundation

/// The `Authorization: Bearer <key>` check of a server with an API key.
enum BearerCredentials {
    /// Whether `credentials` (an `Authorization` value) is `Bearer <key>`. The scheme's case does not matter
    /// (RFC 9110), and every byte of the key is compared whatever the first difference, so the time taken does
    /// not tell a guesser how much of a key was right.
    static func match(_ credentials: String, key: String) -> Bool {
        let parts = credentials.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        let token = Array(parts[1].trimmingCharacters(in: .whitespaces).utf8)
        let expected = Array(key.utf8)
        // The lengths' difference is kept whole: truncated to a byte, lengths 256 apart would compare equal.
        var difference = UInt(bitPattern: token.count ^ expected.count)
        for index in expected.indices {
            difference |= UInt(expected[index] ^ (index < token.count ? token[index] : 0))
        }
        return difference == 0
    }
}
