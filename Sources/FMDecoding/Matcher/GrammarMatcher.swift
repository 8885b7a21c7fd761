/// One generation's position in a ``TokenConstraint``: masks the next token and advances over accepted tokens.
///
/// A value type: copy it to snapshot (and so roll back) a generation. All methods are cheap once the states
/// they visit are cached in the shared ``TokenConstraint``.
///
/// ```swift
/// var matcher = constraint.makeMatcher()
/// _ = matcher.accept(bytes: Array(#"{"name":"#.utf8))
/// matcher.fillMask(into: &mask)
/// ```
public struct GrammarMatcher: Sendable {
    /// The constraint this matcher walks.
    public let constraint: TokenConstraint
    private(set) var state: Int32
    private var output: [UInt8] = []
    private var record = UniquenessContext()
    /// Whether an EOS token has been accepted; nothing more is allowed.
    public private(set) var isTerminated = false

    init(constraint: TokenConstraint, state: Int32) {
        self.constraint = constraint
        self.state = state
    }

    /// The bytes accepted so far.
    public var generatedBytes: [UInt8] { output }

    /// Whether the text so far is a complete value (EOS is allowed).
    public var canTerminate: Bool {
        !isTerminated && constraint.withAutomaton { $0.isAccepting[Int(state)] }
    }

    /// Whether the value is finished and nothing more may follow: the runtime should stop.
    ///
    /// True after EOS, or when the text is complete and no byte can extend it (a closed object or array,
    /// a string, a literal). A complete top-level number may still grow, so it is never "complete" on its own;
    /// use ``canTerminate`` and EOS for those.
    public var isComplete: Bool {
        if isTerminated { return true }
        return constraint.withAutomaton { automaton in
            automaton.isAccepting[Int(state)] && !automaton.canContinue(state)
        }
    }

    /// Writes the set of tokens allowed next into `mask` (EOS only when ``canTerminate``).
    ///
    /// - Parameter mask: A mask of size `vocabulary.count`, reused across steps.
    public func fillMask(into mask: inout TokenMask) {
        precondition(mask.count == constraint.vocabulary.count, "mask size does not match the vocabulary")
        if isTerminated {
            mask.removeAll()
            return
        }
        let vocabulary = constraint.vocabulary
        constraint.withAutomaton { automaton in
            let index = Int(automaton.mask(for: state))
            mask.assign(from: automaton.maskBits[index])
            for token in automaton.maskAlwaysChecked[index] {
                var copy = self
                if copy.advance(over: vocabulary.bytes(of: Int(token)), automaton: &automaton),
                    copy.someEndingIsNew(automaton: &automaton)
                {
                    mask.insert(Int(token))
                }
            }
            let completionChecked = automaton.maskCompletionChecked[index]
            if !completionChecked.isEmpty {
                screenCompletions(completionChecked, into: &mask, automaton: &automaton)
            }
            let dependents = automaton.maskDependents[index]
            guard !dependents.isEmpty else { return }
            // A dependent token can only be refused if it spells the rest of an element already in its array.
            guard let remainders = elementRemainders(automaton: automaton) else {
                for token in dependents {
                    var copy = self
                    if copy.advance(over: vocabulary.bytes(of: Int(token)), automaton: &automaton) {
                        mask.insert(Int(token))
                    }
                }
                return
            }
            for token in dependents { mask.insert(Int(token)) }
            for remainder in remainders {
                let suspects = Self.tokens(in: dependents, startingWith: remainder, vocabulary: vocabulary)
                guard !suspects.isEmpty else { continue }
                // Advance over the shared remainder once; usually it is refused and so are all suspects.
                var probe = self
                let alive = probe.advance(over: remainder, automaton: &automaton)
                for token in suspects {
                    var copy = probe
                    let rest = vocabulary.bytes(of: Int(token)).dropFirst(remainder.count)
                    if !alive || !copy.advance(over: rest, automaton: &automaton) { mask.remove(Int(token)) }
                }
            }
        }
    }

    /// Adds the tokens with a way on to a new element ending: only a token that, with each of its few ways on,
    /// spells the rest of an element already written can be refused, so only those tokens are checked exactly.
    private func screenCompletions(_ tokens: [Int32], into mask: inout TokenMask, automaton: inout LazyAutomaton) {
        let vocabulary = constraint.vocabulary
        func exactlyAllowed(_ token: Int32) -> Bool {
            var copy = self
            return copy.advance(over: vocabulary.bytes(of: Int(token)), automaton: &automaton)
                && copy.someEndingIsNew(automaton: &automaton)
        }
        guard let remainders = elementRemainders(automaton: automaton) else {
            for token in tokens where exactlyAllowed(token) { mask.insert(Int(token)) }
            return
        }
        for token in tokens { mask.insert(Int(token)) }
        for remainder in remainders {
            for length in 1...remainder.count {
                for token in Self.tokens(in: tokens, equalTo: remainder.prefix(length), vocabulary: vocabulary)
                where !exactlyAllowed(token) {
                    mask.remove(Int(token))
                }
            }
        }
    }

    /// The tokens of `sorted` (ids in byte order of their text) whose text is exactly `bytes`.
    private static func tokens(
        in sorted: [Int32], equalTo bytes: ArraySlice<UInt8>, vocabulary: TokenVocabulary
    ) -> ArraySlice<Int32> {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if vocabulary.bytes(of: Int(sorted[middle])).lexicographicallyPrecedes(bytes) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        var end = low
        while end < sorted.count, vocabulary.bytes(of: Int(sorted[end])).elementsEqual(bytes) { end += 1 }
        return sorted[low..<end]
    }

    /// Whether one of the few ways on from here (if they are few, see `LazyAutomaton.elementEndings`) ends a
    /// `uniqueItems` element with a new value, so the generation cannot get stuck where every way on repeats one.
    ///
    /// Where a way ends an element, what must follow it is checked the same way (a new inner element whose array
    /// then has to close may complete an outer element that repeats), up to ``maximumEndingDepth`` endings in a row
    /// and ``maximumEndingChecks`` ways in all; past either the rest is taken to be new.
    private func someEndingIsNew(automaton: inout LazyAutomaton) -> Bool {
        var budget = Self.maximumEndingChecks
        return someEndingIsNew(automaton: &automaton, depth: 0, budget: &budget)
    }

    private func someEndingIsNew(automaton: inout LazyAutomaton, depth: Int, budget: inout Int) -> Bool {
        guard depth < Self.maximumEndingDepth, let endings = automaton.elementEndings(state) else { return true }
        if endings.endsHere && automaton.hasUniqueAccept[Int(state)] { return true }
        for way in endings.ways {
            budget -= 1
            if budget < 0 { return true }
            var copy = self
            // The element must still be able to end where the way leads: a repeat there is dropped, which may
            // leave only the configurations that go on (whose own endings are further ways).
            if copy.advance(over: way, automaton: &automaton), automaton.hasUniqueAccept[Int(copy.state)],
                copy.someEndingIsNew(automaton: &automaton, depth: depth + 1, budget: &budget)
            {
                return true
            }
        }
        return false
    }

    /// Most element endings in a row ``someEndingIsNew(automaton:)`` follows.
    private static let maximumEndingDepth = 4
    /// Most ways ``someEndingIsNew(automaton:)`` tries for one token.
    private static let maximumEndingChecks = 64

    /// For each open `uniqueItems` element, the rest of every earlier element that starts with the text written so
    /// far; nil when the text holds an escape (raw and canonical spellings may then differ).
    private func elementRemainders(automaton: LazyAutomaton) -> [ArraySlice<UInt8>]? {
        var remainders: [ArraySlice<UInt8>] = []
        for frame in automaton.uniqueFrames[Int(state)] {
            let info = automaton.frames[Int(frame)]
            var written = record.element(of: frame, in: output)
            // An object's canonical spelling sorts its members, so its raw text is no prefix of it.
            if written.contains(UInt8(ascii: "{")) { return nil }
            if written.contains(0x5C) {
                // A string with complete escapes compares by its canonical spelling (tokens with `\\` are
                // always checked exactly); anything else falls back to exact checks of every dependent token.
                guard written.first == 0x22, Self.endsOutsideEscape(written) else { return nil }
                written = JSONCanonicalizer.canonical(written + [0x22]).dropLast()
            }
            let key = UniquenessContext.key(parent: info.parent, array: info.uniqueArray)
            for element in record.finished[key] ?? [] where element.starts(with: written) {
                // An empty remainder needs nothing: ending the element right here was already refused when the
                // state was entered, so the state's static mask has no such token.
                let remainder = element[written.count...]
                if !remainder.isEmpty { remainders.append(remainder) }
            }
        }
        return remainders
    }

    /// Whether string text (from its opening quote) does not end inside an escape sequence.
    private static func endsOutsideEscape(_ text: ArraySlice<UInt8>) -> Bool {
        var index = text.startIndex + 1
        while index < text.endIndex {
            if text[index] == 0x5C {
                guard index + 1 < text.endIndex else { return false }
                let length = text[index + 1] == UInt8(ascii: "u") ? 6 : 2
                guard index + length <= text.endIndex else { return false }
                index += length
            } else {
                index += 1
            }
        }
        return true
    }

    /// The tokens of `sorted` (ids in byte order of their text) whose text starts with `prefix`.
    private static func tokens(
        in sorted: [Int32], startingWith prefix: ArraySlice<UInt8>, vocabulary: TokenVocabulary
    ) -> ArraySlice<Int32> {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if vocabulary.bytes(of: Int(sorted[middle])).lexicographicallyPrecedes(prefix) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        var end = low
        while end < sorted.count, vocabulary.bytes(of: Int(sorted[end])).starts(with: prefix) { end += 1 }
        return sorted[low..<end]
    }

    /// Accepts one token if the grammar allows it.
    ///
    /// - Returns: `false` (and leaves the matcher unchanged) when the token is not allowed here.
    public mutating func accept(token: Int) -> Bool {
        let vocabulary = constraint.vocabulary
        guard token >= 0, token < vocabulary.count, !isTerminated else { return false }
        if vocabulary.eosTokenIDs.contains(token) {
            guard canTerminate else { return false }
            isTerminated = true
            return true
        }
        guard vocabulary.isUsableInText(token) else { return false }
        return accept(bytes: vocabulary.bytes(of: token))
    }

    /// Accepts bytes (for example ``forcedBytes()`` or a tokenized prefix) if the grammar allows all of them.
    ///
    /// - Returns: `false` (and leaves the matcher unchanged) when some byte is not allowed.
    public mutating func accept(bytes: some Collection<UInt8>) -> Bool {
        guard !isTerminated else { return bytes.isEmpty }
        var copy = self
        let accepted = constraint.withAutomaton { automaton in copy.advance(over: bytes, automaton: &automaton) }
        if accepted { self = copy }
        return accepted
    }

    /// The longest byte string that is the only possible continuation (keys, punctuation, the rest of a choice
    /// once unique). Empty when the model has a choice to make or the value can end here.
    ///
    /// The runtime can append these without sampling (after ``accept(bytes:)``).
    public func forcedBytes() -> [UInt8] {
        guard !isTerminated else { return [] }
        return constraint.withAutomaton { automaton in
            var current = state
            var forced: [UInt8] = []
            while forced.count < 4096, !automaton.isAccepting[Int(current)], let byte = automaton.forcedByte(current) {
                let (target, _) = automaton.transition(current, byte)
                guard target >= 0 else { break }
                forced.append(byte)
                current = target
            }
            return forced
        }
    }

    private mutating func advance(over bytes: some Collection<UInt8>, automaton: inout LazyAutomaton) -> Bool {
        for byte in bytes where !advance(byte, automaton: &automaton) { return false }
        return true
    }

    private mutating func advance(_ byte: UInt8, automaton: inout LazyAutomaton) -> Bool {
        let (cached, isDynamic) = automaton.transition(state, byte)
        guard cached >= 0 else { return false }
        var target = cached
        var events = LazyAutomaton.StepEvents()
        if isDynamic || automaton.needsUniqueCheck[Int(cached)] {
            let set = automaton.step(state, byte, record: record, output: output, events: &events)
            target = automaton.state(for: set)
            guard target >= 0 else { return false }
        }
        for finished in events.finished {
            record.finished[finished.key, default: []].insert(finished.element)
            record.elementStart[finished.frame] = nil
        }
        output.append(byte)
        let frames = automaton.uniqueFrames[Int(target)]
        if !frames.isEmpty || !record.elementStart.isEmpty {
            var starts: [Int32: Int] = [:]
            for frame in frames {
                if let start = record.elementStart[frame] {
                    starts[frame] = start
                } else {
                    starts[frame] = output.count
                    let info = automaton.frames[Int(frame)]
                    if info.isFirstElement {
                        record.finished[UniquenessContext.key(parent: info.parent, array: info.uniqueArray)] = []
                    }
                }
            }
            record.elementStart = starts
        }
        state = target
        return true
    }
}
