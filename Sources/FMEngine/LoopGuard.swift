import FMDecoding

/// Stops degenerate loops inside JSON strings, the one place a grammar cannot bound a small model.
///
/// SmolLM2-135M sometimes falls into a cycle inside free text (`"sunset_sunset_sunset_…"`) and, left alone,
/// writes it until `maximumResponseTokens`. The guard watches the tokens of the string being written and,
/// once the latest span of `p` tokens (`p` ≤ ``longestPeriod``) has just been written twice in a row
/// (four times for a single token), masks out the token that would start the next copy. The model still
/// chooses among everything else — usually the closing quote. Outside strings nothing is banned: repeated
/// structure there (`[0,0,0]`, records with the same keys) is legitimate and bounded by the schema.
struct LoopGuard {
    /// The longest cycle, in tokens, the guard detects. Long enough for a copied phrase or number sequence
    /// (a 17-digit cycle escaped a bound of 16); each step's check stops at the first token that differs, so
    /// a long bound costs little.
    static let longestPeriod = 128

    private var lexical = JSONLexicalState()
    private var stringTokens: [Int32] = []

    private var inString: Bool { lexical.inString }

    /// Follows one appended token (sampled or forced).
    mutating func observe(_ token: Int32, bytes: [UInt8]) {
        var startsInString = inString
        for byte in bytes where lexical.consume(byte) == .openingQuote {
            startsInString = false
            stringTokens.removeAll(keepingCapacity: true)
        }
        if inString, startsInString { stringTokens.append(token) }
        if !inString { stringTokens.removeAll(keepingCapacity: true) }
    }

    /// Tokens that would continue a cycle in the current string.
    var bannedTokens: [Int32] {
        guard inString else { return [] }
        var banned: [Int32] = []
        let count = stringTokens.count
        for period in 1...Self.longestPeriod {
            let copies = period == 1 ? 4 : 2
            guard count >= period * copies else { break }
            let last = stringTokens[(count - period)...]
            var repeats = true
            for copy in 1..<copies where stringTokens[(count - period * (copy + 1))..<(count - period * copy)] != last {
                repeats = false
                break
            }
            let next = stringTokens[count - period]
            if repeats, !banned.contains(next) { banned.append(next) }
        }
        return banned
    }

    /// Removes the banned tokens from `mask`, unless that would leave nothing to sample.
    func apply(to mask: inout TokenMask) {
        let banned = bannedTokens.filter { mask.contains(Int($0)) }
        guard !banned.isEmpty else { return }
        for token in banned { mask.remove(Int(token)) }
        if mask.isEmpty { for token in banned { mask.insert(Int(token)) } }
    }
}
