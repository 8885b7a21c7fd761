/// An ε-free NFA over Unicode scalars: the form in which patterns are intersected, length-bounded and matched.
///
/// Built from a ``RegexNode`` by Thompson's construction followed by ε-removal and trimming, so every state lies
/// on a path from the start to an accepting state (generation never walks into a dead end).
struct ScalarAutomaton: Sendable {
    struct Edge: Sendable, Hashable {
        /// Sorted, disjoint scalar ranges.
        var ranges: [ClosedRange<UInt32>]
        var target: Int
    }

    /// Outgoing edges per state; state 0 is the start.
    var edges: [[Edge]]
    var isAccepting: [Bool]

    var stateCount: Int { edges.count }

    /// The language of every string (any scalars, any length).
    static let universal = ScalarAutomaton(edges: [[Edge(ranges: ScalarSet.all, target: 0)]], isAccepting: [true])

    /// The automaton of `node` (whole-match semantics).
    ///
    /// - Throws: ``GrammarError/Code/tooLarge`` when removing ε-edges would take millions of steps.
    init(_ node: RegexNode) throws(GrammarError) {
        var builder = ThompsonBuilder()
        let start = builder.addState()
        let accept = builder.addState()
        builder.build(node, from: start, to: accept)
        self = try builder.automaton(start: start, accept: accept).trimmed()
    }

    init(edges: [[Edge]], isAccepting: [Bool]) {
        self.edges = edges
        self.isAccepting = isAccepting
    }

    /// Whether the whole of `scalars` is in the language.
    func matches(_ scalars: some Sequence<Unicode.Scalar>) -> Bool {
        guard stateCount > 0 else { return false }
        var current: Set<Int> = [0]
        for scalar in scalars {
            var next: Set<Int> = []
            for state in current {
                for edge in edges[state] where ScalarSet.contains(edge.ranges, scalar.value) { next.insert(edge.target) }
            }
            if next.isEmpty { return false }
            current = next
        }
        return current.contains { isAccepting[$0] }
    }

    /// Whether the language is empty.
    var isEmpty: Bool { stateCount == 0 }

    /// The intersection of `automata` with strings of `minimumLength...maximumLength` scalars.
    ///
    /// A product construction: each state is a tuple of component states plus a length counter that saturates at
    /// `minimumLength` when there is no maximum. Throws ``GrammarError/Code/tooLarge`` past `maximumStates` states
    /// (or 4 times as many edge combinations from one state, or 256 times as many edge pairs examined in all).
    static func intersection(
        _ automata: [ScalarAutomaton], minimumLength: Int, maximumLength: Int?, maximumStates: Int
    ) throws(GrammarError) -> ScalarAutomaton {
        let components = automata.isEmpty ? [universal] : automata
        if components.contains(where: \.isEmpty) { return ScalarAutomaton(edges: [], isAccepting: []) }
        let counterCap = maximumLength ?? minimumLength
        struct Key: Hashable {
            var states: [Int]
            var length: Int
        }
        var index: [Key: Int] = [:]
        var keys: [Key] = []
        var edges: [[Edge]] = []
        func state(_ key: Key) -> Int {
            if let existing = index[key] { return existing }
            index[key] = keys.count
            keys.append(key)
            edges.append([])
            return keys.count - 1
        }
        func tooLarge() -> GrammarError {
            GrammarError(
                .tooLarge, construct: "string constraints",
                "the combined string patterns and lengths need more than \(maximumStates) states")
        }
        // Every limit is checked as the work is done: three wide components (`a0|a1|…|a299` searched for) multiply
        // to hundreds of millions of combinations from a single state.
        let maximumWork = maximumStates > Int.max / 256 ? Int.max : maximumStates * 256
        let maximumCombinations = maximumStates > Int.max / 4 ? Int.max : maximumStates * 4
        var work = 0
        _ = state(Key(states: components.map { _ in 0 }, length: 0))
        var next = 0
        while next < keys.count {
            let key = keys[next]
            let current = next
            next += 1
            if let maximumLength, key.length >= maximumLength { continue }
            let length = min(key.length + 1, counterCap)
            // Every combination of one edge per component whose ranges overlap. A component's edges have distinct
            // targets, so the combinations of all components are distinct successors (bounded by the state limit);
            // those of the first few are held to a multiple of it.
            var partial: [(ranges: [ClosedRange<UInt32>], targets: [Int])] = [(ScalarSet.all, [])]
            for (component, componentState) in zip(components, key.states) {
                var extended: [(ranges: [ClosedRange<UInt32>], targets: [Int])] = []
                for (ranges, targets) in partial {
                    for edge in component.edges[componentState] {
                        work += 1
                        if work > maximumWork { throw tooLarge() }
                        let overlap = ScalarSet.intersection(ranges, edge.ranges)
                        if overlap.isEmpty { continue }
                        extended.append((overlap, targets + [edge.target]))
                        if extended.count > maximumCombinations { throw tooLarge() }
                    }
                }
                partial = extended
            }
            var byTarget: [Int: [ClosedRange<UInt32>]] = [:]
            for (ranges, targets) in partial {
                let target = state(Key(states: targets, length: length))
                if keys.count > maximumStates { throw tooLarge() }
                byTarget[target, default: []] += ranges
            }
            edges[current] = byTarget.keys.sorted().map { Edge(ranges: ScalarSet.normalized(byTarget[$0]!), target: $0) }
        }
        let accepting = keys.map { key in
            key.length >= minimumLength && zip(components, key.states).allSatisfy { $0.isAccepting[$1] }
        }
        return ScalarAutomaton(edges: edges, isAccepting: accepting).trimmed()
    }

    /// This automaton without states that are unreachable or cannot reach an accepting state (state 0 stays the
    /// start; an empty language gives no states at all).
    func trimmed() -> ScalarAutomaton {
        guard stateCount > 0 else { return self }
        var reachable = [Bool](repeating: false, count: stateCount)
        var stack = [0]
        reachable[0] = true
        while let state = stack.popLast() {
            for edge in edges[state] where !reachable[edge.target] {
                reachable[edge.target] = true
                stack.append(edge.target)
            }
        }
        var predecessors = [[Int]](repeating: [], count: stateCount)
        for (state, outgoing) in edges.enumerated() {
            for edge in outgoing { predecessors[edge.target].append(state) }
        }
        var live = isAccepting
        stack = live.indices.filter { live[$0] }
        while let state = stack.popLast() {
            for predecessor in predecessors[state] where !live[predecessor] {
                live[predecessor] = true
                stack.append(predecessor)
            }
        }
        guard reachable[0], live[0] else { return ScalarAutomaton(edges: [], isAccepting: []) }
        var renumber = [Int](repeating: -1, count: stateCount)
        var order: [Int] = []
        for state in 0..<stateCount where reachable[state] && live[state] {
            renumber[state] = order.count
            order.append(state)
        }
        return ScalarAutomaton(
            edges: order.map { state in
                edges[state].compactMap { edge in
                    renumber[edge.target] < 0 ? nil : Edge(ranges: edge.ranges, target: renumber[edge.target])
                }
            },
            isAccepting: order.map { isAccepting[$0] }
        )
    }
}

/// Thompson's construction with ε-edges, then ε-removal.
private struct ThompsonBuilder {
    var edges: [[ScalarAutomaton.Edge]] = []
    var epsilons: [[Int]] = []

    mutating func addState() -> Int {
        edges.append([])
        epsilons.append([])
        return edges.count - 1
    }

    mutating func build(_ node: RegexNode, from: Int, to: Int) {
        switch node {
        case .set(let ranges):
            if !ranges.isEmpty { edges[from].append(.init(ranges: ranges, target: to)) }
        case .concatenation(let parts):
            guard !parts.isEmpty else {
                epsilons[from].append(to)
                return
            }
            var current = from
            for (index, part) in parts.enumerated() {
                let next = index == parts.count - 1 ? to : addState()
                build(part, from: current, to: next)
                current = next
            }
        case .alternation(let branches):
            for branch in branches { build(branch, from: from, to: to) }
        case .repetition(let inner, let minimum, let maximum):
            var current = from
            for _ in 0..<minimum {
                let next = addState()
                build(inner, from: current, to: next)
                current = next
            }
            if let maximum {
                for _ in minimum..<max(minimum, maximum) {
                    epsilons[current].append(to)
                    let next = addState()
                    build(inner, from: current, to: next)
                    current = next
                }
                epsilons[current].append(to)
            } else {
                let loop = addState()
                epsilons[current].append(loop)
                let back = addState()
                build(inner, from: loop, to: back)
                epsilons[back].append(loop)
                epsilons[loop].append(to)
            }
        }
    }

    func closure(of state: Int) -> [Int] {
        var seen: Set<Int> = [state]
        var stack = [state]
        while let next = stack.popLast() {
            for target in epsilons[next] where seen.insert(target).inserted { stack.append(target) }
        }
        return Array(seen)
    }

    /// The most ε-closure members ε-removal visits (summed over states). A chain of optional steps such as
    /// `((a?){1000}){20}` has closures as long as the chain, so the work and the edges it creates grow with the
    /// square of the pattern's unrolled size.
    static let maximumClosureWork = 1_000_000

    /// The ε-free automaton with `start` renumbered to 0.
    func automaton(start: Int, accept: Int) throws(GrammarError) -> ScalarAutomaton {
        let count = edges.count
        let order = [start] + (0..<count).filter { $0 != start }
        var position = [Int](repeating: 0, count: count)
        for (index, state) in order.enumerated() { position[state] = index }
        var newEdges: [[ScalarAutomaton.Edge]] = []
        var accepting: [Bool] = []
        var work = 0
        for state in order {
            let reach = closure(of: state)
            work += reach.count
            if work > Self.maximumClosureWork {
                throw GrammarError(
                    .tooLarge, construct: "pattern size",
                    "the pattern's optional and repeated parts need more than \(Self.maximumClosureWork) steps to compile")
            }
            accepting.append(reach.contains(accept))
            var byTarget: [Int: [ClosedRange<UInt32>]] = [:]
            for member in reach {
                for edge in edges[member] { byTarget[position[edge.target], default: []] += edge.ranges }
            }
            newEdges.append(byTarget.keys.sorted().map { .init(ranges: ScalarSet.normalized(byTarget[$0]!), target: $0) })
        }
        return ScalarAutomaton(edges: newEdges, isAccepting: accepting)
    }
}

extension ScalarSet {
    /// The scalars in both sets (both sorted and disjoint).
    static func intersection(_ a: [ClosedRange<UInt32>], _ b: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var result: [ClosedRange<UInt32>] = []
        var i = 0
        var j = 0
        while i < a.count, j < b.count {
            let low = max(a[i].lowerBound, b[j].lowerBound)
            let high = min(a[i].upperBound, b[j].upperBound)
            if low <= high { result.append(low...high) }
            if a[i].upperBound < b[j].upperBound { i += 1 } else { j += 1 }
        }
        return result
    }

    /// Whether `value` is in the sorted, disjoint set.
    static func contains(_ ranges: [ClosedRange<UInt32>], _ value: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < value {
                low = middle + 1
            } else if ranges[middle].lowerBound > value {
                high = middle
            } else {
                return true
            }
        }
        return false
    }
}
