/// First-visit masks: a walk of the vocabulary's ``TokenTrie`` folded over the state's dominant scalar class.
///
/// Inside open text (a free string, a counted `[a-z0-9]{1,24}`) every scalar of some class leads from a state to
/// one same next state. A run of n class scalars is then one step along that chain instead of n byte steps in
/// thousands of tokens, and the tokens ending in a run node are merged into the mask a word at a time. Bytes
/// outside the class are walked exactly as before, so the mask is the same as the reference walk's.
extension LazyAutomaton {
    /// A mask under construction: static bits plus the tokens that need re-checking against uniqueness.
    struct MaskParts {
        var bits: [UInt64]
        var dependents: [Int32] = []
        var completionChecked: [Int32] = []
        var alwaysChecked: [Int32] = []

        init(wordCount: Int) { bits = [UInt64](repeating: 0, count: wordCount) }

        mutating func add(_ tokens: ArraySlice<Int32>, as category: TokenCategory) {
            switch category {
            case .allowed: for id in tokens { bits[Int(id) >> 6] |= 1 << UInt64(id & 63) }
            case .dependent: dependents.append(contentsOf: tokens)
            case .completionChecked: completionChecked.append(contentsOf: tokens)
            case .alwaysChecked: alwaysChecked.append(contentsOf: tokens)
            }
        }
    }

    /// How a token that can be accepted from a state enters its mask.
    enum TokenCategory {
        /// Always allowed.
        case allowed
        /// Allowed unless it spells the rest of an element already in its `uniqueItems` array.
        case dependent
        /// Its path does not depend on uniqueness, but it ends where the ways to the element's end are few:
        /// allowed unless it and each of them spell the rest of an element already written.
        case completionChecked
        /// Checked exactly at every fill.
        case alwaysChecked
    }

    /// The category of a token ending in `end` with path `flags`, from a root whose element frames are `rootFrames`.
    mutating func category(end: Int32, flags: PathFlags, rootFrames: Set<Int32>) -> TokenCategory {
        if flags.contains(.always) || flags.isSuperset(of: [.dynamic, .backslash]) { return .alwaysChecked }
        let frames = uniqueFrames[Int(end)]
        if !frames.isEmpty, let endings = elementEndings(end) {
            // Only a path inside elements the root already has, whose ways on stay in them, can be screened by
            // their written text.
            let screenable = flags.isDisjoint(with: [.dynamic, .backslash]) && frames.allSatisfy(rootFrames.contains)
                && !endings.opensFrames
            return screenable ? .completionChecked : .alwaysChecked
        }
        return flags.contains(.dynamic) ? .dependent : .allowed
    }

    /// The uniqueness bookkeeping of a path (see the reference walk, which keeps the same flags per depth).
    struct PathFlags: OptionSet {
        let rawValue: UInt8
        /// Some step depends on the uniqueness record.
        static let dynamic = PathFlags(rawValue: 1)
        /// Tokens ending here always need an exact check.
        static let always = PathFlags(rawValue: 2)
        /// The path ended a `uniqueItems` element.
        static let returned = PathFlags(rawValue: 4)
        /// The path entered a `uniqueItems` element frame the root state did not have.
        static let opened = PathFlags(rawValue: 8)
        /// The path holds a backslash.
        static let backslash = PathFlags(rawValue: 16)
    }

    /// Fewest ASCII members for a class to be worth folding.
    static let minimumClassSize = 10

    /// Walks the trie for `root`'s class and sorts the result into `parts`.
    mutating func walkTrie(from root: Int32, into parts: inout MaskParts) {
        var slot = -1
        var trie = vocabulary.trie(for: .empty)!
        let scalarClass = dominantClass(of: root)
        if !scalarClass.isEmpty, let folded = vocabulary.trie(for: scalarClass) {
            trie = folded
            slot = classSlot(scalarClass)
        }
        var opens: [Int32: Bool] = [:]
        let rootFrames = Set(uniqueFrames[Int(root)])
        let depthCount = trie.maximumDepth + 2
        var states = [Int32](repeating: 0, count: depthCount)
        var flags = [PathFlags](repeating: [], count: depthCount)
        // Per depth: how far the class chain of the parent has been followed, for its run children (which come in
        // increasing length), and whether it stopped because a step is not uniform.
        var chainState = [Int32](repeating: 0, count: depthCount)
        var chainLength = [Int32](repeating: 0, count: depthCount)
        var chainBroken = [Bool](repeating: false, count: depthCount)
        states[0] = root
        if needsUniqueCheck[Int(root)] { flags[0].insert(.dynamic) }
        if hasFiniteFrame[Int(root)] { flags[0].insert(.always) }
        chainState[1] = root
        var node = 1
        let nodeCount = trie.nodeCount
        while node < nodeCount {
            let depth = Int(trie.depths[node])
            let parent = states[depth - 1]
            let parentFlags = flags[depth - 1]
            let symbol = trie.symbols[node]
            let state: Int32
            var nodeFlags: PathFlags = []
            if symbol < TokenTrie.runBase {
                let (target, isDynamic) = transition(parent, UInt8(symbol))
                if target < 0 {
                    node = Int(trie.subtreeEnds[node])
                    continue
                }
                state = target
                nodeFlags = extend(parentFlags, byte: UInt8(symbol), target: target, isDynamic: isDynamic) { target in
                    if let known = opens[target] { return known }
                    let fresh = uniqueFrames[Int(target)].contains { !rootFrames.contains($0) }
                    opens[target] = fresh
                    return fresh
                }
            } else {
                let length = symbol - TokenTrie.runBase
                while chainLength[depth] < length, chainState[depth] >= 0, !chainBroken[depth] {
                    let (target, uniform) = classStep(chainState[depth], slot: slot)
                    if !uniform {
                        chainBroken[depth] = true
                    } else {
                        chainState[depth] = target
                        chainLength[depth] += 1
                    }
                }
                if chainState[depth] < 0 {
                    node = Int(trie.subtreeEnds[node])
                    continue
                }
                // A run after a uniqueness-dependent step, or along a chain that is not uniform: token by token.
                if chainLength[depth] < length || parentFlags.contains(.dynamic) {
                    for token in trie.tokens(under: node) {
                        classifyToken(token, from: root, rootFrames: rootFrames, into: &parts)
                    }
                    node = Int(trie.subtreeEnds[node])
                    continue
                }
                state = chainState[depth]
                // The parent is not dynamic, so of its flags only a backslash can be set; the run adds nothing.
                nodeFlags = parentFlags
            }
            states[depth] = state
            flags[depth] = nodeFlags
            if depth + 1 < depthCount {
                chainState[depth + 1] = state
                chainLength[depth + 1] = 0
                chainBroken[depth + 1] = false
            }
            if trie.tokenStarts[node] != trie.tokenStarts[node + 1] {
                emit(node, of: trie, end: state, flags: nodeFlags, rootFrames: rootFrames, into: &parts)
            }
            node += 1
        }
        // Fill-time screening looks tokens up by their bytes.
        let rank = vocabulary.byteOrderRank
        if parts.dependents.count > 1 { parts.dependents.sort { rank[Int($0)] < rank[Int($1)] } }
        if parts.completionChecked.count > 1 { parts.completionChecked.sort { rank[Int($0)] < rank[Int($1)] } }
    }

    /// The reference walk's flag update for one byte step into `target`.
    private func extend(
        _ flags: PathFlags, byte: UInt8, target: Int32, isDynamic: Bool, opensNewFrame: (Int32) -> Bool
    ) -> PathFlags {
        var next: PathFlags = []
        if flags.contains(.returned) || isDynamic { next.insert(.returned) }
        if flags.contains(.backslash) || byte == 0x5C { next.insert(.backslash) }
        guard flags.contains(.dynamic) || isDynamic || needsUniqueCheck[Int(target)] else { return next }
        next.insert(.dynamic)
        if flags.contains(.opened) || opensNewFrame(target) { next.insert(.opened) }
        if flags.contains(.always) || hasFiniteFrame[Int(target)]
            || (!flags.isDisjoint(with: [.returned, .opened]) && needsUniqueCheck[Int(target)])
        {
            next.insert(.always)
        }
        return next
    }

    /// Sorts the tokens ending at `node` (in state `end`) into the mask's parts.
    private mutating func emit(
        _ node: Int, of trie: TokenTrie, end: Int32, flags: PathFlags, rootFrames: Set<Int32>, into parts: inout MaskParts
    ) {
        let category = category(end: end, flags: flags, rootFrames: rootFrames)
        guard category == .allowed else {
            parts.add(trie.tokens(at: node), as: category)
            return
        }
        for index in Int(trie.wordStarts[node])..<Int(trie.wordStarts[node + 1]) {
            parts.bits[Int(trie.wordIndices[index])] |= trie.wordBits[index]
        }
    }

    /// One token walked byte by byte from `root` (the fallback where runs cannot be folded).
    private mutating func classifyToken(
        _ token: Int32, from root: Int32, rootFrames: Set<Int32>, into parts: inout MaskParts
    ) {
        var state = root
        var flags: PathFlags = []
        if needsUniqueCheck[Int(root)] { flags.insert(.dynamic) }
        if hasFiniteFrame[Int(root)] { flags.insert(.always) }
        for byte in vocabulary.bytes(of: Int(token)) {
            let (target, isDynamic) = transition(state, byte)
            guard target >= 0 else { return }
            flags = extend(flags, byte: byte, target: target, isDynamic: isDynamic) { target in
                uniqueFrames[Int(target)].contains { !rootFrames.contains($0) }
            }
            state = target
        }
        parts.add([token], as: category(end: state, flags: flags, rootFrames: rootFrames))
    }

    /// The largest set of printable ASCII bytes (never `\`) leading from `state` to one same state without
    /// uniqueness effects, plus every non-ASCII scalar when those lead there too; empty when the set is small or
    /// the state itself depends on uniqueness (its paths are all checked byte by byte anyway).
    mutating func dominantClass(of state: Int32) -> ScalarClass {
        guard !needsUniqueCheck[Int(state)] else { return .empty }
        var groups: [Int32: ScalarClass] = [:]
        for byte in UInt8(0x20)...UInt8(0x7F) where byte != 0x5C {
            let (target, isDynamic) = transition(state, byte)
            guard target >= 0, !isDynamic, !needsUniqueCheck[Int(target)] else { continue }
            groups[target, default: .empty].insertASCII(byte)
        }
        guard
            let (target, best) = groups.max(by: { ($0.value.asciiCount, -$0.key) < ($1.value.asciiCount, -$1.key) }),
            best.asciiCount >= Self.minimumClassSize
        else { return .empty }
        var result = best
        result.includesNonASCII = true
        if uniformEnd(of: state, over: ScalarClass.nonASCIISequences) != target { result.includesNonASCII = false }
        return result
    }

    private mutating func classSlot(_ scalarClass: ScalarClass) -> Int {
        if let slot = classSlots[scalarClass] { return slot }
        classes.append(scalarClass)
        classMembers.append(scalarClass.asciiMembers)
        classSlots[scalarClass] = classes.count - 1
        return classes.count - 1
    }

    /// The state after any one scalar of class `slot` from `state` (or ``dead``), and whether every member
    /// leads there without uniqueness effects (otherwise runs from `state` are not folded).
    mutating func classStep(_ state: Int32, slot: Int) -> (target: Int32, uniform: Bool) {
        let key = UInt64(UInt32(bitPattern: state)) << 8 | UInt64(slot)
        if let cached = classSteps[key] {
            return (Int32(truncatingIfNeeded: cached), cached >> 32 != 0)
        }
        var target: Int32? = nil
        var uniform = true
        for byte in classMembers[slot] {
            let (next, isDynamic) = transition(state, byte)
            if target == nil { target = next }
            if next != target || (next >= 0 && (isDynamic || needsUniqueCheck[Int(next)])) {
                uniform = false
                break
            }
        }
        let end = target ?? Self.dead
        if uniform, classes[slot].includesNonASCII, uniformEnd(of: state, over: ScalarClass.nonASCIISequences) != end {
            uniform = false
        }
        classSteps[key] = Int64(UInt32(bitPattern: end)) | (uniform ? 1 << 32 : 0)
        return (end, uniform)
    }

    /// The one state that every byte sequence of `sequences` leads to from `state` (``dead`` included), without
    /// uniqueness effects and with each range's bytes agreeing at every step; nil when there is no such state.
    private mutating func uniformEnd(of state: Int32, over sequences: [[(UInt8, UInt8)]]) -> Int32? {
        var end: Int32? = nil
        for sequence in sequences {
            var current = state
            for (low, high) in sequence {
                let first = transition(current, low).target
                for byte in low...high {
                    let (next, isDynamic) = transition(current, byte)
                    if next != first || (next >= 0 && (isDynamic || needsUniqueCheck[Int(next)])) { return nil }
                }
                current = first
                if current < 0 { break }
            }
            if end == nil { end = current }
            if current != end { return nil }
        }
        return end
    }
}
