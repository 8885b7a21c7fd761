/// Checks for tests and tools.
extension TokenConstraint {
    /// Compares the mask of every byte-reachable state (breadth first, up to `maximumStates`) with the reference
    /// walk over the whole vocabulary; returns a description of the first difference, or nil.
    package func maskMismatch(maximumStates: Int) -> String? {
        withAutomaton { automaton in
            var queue: [Int32] = [automaton.initialState]
            var seen: Set<Int32> = [automaton.initialState]
            var index = 0
            while index < queue.count, index < maximumStates {
                let state = queue[index]
                index += 1
                if let mismatch = automaton.maskMismatch(state) { return mismatch }
                for byte in 0...255 {
                    let (target, _) = automaton.transition(state, UInt8(byte))
                    if target >= 0, seen.insert(target).inserted { queue.append(target) }
                }
            }
            return nil
        }
    }
}

extension LazyAutomaton {
    /// How the cached mask of `state` differs from the reference walk, or nil when they agree.
    mutating func maskMismatch(_ state: Int32) -> String? {
        let index = Int(mask(for: state))
        let reference = referenceMask(for: state)
        let bits = maskBits[index]
        for word in bits.indices where bits[word] != reference.bits[word] {
            let differing = bits[word] ^ reference.bits[word]
            let id = word << 6 + differing.trailingZeroBitCount
            let allowed = bits[word] & (1 << UInt64(id & 63)) != 0
            return "state \(state): token \(id) \(Array(vocabulary.bytes(of: id))) is \(allowed ? "allowed" : "refused") "
                + "by the trie walk but not by the reference"
        }
        if maskDependents[index] != reference.dependents {
            return "state \(state): dependents differ: \(maskDependents[index].count) vs \(reference.dependents.count)"
        }
        if maskCompletionChecked[index] != reference.completionChecked {
            return "state \(state): completion-checked tokens differ: \(maskCompletionChecked[index].count) vs "
                + "\(reference.completionChecked.count)"
        }
        if maskAlwaysChecked[index].sorted() != reference.alwaysChecked.sorted() {
            return "state \(state): always-checked tokens differ: \(maskAlwaysChecked[index].count) vs "
                + "\(reference.alwaysChecked.count)"
        }
        return nil
    }
}
