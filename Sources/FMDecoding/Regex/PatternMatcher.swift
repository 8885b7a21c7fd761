/// Matches strings against patterns with the decoder's own regular-expression engine.
///
/// Schema importers use it to decide at import time what the grammar will decide at generation time: whether a
/// property name matches a `patternProperties` pattern, or an `enum` member satisfies a `pattern`. The syntax and
/// semantics are exactly those of ``StringConstraint/pattern(_:)``.
///
/// ```swift
/// let matcher = try PatternMatcher(pattern: #"^[a-z]+$"#)
/// matcher.matches("abc")  // true
/// ```
package struct PatternMatcher: Sendable {
    private let automaton: ScalarAutomaton

    /// Compiles `pattern` (whole-match semantics, like the grammar).
    ///
    /// - Throws: ``GrammarError`` for syntax the decoder does not support or a malformed pattern.
    package init(pattern: String) throws(GrammarError) {
        automaton = try ScalarAutomaton(try RegexParser.parse(pattern))
    }

    /// Whether the whole of `text` matches.
    package func matches(_ text: String) -> Bool {
        automaton.matches(text.unicodeScalars)
    }

    /// Whether no string at all matches.
    package var matchesNothing: Bool { automaton.isEmpty }

    /// Compiles a pattern with search semantics (JSON Schema's and ECMAScript's `test`): it matches when it is
    /// found anywhere in the string, unless a branch is anchored with `^` or `$`.
    ///
    /// - Throws: ``GrammarError`` for syntax the decoder does not support or a malformed pattern.
    package init(searching pattern: String) throws(GrammarError) {
        try self.init(pattern: Self.wholeMatchSource(searching: pattern))
    }

    /// The branches of a pattern's top-level alternation (`a|(b|c)` → `a`, `(b|c)`): `|` outside groups and
    /// character classes, escapes skipped. A pattern without one is a single branch.
    package static func topLevelBranches(_ scalars: [Unicode.Scalar]) -> [ArraySlice<Unicode.Scalar>] {
        var branches: [ArraySlice<Unicode.Scalar>] = []
        var start = 0
        var depth = 0
        var inClass = false
        var index = 0
        while index < scalars.count {
            switch scalars[index] {
            case "\\": index += 1
            case "[" where !inClass: inClass = true
            case "]" where inClass: inClass = false
            case "(" where !inClass: depth += 1
            case ")" where !inClass: depth -= 1
            case "|" where !inClass && depth == 0:
                branches.append(scalars[start..<index])
                start = index + 1
            default: break
            }
            index += 1
        }
        branches.append(scalars[start..<min(index, scalars.count)])
        return branches
    }

    /// The whole-match pattern equivalent to a search pattern: each top-level branch without a leading `^` may be
    /// preceded by anything, each without a trailing `$` followed by anything.
    ///
    /// ```swift
    /// try PatternMatcher.wholeMatchSource(searching: "^a|b")  // (?:(?:a)[\s\S]*|[\s\S]*(?:b)[\s\S]*)
    /// ```
    ///
    /// - Throws: ``GrammarError`` for syntax the decoder does not support or a malformed pattern.
    package static func wholeMatchSource(searching pattern: String) throws(GrammarError) -> String {
        let branches = topLevelBranches(Array(pattern.unicodeScalars))
        let anything = #"[\s\S]*"#
        let converted = branches.map { branch -> String in
            var body = branch
            let anchoredStart = body.first == "^"
            if anchoredStart { body = body.dropFirst() }
            var anchoredEnd = false
            if body.last == "$" {
                // An escaped `\$` is a literal dollar sign: count the backslashes before it.
                let backslashes = body.dropLast().reversed().prefix { $0 == "\\" }.count
                if backslashes % 2 == 0 {
                    anchoredEnd = true
                    body = body.dropLast()
                }
            }
            var text = String(String.UnicodeScalarView(body))
            text = "(?:\(text))"
            return (anchoredStart ? "" : anything) + text + (anchoredEnd ? "" : anything)
        }
        let source = converted.count == 1 ? converted[0] : "(?:" + converted.joined(separator: "|") + ")"
        // Parse now so that errors name the pattern as written.
        do {
            _ = try RegexParser.parse(source)
        } catch {
            _ = try RegexParser.parse(pattern)
            throw error
        }
        return source
    }
}
