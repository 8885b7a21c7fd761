/// Conveniences for tests and tools.
extension GrammarMatcher {
    /// Whether `text` is a complete value accepted from the start (the matcher itself is not changed).
    package func acceptsCompletely(_ text: String) -> Bool {
        var copy = self
        return copy.accept(bytes: Array(text.utf8)) && copy.canTerminate
    }

    /// How the mask at the current position differs from the reference walk over the whole vocabulary, or nil.
    package func maskMismatch() -> String? {
        constraint.withAutomaton { $0.maskMismatch(state) }
    }

    /// The scalar class the first-visit mask of the current state folds into runs: its ASCII member count and
    /// whether it holds every non-ASCII scalar.
    package func foldedClass() -> (asciiCount: Int, includesNonASCII: Bool) {
        constraint.withAutomaton { automaton in
            let scalarClass = automaton.dominantClass(of: state)
            return (scalarClass.asciiCount, scalarClass.includesNonASCII)
        }
    }
}
