/// The usable tokens of a vocabulary as a flat prefix tree over symbols, where each maximal run of
/// ``ScalarClass`` members is one symbol (`run(n)` for n member scalars) and every other byte is its own symbol.
///
/// Built once per (vocabulary, class) and shared. Nodes are stored in depth-first order, so a dead prefix skips
/// its whole subtree in one jump, and the tokens ending in a subtree are one contiguous range. With the empty
/// class this is the plain byte trie.
struct TokenTrie: Sendable {
    /// Symbols at or above this value are runs: `runBase + n` stands for n class scalars.
    static let runBase: Int32 = 256

    let scalarClass: ScalarClass
    /// Per node: the symbol on the edge from its parent (-1 for the root, node 0).
    let symbols: [Int32]
    /// Per node: its depth in symbols (the root is 0).
    let depths: [Int32]
    /// Per node: the index just past its subtree.
    let subtreeEnds: [Int32]
    /// Per node (plus one sentinel): where its tokens start in ``tokenIDs``; a subtree's tokens are contiguous.
    let tokenStarts: [Int32]
    let tokenIDs: [Int32]
    /// Per node (plus one sentinel): its tokens as mask words, `wordIndices[k]` with bits `wordBits[k]`, so a node
    /// holding thousands of tokens (every three-letter run) is merged a word at a time.
    let wordStarts: [Int32]
    let wordIndices: [Int32]
    let wordBits: [UInt64]
    /// The greatest node depth.
    let maximumDepth: Int

    var nodeCount: Int { symbols.count }

    /// Builds the trie of `ids` (usable token ids in byte order) whose bytes are in `storage` at `offsets`.
    init(scalarClass: ScalarClass, ids: [Int32], storage: [UInt8], offsets: [Int32]) {
        self.scalarClass = scalarClass
        // Each token's symbol string, flat.
        var flat: [Int32] = []
        var starts: [Int32] = [0]
        flat.reserveCapacity(storage.count)
        starts.reserveCapacity(ids.count + 1)
        storage.withUnsafeBufferPointer { bytes in
            for id in ids {
                let end = Int(offsets[Int(id) + 1])
                var index = Int(offsets[Int(id)])
                var run: Int32 = 0
                while index < end {
                    let length = scalarClass.isEmpty ? 0 : scalarClass.memberLength(bytes, at: index, end: end)
                    if length > 0 {
                        run += 1
                        index += length
                        continue
                    }
                    if run > 0 { flat.append(Self.runBase + run) }
                    run = 0
                    flat.append(Int32(bytes[index]))
                    index += 1
                }
                if run > 0 { flat.append(Self.runBase + run) }
                starts.append(Int32(flat.count))
            }
        }
        // The byte order of `ids` is already symbol order for the plain trie.
        var order = Array(ids.indices)
        if !scalarClass.isEmpty { Self.sortBySymbols(&order, flat: flat, starts: starts) }

        var symbols: [Int32] = [-1]
        var depths: [Int32] = [0]
        var subtreeEnds: [Int32] = [0]
        var tokenStarts: [Int32] = [0]
        var tokenIDs: [Int32] = []
        tokenIDs.reserveCapacity(ids.count)
        var path: [Int32] = [0]
        var maximumDepth = 0
        var previous = (start: 0, end: 0)
        for position in order {
            let start = Int(starts[position])
            let end = Int(starts[position + 1])
            var shared = 0
            while shared < previous.end - previous.start, shared < end - start,
                flat[previous.start + shared] == flat[start + shared]
            {
                shared += 1
            }
            while path.count - 1 > shared { subtreeEnds[Int(path.removeLast())] = Int32(symbols.count) }
            for depth in shared..<(end - start) {
                path.append(Int32(symbols.count))
                symbols.append(flat[start + depth])
                depths.append(Int32(depth + 1))
                subtreeEnds.append(0)
                tokenStarts.append(Int32(tokenIDs.count))
            }
            maximumDepth = max(maximumDepth, end - start)
            tokenIDs.append(ids[position])
            previous = (start, end)
        }
        while let node = path.popLast() { subtreeEnds[Int(node)] = Int32(symbols.count) }
        tokenStarts.append(Int32(tokenIDs.count))

        var wordStarts: [Int32] = [0]
        var wordIndices: [Int32] = []
        var wordBits: [UInt64] = []
        wordStarts.reserveCapacity(symbols.count + 1)
        for node in symbols.indices {
            let tokens = tokenIDs[Int(tokenStarts[node])..<Int(tokenStarts[node + 1])]
            // Most nodes hold no token or one: no sorted copy for those.
            for id in tokens.count > 1 ? tokens.sorted()[...] : tokens {
                let word = id >> 6
                let bit = UInt64(1) << UInt64(id & 63)
                if wordIndices.count > Int(wordStarts[node]), wordIndices[wordIndices.count - 1] == word {
                    wordBits[wordBits.count - 1] |= bit
                } else {
                    wordIndices.append(word)
                    wordBits.append(bit)
                }
            }
            wordStarts.append(Int32(wordIndices.count))
        }

        self.symbols = symbols
        self.depths = depths
        self.subtreeEnds = subtreeEnds
        self.tokenStarts = tokenStarts
        self.tokenIDs = tokenIDs
        self.wordStarts = wordStarts
        self.wordIndices = wordIndices
        self.wordBits = wordBits
        self.maximumDepth = maximumDepth
    }

    /// Sorts token positions by their symbol strings: first by a key packing the first four symbols (most
    /// strings are that short), then ties longer than the key by full comparison.
    private static func sortBySymbols(_ order: inout [Int], flat: [Int32], starts: [Int32]) {
        var keyed: [(key: UInt64, position: Int)] = order.map { position in
            var key: UInt64 = 0
            let start = Int(starts[position])
            let end = Int(starts[position + 1])
            for index in 0..<4 {
                // Symbols shifted by one so that "no symbol" sorts first; runs never reach 65535 scalars.
                let symbol = start + index < end ? UInt64(flat[start + index] + 1) : 0
                key = key << 16 | symbol
            }
            return (key, position)
        }
        keyed.sort { $0.key < $1.key }
        flat.withUnsafeBufferPointer { symbols in
            var low = 0
            while low < keyed.count {
                var high = low + 1
                while high < keyed.count, keyed[high].key == keyed[low].key { high += 1 }
                if high - low > 1 {
                    keyed[low..<high].sort { a, b in
                        compare(symbols, Int(starts[a.position]), Int(starts[a.position + 1]),
                            Int(starts[b.position]), Int(starts[b.position + 1])) < 0
                    }
                }
                low = high
            }
        }
        order = keyed.map(\.position)
    }

    private static func compare(_ symbols: UnsafeBufferPointer<Int32>, _ a: Int, _ aEnd: Int, _ b: Int, _ bEnd: Int) -> Int {
        var i = a
        var j = b
        while i < aEnd, j < bEnd {
            if symbols[i] != symbols[j] { return symbols[i] < symbols[j] ? -1 : 1 }
            i += 1
            j += 1
        }
        return (aEnd - a) - (bEnd - b)
    }

    /// The tokens ending at `node`.
    func tokens(at node: Int) -> ArraySlice<Int32> { tokenIDs[Int(tokenStarts[node])..<Int(tokenStarts[node + 1])] }

    /// The tokens ending anywhere in the subtree of `node`.
    func tokens(under node: Int) -> ArraySlice<Int32> {
        tokenIDs[Int(tokenStarts[node])..<Int(tokenStarts[Int(subtreeEnds[node])])]
    }
}
