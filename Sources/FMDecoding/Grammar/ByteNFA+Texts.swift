/// Listing a rule's whole language: the exact values of a `uniqueItems` array whose items have few of them.
extension ByteNFA {
    /// Longest text ``texts(of:rules:limit:)`` lists.
    static let maximumTextLength = 512
    /// Deepest call nesting ``texts(of:rules:limit:)`` follows.
    static let maximumTextCallDepth = 8
    /// Most call stacks ``texts(of:rules:limit:)`` tells apart (a wide fan-out of references has one per path).
    static let maximumTextFrames = 4_096
    /// Most steps (configurations and byte successors) ``texts(of:rules:limit:)`` takes.
    static let maximumTextWork = 1_000_000

    /// Every text `rule` accepts, sorted, when there are at most `limit` of them, none longer than
    /// ``maximumTextLength`` bytes.
    ///
    /// Nil when the automaton has more than `limit` paths to them (endlessly many around a loop; paths bound the
    /// texts from above), when the rule calls a `uniqueItems` element (the automaton alone does not exclude its
    /// repeats), when calls nest deeper than ``maximumTextCallDepth`` or take more than ``maximumTextFrames`` call
    /// stacks, or when listing would take more than ``maximumTextWork`` steps. Call it once every rule is built.
    ///
    /// A depth-first walk over sets of configurations (state, call stack), so a text the automaton spells along
    /// several paths is listed once.
    func texts(of rule: Int32, rules: [Grammar.Rule], limit: Int) -> [[UInt8]]? {
        // Counting paths first keeps large and endless languages (free strings, digit runs) from being walked
        // until the limit; a path count is at least the text count.
        guard let paths = pathCount(from: rules[Int(rule)].start, rules: rules, cap: limit + 1), paths <= limit else {
            return nil
        }
        // Call stacks as a parent-linked tree; frame 0 is the empty stack.
        var frames: [(parent: Int32, returnState: Int32, depth: Int)] = [(-1, -1, 0)]
        var frameIDs: [UInt64: Int32] = [:]
        var work = 0
        func pack(_ state: Int32, _ frame: Int32) -> UInt64 {
            UInt64(UInt32(bitPattern: state)) << 32 | UInt64(UInt32(bitPattern: frame))
        }
        /// The ε-closure of `seeds` (calls pushed, returns popped) and whether the rule can end there; nil when
        /// listing has to stop.
        func closure(_ seeds: [UInt64]) -> (configurations: [UInt64], accepting: Bool)? {
            var seen = Set(seeds)
            var queue = seeds
            var accepting = false
            while let configuration = queue.popLast() {
                work += 1
                guard work <= Self.maximumTextWork else { return nil }
                let state = Int(configuration >> 32)
                let frame = Int32(truncatingIfNeeded: configuration & 0xFFFF_FFFF)
                var next = epsilons[state].map { pack($0, frame) }
                for call in calls[state] {
                    guard call.uniqueArray < 0, frames[Int(frame)].depth < Self.maximumTextCallDepth,
                        frames.count <= Self.maximumTextFrames
                    else { return nil }
                    let key = pack(call.returnState, frame)
                    let pushed: Int32
                    if let known = frameIDs[key] {
                        pushed = known
                    } else {
                        let depth = frames[Int(frame)].depth + 1
                        pushed = Int32(frames.count)
                        frames.append((parent: frame, returnState: call.returnState, depth: depth))
                        frameIDs[key] = pushed
                    }
                    next.append(pack(rules[Int(call.rule)].start, pushed))
                }
                if isRuleAccept[state] {
                    // With an empty stack this is the listed rule's own accept state.
                    if frame == 0 {
                        accepting = true
                    } else {
                        next.append(pack(frames[Int(frame)].returnState, frames[Int(frame)].parent))
                    }
                }
                for configuration in next where seen.insert(configuration).inserted { queue.append(configuration) }
            }
            return (Array(seen), accepting)
        }

        guard let first = closure([pack(rules[Int(rule)].start, 0)]) else { return nil }
        var texts = Set<[UInt8]>()
        var pending: [(configurations: [UInt64], accepting: Bool, text: [UInt8])] = [
            (first.configurations, first.accepting, [])
        ]
        var successors = [[UInt64]](repeating: [], count: 256)
        while let node = pending.popLast() {
            if node.accepting {
                texts.insert(node.text)
                guard texts.count <= limit else { return nil }
            }
            for configuration in node.configurations {
                let state = Int(configuration >> 32)
                let frame = Int32(truncatingIfNeeded: configuration & 0xFFFF_FFFF)
                for edge in byteEdges[state] {
                    work += Int(edge.high - edge.low) + 1
                    for byte in edge.low...edge.high { successors[Int(byte)].append(pack(edge.target, frame)) }
                }
            }
            guard work <= Self.maximumTextWork else { return nil }
            for byte in 0..<256 where !successors[byte].isEmpty {
                guard node.text.count < Self.maximumTextLength, let next = closure(successors[byte]) else { return nil }
                successors[byte].removeAll(keepingCapacity: true)
                pending.append((next.configurations, next.accepting, node.text + [UInt8(byte)]))
                // Pending nodes spell different prefixes, none a prefix of another or of a text found, so each one
                // that can still end adds a text of its own: too many of them means too many texts.
                guard texts.count + pending.count <= limit else { return nil }
            }
        }
        return texts.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The number of paths from `start` to its rule's accept state (calls multiplied out), saturating at `cap`
    /// (also for a cycle, whose paths are endless); nil when a `uniqueItems` element is called.
    private func pathCount(from start: Int32, rules: [Grammar.Rule], cap: Int) -> Int? {
        func product(_ a: Int, _ b: Int) -> Int {
            let (value, overflow) = a.multipliedReportingOverflow(by: b)
            return overflow ? cap : min(cap, value)
        }
        var counts: [Int32: Int] = [:]
        // Depth-first in post-order without recursion (literal chains are thousands of states long); a state met
        // again while it is still being counted closes a cycle.
        var counting: Set<Int32> = []
        var stack: [(state: Int32, expanded: Bool)] = [(start, false)]
        while let (state, expanded) = stack.popLast() {
            if counts[state] != nil { continue }
            let index = Int(state)
            if !expanded {
                if counting.contains(state) { return cap }
                counting.insert(state)
                stack.append((state, true))
                for edge in byteEdges[index] { stack.append((edge.target, false)) }
                for target in epsilons[index] { stack.append((target, false)) }
                for call in calls[index] {
                    guard call.uniqueArray < 0 else { return nil }
                    stack.append((rules[Int(call.rule)].start, false))
                    stack.append((call.returnState, false))
                }
                continue
            }
            var total = isRuleAccept[index] ? 1 : 0
            for edge in byteEdges[index] {
                total = min(cap, total + product(Int(edge.high - edge.low) + 1, counts[edge.target] ?? cap))
            }
            for target in epsilons[index] { total = min(cap, total + (counts[target] ?? cap)) }
            for call in calls[index] {
                let callee = counts[rules[Int(call.rule)].start] ?? cap
                total = min(cap, total + product(callee, counts[call.returnState] ?? cap))
            }
            counting.remove(state)
            counts[state] = total
        }
        return counts[start] ?? cap
    }
}
