import FMDecoding

/// Whether a grammar accepts some compact canonical serialization of a value.
///
/// Canonical means what the generator writes: no whitespace, canonical string escapes, numbers in plain decimal.
/// Object keys may come in any order (the generator writes them in the schema's order, which the test cannot
/// know in general), so the search tries every order the matcher allows, one key at a time.
enum CanonicalAcceptance {
    static func accepts(_ value: SuiteJSON, _ matcher: GrammarMatcher) -> Bool {
        var budget = 20_000
        return states(after: value, from: matcher, budget: &budget).contains { $0.canTerminate }
    }

    /// Every matcher state after writing `value` in some key order.
    private static func states(after value: SuiteJSON, from matcher: GrammarMatcher, budget: inout Int) -> [GrammarMatcher] {
        budget -= 1
        guard budget > 0 else { return [] }
        func literal(_ text: String, _ state: GrammarMatcher) -> [GrammarMatcher] {
            var copy = state
            return copy.accept(bytes: Array(text.utf8)) ? [copy] : []
        }
        switch value {
        case .null: return literal("null", matcher)
        case .bool(let flag): return literal(flag ? "true" : "false", matcher)
        case .number(let text): return literal(SuiteJSON.canonicalNumber(text), matcher)
        case .string(let text): return literal(SuiteJSON.quoted(text), matcher)
        case .array(let elements):
            var current = literal("[", matcher)
            for (index, element) in elements.enumerated() {
                if index > 0 { current = current.flatMap { literal(",", $0) } }
                var next: [GrammarMatcher] = []
                for state in current { next += states(after: element, from: state, budget: &budget) }
                current = next
                if current.isEmpty { return [] }
            }
            return current.flatMap { literal("]", $0) }
        case .object(let pairs):
            var results: [GrammarMatcher] = []
            for open in literal("{", matcher) {
                results += members(pairs, remaining: Array(pairs.indices), first: true, from: open, budget: &budget)
            }
            return results
        }
    }

    private static func members(
        _ members: [SuiteJSON.Member], remaining: [Int], first: Bool, from matcher: GrammarMatcher,
        budget: inout Int
    ) -> [GrammarMatcher] {
        var copy = matcher
        if remaining.isEmpty { return copy.accept(bytes: Array("}".utf8)) ? [copy] : [] }
        var results: [GrammarMatcher] = []
        for (position, index) in remaining.enumerated() {
            var next = matcher
            let key = (first ? "" : ",") + SuiteJSON.quoted(members[index].key) + ":"
            guard next.accept(bytes: Array(key.utf8)) else { continue }
            var rest = remaining
            rest.remove(at: position)
            for after in states(after: members[index].value, from: next, budget: &budget) {
                results += Self.members(members, remaining: rest, first: false, from: after, budget: &budget)
            }
            if budget <= 0 { break }
        }
        return results
    }
}
