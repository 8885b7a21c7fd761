/// The original mask computation, kept as the oracle that the trie walk is tested against.
extension LazyAutomaton {
    /// The mask of `state` computed by walking every token in byte order (no caching, no scalar classes).
    mutating func referenceMask(for state: Int32) -> MaskParts {
        var parts = MaskParts(wordCount: (vocabulary.count + 63) / 64)
        walkVocabulary(from: state, into: &parts)
        if isAccepting[Int(state)] {
            for id in vocabulary.eosTokenIDs { parts.bits[id >> 6] |= 1 << UInt64(id & 63) }
        }
        return parts
    }

    /// Walks all usable tokens in byte order, reusing the states of the shared prefix with the previous token and
    /// skipping every token that shares a rejected prefix.
    private mutating func walkVocabulary(from state: Int32, into parts: inout MaskParts) {
        let rootFrames = Set(uniqueFrames[Int(state)])
        var opensNewFrame: [Int32: Bool] = [:]
        var always: [Bool] = [hasFiniteFrame[Int(state)]]
        // Whether the path so far ended an element (a return from a unique frame): a later element end in the
        // same token belongs to a new element, which the remainder shortcut does not cover.
        var returned: [Bool] = [false]
        // Whether the path so far entered a unique element frame the state did not have.
        var opened: [Bool] = [false]
        let sorted = vocabulary.sortedIDs
        let shared = vocabulary.sharedPrefix
        let storage = vocabulary.storage
        let offsets = vocabulary.offsets
        var states: [Int32] = [state]
        var dynamic: [Bool] = [needsUniqueCheck[Int(state)]]
        var validDepth = 0
        var index = 0
        while index < sorted.count {
            let id = Int(sorted[index])
            let start = Int(offsets[id])
            let length = Int(offsets[id + 1]) - start
            var depth = min(Int(shared[index]), validDepth)
            var failedAt = -1
            while depth < length {
                let (target, isDynamic) = transition(states[depth], storage[start + depth])
                if target < 0 {
                    failedAt = depth
                    break
                }
                let next = depth + 1
                if states.count <= next {
                    states.append(target)
                    dynamic.append(false)
                    always.append(false)
                    returned.append(false)
                    opened.append(false)
                }
                returned[next] = returned[depth] || isDynamic
                states[next] = target
                dynamic[next] = dynamic[depth] || isDynamic || needsUniqueCheck[Int(target)]
                if dynamic[next] {
                    let fresh: Bool
                    if let known = opensNewFrame[target] {
                        fresh = known
                    } else {
                        fresh = uniqueFrames[Int(target)].contains { !rootFrames.contains($0) }
                        opensNewFrame[target] = fresh
                    }
                    opened[next] = opened[depth] || fresh
                    always[next] = always[depth] || hasFiniteFrame[Int(target)]
                        || ((returned[depth] || opened[depth]) && needsUniqueCheck[Int(target)])
                } else {
                    always[next] = false
                    opened[next] = false
                }
                depth = next
            }
            if failedAt < 0 {
                var flags: LazyAutomaton.PathFlags = []
                if always[length] { flags.insert(.always) }
                if dynamic[length] { flags.insert(.dynamic) }
                if storage[start..<start + length].contains(0x5C) { flags.insert(.backslash) }
                parts.add([Int32(id)], as: category(end: states[length], flags: flags, rootFrames: rootFrames))
                validDepth = length
                index += 1
            } else {
                validDepth = failedAt
                index += 1
                while index < sorted.count, Int(shared[index]) > failedAt { index += 1 }
            }
        }
    }
}
