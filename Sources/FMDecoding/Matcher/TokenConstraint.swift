import Synchronization

/// A compiled grammar paired with a vocabulary: the shared, thread-safe cache behind every ``GrammarMatcher``.
///
/// Create one per (schema, model) and keep it: deterministic states, transitions and per-state token masks are
/// computed on first use and reused by every later generation. Matchers made from it may run concurrently;
/// the cache is guarded by a `Mutex`, taken once per matcher call.
///
/// ```swift
/// let constraint = TokenConstraint(grammar: try Grammar(compiling: document), vocabulary: vocabulary)
/// var matcher = constraint.makeMatcher()
/// var mask = TokenMask(count: vocabulary.count)
/// while !matcher.isComplete {
///     let forced = matcher.forcedBytes()          // append without sampling when non-empty
///     matcher.fillMask(into: &mask)
///     let token = sample(logits, allowed: mask)
///     if !matcher.accept(token: token) { break }  // cannot happen for a token the mask allowed
///     if matcher.isTerminated { break }            // EOS
/// }
/// ```
public final class TokenConstraint: Sendable {
    /// The grammar being enforced.
    public let grammar: Grammar
    /// The model vocabulary masks are computed over.
    public let vocabulary: TokenVocabulary
    private let automaton: Mutex<LazyAutomaton>

    /// Pairs `grammar` with `vocabulary`. Cheap: nothing is computed until the first mask.
    public init(grammar: Grammar, vocabulary: TokenVocabulary) {
        self.grammar = grammar
        self.vocabulary = vocabulary
        automaton = Mutex(LazyAutomaton(grammar: grammar, vocabulary: vocabulary))
    }

    /// Roughly the bytes the states and masks built so far occupy; it grows as generations reach new states.
    public var approximateByteCount: Int { withAutomaton { $0.approximateByteCount } }

    /// Starts a new generation at the beginning of the value.
    public func makeMatcher() -> GrammarMatcher {
        GrammarMatcher(constraint: self, state: withAutomaton { $0.initialState })
    }

    /// Builds the masks of every state reachable by bytes (ignoring uniqueness), up to `maximumStates` states.
    ///
    /// Optional: masks are otherwise built on first visit. Useful ahead of latency-sensitive generations for
    /// non-recursive schemas, whose state count is small.
    ///
    /// - Returns: The number of states whose masks are now cached.
    @discardableResult
    public func precomputeMasks(maximumStates: Int = 2_000) -> Int {
        withAutomaton { automaton in
            var queue: [Int32] = [automaton.initialState]
            var seen: Set<Int32> = [automaton.initialState]
            var index = 0
            while index < queue.count, seen.count <= maximumStates {
                let state = queue[index]
                index += 1
                _ = automaton.mask(for: state)
                for byte in 0...255 {
                    let (target, _) = automaton.transition(state, UInt8(byte))
                    if target >= 0, seen.insert(target).inserted { queue.append(target) }
                }
            }
            return index
        }
    }

    /// Number of deterministic states materialised so far (diagnostics).
    public var cachedStateCount: Int { withAutomaton { $0.stateCount } }

    /// Number of per-state masks computed so far (diagnostics).
    public var cachedMaskCount: Int { withAutomaton { $0.maskBits.count } }

    /// Per cached mask: statically allowed tokens, tokens checked on demand, tokens always checked.
    package var maskStatistics: [(allowed: Int, dependent: Int, alwaysChecked: Int)] {
        withAutomaton { automaton in
            automaton.maskBits.indices.map { index in
                (
                    automaton.maskBits[index].reduce(0) { $0 + $1.nonzeroBitCount },
                    automaton.maskDependents[index].count, automaton.maskAlwaysChecked[index].count
                )
            }
        }
    }

    func withAutomaton<Result>(_ body: (inout LazyAutomaton) -> Result) -> Result {
        automaton.withLock { body(&$0) }
    }
}
