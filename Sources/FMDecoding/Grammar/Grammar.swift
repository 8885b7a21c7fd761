/// A schema compiled to a byte-level pushdown automaton that accepts exactly its compact canonical JSON.
///
/// The automaton emits no whitespace, properties in declared order, strings as valid UTF-8 with JSON escapes,
/// and numbers without leading zeros, `-0` or exponents. Compile once per schema; the value is immutable and
/// `Sendable`. Pair it with a ``TokenVocabulary`` in a ``TokenConstraint`` to get per-token masks.
///
/// ```swift
/// let grammar = try Grammar(compiling: SchemaDocument(root: .object(properties: [
///     SchemaProperty(name: "label", schema: .string(.choices(["bug", "feature"]))),
/// ])))
/// ```
///
/// Limits (see ``Options``): unbounded integers are limited to 15 digits, numbers to 15 integer and 8 fraction
/// digits, rule calls (references and `uniqueItems` elements) nest at most ``Options/maximumNestingDepth`` deep.
public struct Grammar: Sendable {
    /// Compilation limits.
    ///
    /// Values outside the supported ranges are clamped, when created and when set: nesting depth to
    /// 0...10,000, unbounded integer digits to 1...18, fraction digits to 0...100, states to at least 0.
    public struct Options: Sendable, Hashable {
        /// The deepest stack of rule calls (each reference and each `uniqueItems` element is one call).
        ///
        /// Branches that would need a deeper stack are cut off before they are entered, so generation never
        /// runs into a dead end at the limit.
        public var maximumNestingDepth: Int {
            didSet { maximumNestingDepth = Self.nestingDepths.clamping(maximumNestingDepth) }
        }
        /// Integer digits allowed for integers and numbers without explicit bounds.
        public var unboundedIntegerDigits: Int {
            didSet { unboundedIntegerDigits = Self.integerDigits.clamping(unboundedIntegerDigits) }
        }
        /// Fraction digits allowed in numbers.
        public var maximumFractionDigits: Int {
            didSet { maximumFractionDigits = Self.fractionDigits.clamping(maximumFractionDigits) }
        }
        /// The largest automaton (NFA states) the compiler builds before throwing ``GrammarError/Code/tooLarge``.
        public var maximumStates: Int {
            didSet { maximumStates = max(0, maximumStates) }
        }

        // Depths are stored as Int32 and digit counts feed `0..<n` loops and powers of ten held in an Int.
        private static let nestingDepths = 0...10_000
        private static let integerDigits = 1...18
        private static let fractionDigits = 0...100

        /// Creates options; the defaults suit generation with small models.
        public init(
            maximumNestingDepth: Int = 12, unboundedIntegerDigits: Int = 15, maximumFractionDigits: Int = 8,
            maximumStates: Int = 400_000
        ) {
            self.maximumNestingDepth = Self.nestingDepths.clamping(maximumNestingDepth)
            self.unboundedIntegerDigits = Self.integerDigits.clamping(unboundedIntegerDigits)
            self.maximumFractionDigits = Self.fractionDigits.clamping(maximumFractionDigits)
            self.maximumStates = max(0, maximumStates)
        }
    }

    struct Rule: Sendable {
        var start: Int32
        var accept: Int32
    }

    /// What a `uniqueItems` array's elements can be.
    struct UniqueArray: Sendable {
        /// One value of a finite item language.
        struct Value: Sendable {
            /// The text as the automaton spells it (what element prefixes are matched against).
            var text: [UInt8]
            /// Its canonical text (what elements are compared by): an object literal's members may be spelled in
            /// another order than the canonical one.
            var canonical: [UInt8]
        }

        /// Every element value, when the item language is small and finite (choices, booleans, small ranges,
        /// or any item automaton with at most `GrammarCompiler.maximumFiniteValues` texts).
        var finiteValues: [Value]?
    }

    let nfa: ByteNFA
    let rules: [Rule]
    let root: Rule
    let uniqueArrays: [UniqueArray]
    /// Fewest extra stack frames needed to reach the rule's accept state from each NFA state.
    let need: [Int32]
    let options: Options

    /// Number of NFA states (a size indicator for diagnostics).
    public var stateCount: Int { nfa.stateCount }

    /// Compiles `document`.
    ///
    /// - Parameters:
    ///   - document: The schema and its definitions.
    ///   - options: Size limits.
    /// - Throws: ``GrammarError`` naming the unsupported construct, undefined reference or empty range.
    public init(compiling document: SchemaDocument, options: Options = Options()) throws(GrammarError) {
        var compiler = GrammarCompiler(document: document, options: options)
        let root = try compiler.compileRoot()
        nfa = compiler.nfa
        rules = compiler.rules
        self.root = root
        uniqueArrays = compiler.uniqueArrays
        self.options = options
        need = Self.computeNeed(nfa: compiler.nfa, rules: compiler.rules)
        let rootNeed = need[Int(root.start)]
        if rootNeed > Int32(options.maximumNestingDepth) {
            throw GrammarError(
                .unsatisfiable, construct: "recursion",
                rootNeed == Int32.max
                    ? "the schema has no finite value (a reference recurses unconditionally)"
                    : "the smallest value nests \(rootNeed) calls deep, above the limit \(options.maximumNestingDepth)")
        }
    }

    /// Fixpoint of: accept → 0; edge → need(target); call → max(1 + need(callee start), need(return)).
    ///
    /// A worklist over reverse dependencies: a state is re-evaluated only when something it depends on improved
    /// (sweeping every state until nothing changes took many sweeps, since edges run both ways in state order).
    private static func computeNeed(nfa: ByteNFA, rules: [Rule]) -> [Int32] {
        let infinity = Int32.max
        let count = nfa.stateCount
        // Reverse dependencies in compressed rows: dependents[starts[t]..<starts[t + 1]] read need(t).
        var starts = [Int32](repeating: 0, count: count + 1)
        func forEachDependency(_ state: Int, _ body: (Int32) -> Void) {
            for edge in nfa.byteEdges[state] { body(edge.target) }
            for target in nfa.epsilons[state] { body(target) }
            for call in nfa.calls[state] {
                body(rules[Int(call.rule)].start)
                body(call.returnState)
            }
        }
        for state in 0..<count { forEachDependency(state) { starts[Int($0) + 1] += 1 } }
        for index in 0..<count { starts[index + 1] += starts[index] }
        var fill = starts
        var dependents = [Int32](repeating: 0, count: Int(starts[count]))
        for state in 0..<count {
            forEachDependency(state) { target in
                dependents[Int(fill[Int(target)])] = Int32(state)
                fill[Int(target)] += 1
            }
        }
        var need = [Int32](repeating: infinity, count: count)
        var queued = [Bool](repeating: true, count: count)
        var work = Array((0..<Int32(count)).reversed())
        while let next = work.popLast() {
            let state = Int(next)
            queued[state] = false
            // Nothing improves on 0; without this, a state with many edges (a long enum's alternation) would be
            // scanned again each time one of its targets improved.
            guard need[state] > 0 else { continue }
            var best = nfa.isRuleAccept[state] ? 0 : need[state]
            for edge in nfa.byteEdges[state] { best = min(best, need[Int(edge.target)]) }
            for target in nfa.epsilons[state] { best = min(best, need[Int(target)]) }
            for call in nfa.calls[state] {
                let callee = need[Int(rules[Int(call.rule)].start)]
                let after = need[Int(call.returnState)]
                if callee != infinity && after != infinity { best = min(best, max(callee + 1, after)) }
            }
            guard best < need[state] else { continue }
            need[state] = best
            for index in Int(starts[state])..<Int(starts[state + 1]) where !queued[Int(dependents[index])] {
                queued[Int(dependents[index])] = true
                work.append(dependents[index])
            }
        }
        return need
    }
}

extension ClosedRange where Bound == Int {
    /// `value` moved into the range.
    fileprivate func clamping(_ value: Int) -> Int { Swift.min(Swift.max(value, lowerBound), upperBound) }
}
