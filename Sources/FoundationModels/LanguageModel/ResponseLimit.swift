/// The limit that cut guided output short, carried as the `underlyingError` of the
/// ``GeneratedContent/ParsingError`` thrown for it, so callers such as a server can tell a request's own limit
/// from a fault without reading the message.
package enum ResponseLimit: Error, Sendable {
    /// The value was still open at `maximumResponseTokens`.
    case maximumResponseTokens
    /// The value was still open at the end of the context window.
    case contextWindow
}
