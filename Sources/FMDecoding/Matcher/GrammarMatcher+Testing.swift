/// Conveniences for tests and tools.
extension GrammarMatcher {
    /// Whether `text` is a complete value accepted from the start (the matcher itself is not changed).
    package func acceptsCompletely(_ text: String) -> Bool {
        var copy = self
        return copy.accept(bytes: Array(text.utf8)) && copy.canTerminate
    }
}
