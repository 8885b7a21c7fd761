/// A byte-level NFA with ε-edges and rule calls: the compiled form of a schema before determinisation.
///
/// States are dense `Int32` ids; edges live in per-state arrays. Each rule (the root, each referenced definition,
/// and each `uniqueItems` element) has one start and one accept state; a call edge pushes a return state.
struct ByteNFA: Sendable {
    struct ByteEdge: Sendable, Hashable {
        var low: UInt8
        var high: UInt8
        var target: Int32
    }

    struct CallEdge: Sendable, Hashable {
        var rule: Int32
        var returnState: Int32
        /// The `uniqueItems` array this call is an element of, or -1.
        var uniqueArray: Int32
        /// Whether this is the array's first element (its uniqueness record starts afresh).
        var isFirstElement: Bool
    }

    var byteEdges: [[ByteEdge]] = []
    var epsilons: [[Int32]] = []
    var calls: [[CallEdge]] = []
    /// Whether the state is its rule's accept state (reaching it pops the frame).
    var isRuleAccept: [Bool] = []

    var stateCount: Int { byteEdges.count }

    mutating func addState() -> Int32 {
        byteEdges.append([])
        epsilons.append([])
        calls.append([])
        isRuleAccept.append(false)
        return Int32(byteEdges.count - 1)
    }

    mutating func addBytes(_ from: Int32, _ low: UInt8, _ high: UInt8, _ to: Int32) {
        byteEdges[Int(from)].append(ByteEdge(low: low, high: high, target: to))
    }

    mutating func addEpsilon(_ from: Int32, _ to: Int32) {
        epsilons[Int(from)].append(to)
    }

    /// Appends a chain for `bytes` starting at `from`; returns the end state.
    mutating func addLiteral(_ bytes: some Sequence<UInt8>, from: Int32) -> Int32 {
        var current = from
        for byte in bytes {
            let next = addState()
            addBytes(current, byte, byte, next)
            current = next
        }
        return current
    }

    /// Appends a chain of byte ranges (one UTF-8 sequence) from `from` to `to`.
    mutating func addRangeSequence(_ ranges: [(UInt8, UInt8)], from: Int32, to: Int32) {
        var current = from
        for (index, range) in ranges.enumerated() {
            let next = index == ranges.count - 1 ? to : addState()
            addBytes(current, range.0, range.1, next)
            current = next
        }
    }
}
