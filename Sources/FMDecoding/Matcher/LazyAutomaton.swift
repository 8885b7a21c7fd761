/// The deterministic view of a ``Grammar`` over a ``TokenVocabulary``, built lazily and shared by all matchers
/// of one ``TokenConstraint``.
///
/// A state is a set of configurations (NFA state, call-stack frame). Transitions are filled in on first use
/// and cached in a flat `state × 256` table; each state's token mask is computed on first visit by walking the
/// vocabulary in sorted order (reusing shared prefixes) and then reused. Tokens whose path crosses a
/// `uniqueItems` element boundary are kept in a per-state list and re-checked against the generation's
/// uniqueness record at fill time.
struct LazyAutomaton {
    static let unknown: Int32 = -2
    static let dead: Int32 = -1

    struct Frame: Hashable {
        var parent: Int32
        var returnState: Int32
        var uniqueArray: Int32
        var isFirstElement: Bool
    }

    let grammar: Grammar
    let vocabulary: TokenVocabulary
    private let maximumDepth: Int32
    /// NFA states worth keeping in a configuration set: those with byte edges and rule accept states.
    private let isActive: [Bool]

    // Frames (call stacks as a parent-linked tree); frame 0 is the empty stack.
    private(set) var frames: [Frame] = [Frame(parent: -1, returnState: -1, uniqueArray: -1, isFirstElement: false)]
    private var frameDepth: [Int32] = [0]
    private var frameIDs: [Frame: Int32] = [:]

    // Deterministic states.
    private(set) var configurations: [[UInt64]] = []
    private var stateIDs: [[UInt64]: Int32] = [:]
    private var transitions: [Int32] = []
    private var transitionIsDynamic: [Bool] = []
    private(set) var isAccepting: [Bool] = []
    /// Whether entering the state depends on the uniqueness record: some configuration sits inside an element of
    /// a finite `uniqueItems` array, or a `uniqueItems` element could end here (its text must be new).
    private(set) var needsUniqueCheck: [Bool] = []
    /// Whether a `uniqueItems` element can end in the state.
    private(set) var hasUniqueAccept: [Bool] = []
    /// Per state: the few ways on to the next `uniqueItems` element endings (see ``elementEndings(_:)``).
    private var endings: [ElementEndings?] = []
    private var endingsKnown: [Bool] = []
    /// Whether some configuration sits inside an element of a finite `uniqueItems` array.
    private(set) var hasFiniteFrame: [Bool] = []
    /// Frames of `uniqueItems` elements present in the state's stacks.
    private(set) var uniqueFrames: [[Int32]] = []
    /// Per state: -3 not computed, -2 several bytes possible, -1 none, else the only byte.
    private var onlyByte: [Int16] = []
    private var maskIndex: [Int32] = []
    private(set) var maskBits: [[UInt64]] = []
    /// Per mask: tokens (in byte order) whose only dynamic effect is ending an element of a frame open in the
    /// state; they need an exact check only when they spell the rest of an element already written.
    private(set) var maskDependents: [[Int32]] = []
    /// Per mask: tokens (in byte order) whose only check is that the element ending forced after them is new.
    private(set) var maskCompletionChecked: [[Int32]] = []
    /// Per mask: tokens that always need an exact check (they open and end another element, enter a finite
    /// unique element, or contain an escape).
    private(set) var maskAlwaysChecked: [[Int32]] = []

    private(set) var initialState: Int32 = 0

    // Scalar classes met by this automaton (see `LazyAutomaton+TrieWalk.swift`).
    var classes: [ScalarClass] = []
    var classMembers: [[UInt8]] = []
    var classSlots: [ScalarClass: Int] = [:]
    /// Per (state << 8 | class slot): the state after any one class scalar, and whether that step is uniform
    /// over the class and free of uniqueness effects (bit 32).
    var classSteps: [UInt64: Int64] = [:]

    init(grammar: Grammar, vocabulary: TokenVocabulary) {
        self.grammar = grammar
        self.vocabulary = vocabulary
        maximumDepth = Int32(grammar.options.maximumNestingDepth)
        isActive = (0..<grammar.nfa.stateCount).map { !grammar.nfa.byteEdges[$0].isEmpty || grammar.nfa.isRuleAccept[$0] }
        var seeds: [UInt64] = []
        if isViable(grammar.root.start, frame: 0) { seeds.append(Self.pack(grammar.root.start, 0)) }
        initialState = intern(closure(seeds))
    }

    static func pack(_ state: Int32, _ frame: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: state)) << 32 | UInt64(UInt32(bitPattern: frame))
    }

    static func nfaState(_ configuration: UInt64) -> Int32 { Int32(truncatingIfNeeded: configuration >> 32) }
    static func frame(_ configuration: UInt64) -> Int32 { Int32(truncatingIfNeeded: configuration & 0xFFFF_FFFF) }

    private func isViable(_ state: Int32, frame: Int32) -> Bool {
        let need = grammar.need[Int(state)]
        return need != Int32.max && frameDepth[Int(frame)] + need <= maximumDepth
    }

    private mutating func frameID(_ frame: Frame) -> Int32 {
        if let id = frameIDs[frame] { return id }
        let id = Int32(frames.count)
        frames.append(frame)
        frameDepth.append(frameDepth[Int(frame.parent)] + 1)
        frameIDs[frame] = id
        return id
    }

    /// ε-closure: ε-edges, calls (pushes, cut off where the depth limit would be exceeded) and returns from
    /// rules whose frame is not a `uniqueItems` element (those return only when the next byte is consumed).
    private mutating func closure(_ seeds: [UInt64]) -> [UInt64] {
        var seen = Set<UInt64>(seeds)
        var work = seeds
        while let configuration = work.popLast() {
            let state = Self.nfaState(configuration)
            let frame = Self.frame(configuration)
            func add(_ next: UInt64) {
                if seen.insert(next).inserted { work.append(next) }
            }
            for target in grammar.nfa.epsilons[Int(state)] where isViable(target, frame: frame) {
                add(Self.pack(target, frame))
            }
            for call in grammar.nfa.calls[Int(state)] {
                let start = grammar.rules[Int(call.rule)].start
                guard isViable(call.returnState, frame: frame),
                    grammar.need[Int(start)] != Int32.max,
                    frameDepth[Int(frame)] + 1 + grammar.need[Int(start)] <= maximumDepth
                else { continue }
                let pushed = frameID(
                    Frame(
                        parent: frame, returnState: call.returnState, uniqueArray: call.uniqueArray,
                        isFirstElement: call.isFirstElement))
                add(Self.pack(start, pushed))
            }
            if grammar.nfa.isRuleAccept[Int(state)], frame != 0, frames[Int(frame)].uniqueArray < 0 {
                add(Self.pack(frames[Int(frame)].returnState, frames[Int(frame)].parent))
            }
        }
        return seen.filter { isLive($0) }.sorted()
    }

    /// Whether a configuration can still do something: return, or consume a byte into a viable state.
    /// (Configurations that only lead to dead branches would otherwise keep an empty continuation alive.)
    private func isLive(_ configuration: UInt64) -> Bool {
        let state = Self.nfaState(configuration)
        guard isActive[Int(state)] else { return false }
        let frame = Self.frame(configuration)
        if grammar.nfa.isRuleAccept[Int(state)] {
            // A reference's rule has already returned in the closure and its accept state does nothing more: kept,
            // it would keep a set alive whose repeated `uniqueItems` element end was dropped (a dead end).
            return frame == 0 || frames[Int(frame)].uniqueArray >= 0
        }
        return grammar.nfa.byteEdges[Int(state)].contains { isViable($0.target, frame: frame) }
    }

    private mutating func intern(_ set: [UInt64]) -> Int32 {
        if let id = stateIDs[set] { return id }
        let id = Int32(configurations.count)
        configurations.append(set)
        stateIDs[set] = id
        transitions.append(contentsOf: repeatElement(Self.unknown, count: 256))
        transitionIsDynamic.append(contentsOf: repeatElement(false, count: 256))
        var accepting = false
        var finite = false
        var finiteFrame = false
        var uniqueAccept = false
        var unique = Set<Int32>()
        for configuration in set {
            var frame = Self.frame(configuration)
            if frame == 0 && Self.nfaState(configuration) == grammar.root.accept { accepting = true }
            if frame != 0, frames[Int(frame)].uniqueArray >= 0, grammar.nfa.isRuleAccept[Int(Self.nfaState(configuration))] {
                finite = true
                uniqueAccept = true
            }
            while frame > 0 {
                let array = frames[Int(frame)].uniqueArray
                if array >= 0 {
                    unique.insert(frame)
                    if grammar.uniqueArrays[Int(array)].finiteValues != nil {
                        finite = true
                        finiteFrame = true
                    }
                }
                frame = frames[Int(frame)].parent
            }
        }
        isAccepting.append(accepting)
        needsUniqueCheck.append(finite)
        hasFiniteFrame.append(finiteFrame)
        uniqueFrames.append(unique.sorted())
        onlyByte.append(-3)
        hasUniqueAccept.append(uniqueAccept)
        endings.append(nil)
        endingsKnown.append(false)
        maskIndex.append(-1)
        return id
    }

    /// What one byte step observed besides the resulting configurations.
    struct StepEvents {
        /// A `uniqueItems` element frame returned (the step's outcome depends on the uniqueness record).
        var crossedUniqueReturn = false
        /// Elements finished in this step: frame, array-instance key, canonical text (only with a record).
        var finished: [(frame: Int32, key: UInt64, element: [UInt8])] = []

        func finishedFrame(_ frame: Int32) -> Bool { finished.contains { $0.frame == frame } }
    }

    /// Consumes `byte` from every configuration of `state`.
    ///
    /// With a `record`, `uniqueItems` returns whose element repeats an earlier one are refused, and
    /// configurations inside finite unique elements whose prefix can no longer reach a new value are dropped.
    mutating func step(
        _ state: Int32, _ byte: UInt8, record: UniquenessContext?, output: [UInt8], events: inout StepEvents
    ) -> [UInt64] {
        var interval = ByteInterval(byte)
        return step(state, byte, record: record, output: output, events: &events, interval: &interval)
    }

    /// The bytes around one byte that every edge examined treats alike (all inside or all outside each range),
    /// so a step on any of them has the same outcome.
    struct ByteInterval {
        var low: UInt8 = 0
        var high: UInt8 = 255
        let byte: UInt8

        init(_ byte: UInt8) { self.byte = byte }

        mutating func narrow(_ edge: ByteNFA.ByteEdge) {
            if edge.low <= byte && byte <= edge.high {
                low = max(low, edge.low)
                high = min(high, edge.high)
            } else if edge.high < byte {
                low = max(low, edge.high + 1)
            } else {
                high = min(high, edge.low - 1)
            }
        }
    }

    /// ``step(_:_:record:output:events:)`` that also narrows `interval` to the bytes with the same outcome.
    private mutating func step(
        _ state: Int32, _ byte: UInt8, record: UniquenessContext?, output: [UInt8], events: inout StepEvents,
        interval: inout ByteInterval
    ) -> [UInt64] {
        var seeds: [UInt64] = []
        for configuration in configurations[Int(state)] {
            consume(configuration, byte, record: record, output: output, seeds: &seeds, events: &events, interval: &interval)
        }
        var result = closure(seeds)
        if let record, !result.isEmpty {
            result = filterFiniteUnique(result, record: record, output: output, byte: byte, events: events)
        }
        return result
    }

    private mutating func consume(
        _ configuration: UInt64, _ byte: UInt8, record: UniquenessContext?, output: [UInt8], seeds: inout [UInt64],
        events: inout StepEvents, interval: inout ByteInterval
    ) {
        let state = Self.nfaState(configuration)
        let frame = Self.frame(configuration)
        for edge in grammar.nfa.byteEdges[Int(state)] {
            interval.narrow(edge)
            if edge.low <= byte && byte <= edge.high && isViable(edge.target, frame: frame) {
                seeds.append(Self.pack(edge.target, frame))
            }
        }
        guard grammar.nfa.isRuleAccept[Int(state)], frame != 0 else { return }
        let info = frames[Int(frame)]
        guard info.uniqueArray >= 0 else { return }
        var finished: (frame: Int32, key: UInt64, element: [UInt8])? = nil
        if let record {
            let key = UniquenessContext.key(parent: info.parent, array: info.uniqueArray)
            let element = JSONCanonicalizer.canonical(record.element(of: frame, in: output))
            if record.finished[key]?.contains(element) == true { return }
            finished = (frame, key, element)
        }
        let before = seeds.count
        for next in closure([Self.pack(info.returnState, info.parent)]) {
            consume(next, byte, record: record, output: output, seeds: &seeds, events: &events, interval: &interval)
        }
        // Only a return that lets the byte through ends the element.
        guard seeds.count > before else { return }
        events.crossedUniqueReturn = true
        if let finished, !events.finishedFrame(frame) { events.finished.append(finished) }
    }

    /// Drops configurations that would complete a `uniqueItems` element equal to an earlier one, and those inside
    /// finite unique elements whose text so far is no prefix of an unused value.
    private func filterFiniteUnique(
        _ set: [UInt64], record: UniquenessContext, output: [UInt8], byte: UInt8, events: StepEvents
    ) -> [UInt64] {
        set.filter { configuration in
            var frame = Self.frame(configuration)
            if frame != 0, grammar.nfa.isRuleAccept[Int(Self.nfaState(configuration))] {
                let info = frames[Int(frame)]
                if info.uniqueArray >= 0, let start = record.elementStart[frame], !events.finishedFrame(frame) {
                    let key = UniquenessContext.key(parent: info.parent, array: info.uniqueArray)
                    let element = JSONCanonicalizer.canonical((Array(output[min(start, output.count)...]) + [byte])[...])
                    if record.finished[key]?.contains(element) == true { return false }
                    if events.finished.contains(where: { $0.key == key && $0.element == element }) { return false }
                }
            }
            while frame > 0 {
                let info = frames[Int(frame)]
                if info.uniqueArray >= 0, let values = grammar.uniqueArrays[Int(info.uniqueArray)].finiteValues {
                    // A frame seen before this step (and not just finished) has its element start recorded;
                    // a new one begins after this byte.
                    let prefix: ArraySlice<UInt8>
                    if let start = record.elementStart[frame], !events.finishedFrame(frame) {
                        prefix = (Array(output[min(start, output.count)...]) + [byte])[...]
                    } else {
                        prefix = []
                    }
                    let key = UniquenessContext.key(parent: info.parent, array: info.uniqueArray)
                    var used = info.isFirstElement && record.elementStart[frame] == nil ? [] : record.finished[key] ?? []
                    for done in events.finished where done.key == key { used.insert(done.element) }
                    // Prefixes follow the automaton's spelling; `used` holds canonical texts (an object literal's
                    // members sorted), so each value is tested by the form each side holds; the cheap prefix test
                    // first, since most values do not begin with the prefix.
                    if !values.contains(where: { $0.text.starts(with: prefix) && !used.contains($0.canonical) }) {
                        return false
                    }
                }
                frame = info.parent
            }
            return true
        }
    }

    /// The cached transition on `byte` ignoring uniqueness: the target (or ``dead``) and whether the outcome
    /// depends on the uniqueness record.
    mutating func transition(_ state: Int32, _ byte: UInt8) -> (target: Int32, isDynamic: Bool) {
        let slot = Int(state) << 8 | Int(byte)
        let cached = transitions[slot]
        if cached != Self.unknown { return (cached, transitionIsDynamic[slot]) }
        var events = StepEvents()
        var interval = ByteInterval(byte)
        let set = step(state, byte, record: nil, output: [], events: &events, interval: &interval)
        let target = set.isEmpty ? Self.dead : intern(set)
        // Every byte of the interval has the same outcome: fill them all (one step per edge range, not per byte).
        for other in Int(interval.low)...Int(interval.high) {
            transitions[Int(state) << 8 | other] = target
            transitionIsDynamic[Int(state) << 8 | other] = events.crossedUniqueReturn
        }
        return (target, events.crossedUniqueReturn)
    }

    /// Interns an exact (uniqueness-filtered) configuration set.
    mutating func state(for set: [UInt64]) -> Int32 {
        set.isEmpty ? Self.dead : intern(set)
    }

    /// The only byte that can follow `state`, if exactly one can and it does not depend on uniqueness.
    mutating func forcedByte(_ state: Int32) -> UInt8? {
        if onlyByte[Int(state)] == -3 { summarize(state) }
        let value = onlyByte[Int(state)]
        return value >= 0 ? UInt8(value) : nil
    }

    /// Whether any byte can follow `state` (ignoring uniqueness).
    mutating func canContinue(_ state: Int32) -> Bool {
        if onlyByte[Int(state)] == -3 { summarize(state) }
        return onlyByte[Int(state)] != -1
    }

    private mutating func summarize(_ state: Int32) {
        var only: Int16 = -1
        for byte in 0...255 {
            let (target, dynamic) = transition(state, UInt8(byte))
            guard target >= 0 else { continue }
            let unsure = dynamic || needsUniqueCheck[Int(state)] || needsUniqueCheck[Int(target)]
            if only != -1 || unsure {
                only = -2
                if unsure { break }
            } else {
                only = Int16(byte)
            }
        }
        onlyByte[Int(state)] = only
    }

    /// The ways on from a state to the next places where a `uniqueItems` element can end, when they are few.
    struct ElementEndings {
        /// Byte strings leading to a state where an element can end. One of them is a way on when it is accepted
        /// and the state it leads to still lets an element end (the element ending there is new).
        var ways: [[UInt8]]
        /// Whether an element that can end in the state itself (and still can, once the uniqueness record has been
        /// applied) needs nothing more: what follows its end is too open to list.
        var endsHere: Bool
        /// Whether some way enters a `uniqueItems` element the state is not inside.
        var opensFrames: Bool
    }

    /// Most ways ``elementEndings(_:)`` lists (and most bytes it follows from one state).
    static let maximumEndingWays = 16
    /// Longest way ``elementEndings(_:)`` follows (a forced chain such as the tail of a long fixed pattern).
    static let maximumEndingLength = 256
    /// Most states each of the two parts of an ``elementEndings(_:)`` search steps from (the ways past an element
    /// ending at the state, and the ways inside the element), each at most 256 cached transitions.
    static let maximumEndingExpansions = 512

    /// The ways on from `state` to the next `uniqueItems` element endings, or nil when there is nothing to check:
    /// no element is open, the ways are too many, too long or too costly to list, or the element can only end
    /// right here with nothing narrow after it (the step into the state already refused a repeat).
    ///
    /// A token is only allowed if one of these ways is new, so the generation cannot run into a dead end where
    /// every way on repeats an element: after `["red","rose","r` with items `red|rose|[0-9]+`, both `ed"` and
    /// `ose"` repeat one. Ways stop at the first place an element can end, except where the element can also go
    /// on (a number's digits); from the state itself they also cross its element's end (a closing `]` forced
    /// after it may end an enclosing element with a repeat).
    mutating func elementEndings(_ state: Int32) -> ElementEndings? {
        if endingsKnown[Int(state)] { return endings[Int(state)] }
        let result = searchEndings(from: state)
        endingsKnown[Int(state)] = true
        endings[Int(state)] = result
        return result
    }

    private mutating func searchEndings(from start: Int32) -> ElementEndings? {
        let startFrames = Set(uniqueFrames[Int(start)])
        guard !startFrames.isEmpty else { return nil }
        var found = ElementEndings(ways: [], endsHere: false, opensFrames: false)
        if hasUniqueAccept[Int(start)] {
            // Ending the element here: the steps that leave it, then on to the next element ending.
            var after: [[UInt8]] = []
            var opens = false
            var expansions = 0
            for byte in 0...255 {
                let (target, isDynamic) = transition(start, UInt8(byte))
                guard target >= 0, isDynamic else { continue }
                // Out of every element (nothing left to check), or too open to list: ending here is enough.
                if uniqueFrames[Int(target)].isEmpty
                    || !collectWays(
                        from: target, prefix: [UInt8(byte)], startFrames: startFrames, into: &after, opens: &opens,
                        expansions: &expansions)
                {
                    found.endsHere = true
                    break
                }
            }
            if !found.endsHere {
                found.ways = after
                found.opensFrames = opens
            }
        }
        // The ways on inside the element, with a budget of their own.
        var expansions = 0
        guard
            collectWays(
                from: start, prefix: [], startFrames: startFrames, into: &found.ways, opens: &found.opensFrames,
                expansions: &expansions),
            !found.ways.isEmpty
        else { return nil }
        return found
    }

    /// Adds the ways from `from` (reached by `prefix`) that stay inside elements (end none) to the states where an
    /// element can end; false when they are too many, too long or too costly to list.
    private mutating func collectWays(
        from: Int32, prefix: [UInt8], startFrames: Set<Int32>, into ways: inout [[UInt8]], opens: inout Bool,
        expansions: inout Int
    ) -> Bool {
        var pending: [(state: Int32, path: [UInt8])] = [(from, prefix)]
        while let (state, path) = pending.popLast() {
            if !path.isEmpty {
                if !uniqueFrames[Int(state)].allSatisfy({ startFrames.contains($0) }) { opens = true }
                if hasUniqueAccept[Int(state)] {
                    ways.append(path)
                    if ways.count > Self.maximumEndingWays { return false }
                }
            }
            expansions += 1
            if expansions > Self.maximumEndingExpansions { return false }
            // Inside an element every byte on leads to an element ending of its own, so more bytes than ways
            // allowed means too many ways.
            var successors = 0
            for byte in 0...255 {
                let (target, isDynamic) = transition(state, UInt8(byte))
                guard target >= 0, !isDynamic else { continue }
                successors += 1
                guard successors <= Self.maximumEndingWays, path.count < Self.maximumEndingLength else { return false }
                pending.append((target, path + [UInt8(byte)]))
            }
        }
        return true
    }

    /// The cached mask of `state`: static bits plus tokens to re-check against the uniqueness record.
    mutating func mask(for state: Int32) -> Int32 {
        let cached = maskIndex[Int(state)]
        if cached >= 0 { return cached }
        var parts = MaskParts(wordCount: (vocabulary.count + 63) / 64)
        walkTrie(from: state, into: &parts)
        if isAccepting[Int(state)] {
            for id in vocabulary.eosTokenIDs { parts.bits[id >> 6] |= 1 << UInt64(id & 63) }
        }
        maskBits.append(parts.bits)
        maskDependents.append(parts.dependents)
        maskCompletionChecked.append(parts.completionChecked)
        maskAlwaysChecked.append(parts.alwaysChecked)
        let index = Int32(maskBits.count - 1)
        maskIndex[Int(state)] = index
        return index
    }

    /// Number of deterministic states built so far.
    var stateCount: Int { configurations.count }

    /// Roughly the bytes the built states and masks occupy: a state's 256 byte transitions, its configuration
    /// set, and each mask's vocabulary-wide bits and token lists. Masks dominate on large vocabularies.
    var approximateByteCount: Int {
        let states = configurations.reduce(0) { $0 + $1.count * 8 } * 2 + transitions.count * 5
        let masks = maskBits.reduce(0) { $0 + $1.count * 8 }
            + (maskDependents.reduce(0) { $0 + $1.count } + maskCompletionChecked.reduce(0) { $0 + $1.count }
               + maskAlwaysChecked.reduce(0) { $0 + $1.count }) * 4
        return states + masks
    }
}
