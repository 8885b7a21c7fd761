/// One batched decode of several continuations laid out as a prefix tree: each distinct beginning is one batch
/// entry, in the sequences of every continuation that starts with it.
///
/// A continuation of `n` tokens needs the logits after each of its first `n - 1` tokens (the first token's
/// probability comes from the logits before it). Continuations that begin alike need the same entries, so
/// `"card_arrival"` and `"card_linking"` share `card` and `_` and differ from there. llama.cpp's unified cache
/// stores such an entry once, visible to each sequence it names.
struct ContinuationTree {
    /// A batch entry: a token at a position, in the sequences of the continuations that pass through it.
    struct Node: Equatable {
        var token: Int32
        var position: Int32
        var sequences: [Int32]
    }

    /// Where a continuation's next token's log-probability is read: the logits of entry `node`.
    struct Read: Equatable {
        var continuation: Int
        var node: Int
        var next: Int32
    }

    /// The continuations of this decode, in order; the `i`-th runs in the `i`-th of the sequences given.
    private(set) var members: [Int] = []
    /// The batch entries, every node after its parent, so each sequence's positions rise.
    private(set) var nodes: [Node] = []
    /// One read per token after the first of every member.
    private(set) var reads: [Read] = []

    /// Takes continuations from `order` (indices into `continuations`, each of at least two tokens) while there is
    /// a sequence for the next one and its new entries fit within `capacity`; the first always fits when its
    /// length minus one is at most `capacity`. Entries start at position `start`.
    init(continuations: [[Int32]], order: ArraySlice<Int>, start: Int, sequences: [Int], capacity: Int) {
        var nodeOfPrefix: [ArraySlice<Int32>: Int] = [:]
        for index in order {
            guard members.count < sequences.count else { break }
            let continuation = continuations[index]
            let fresh = (1..<continuation.count).count(where: { nodeOfPrefix[continuation[..<$0]] == nil })
            guard members.isEmpty || nodes.count + fresh <= capacity else { break }
            let sequence = Int32(sequences[members.count])
            members.append(index)
            for end in 1..<continuation.count {
                let node: Int
                if let known = nodeOfPrefix[continuation[..<end]] {
                    node = known
                    nodes[node].sequences.append(sequence)
                } else {
                    node = nodes.count
                    nodeOfPrefix[continuation[..<end]] = node
                    nodes.append(Node(token: continuation[end - 1], position: Int32(start + end - 1), sequences: [sequence]))
                }
                reads.append(Read(continuation: index, node: node, next: continuation[end]))
            }
        }
    }
}
