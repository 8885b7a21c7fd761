/// Parses the supported regular-expression subset into a ``RegexNode``.
///
/// Supported: literals, `.`, classes with ranges and negation, `\d \w \s \D \W \S`, escapes
/// (`\n \t \r \f \v \0 \xHH \uHHHH \u{H…}` and escaped punctuation), groups `(…)`, `(?:…)` and `(?<name>…)`,
/// alternation, quantifiers `* + ? {m} {m,} {m,n}` (a lazy suffix is treated as greedy: same language), and
/// `^`/`$` at the ends (`$` also ending a branch, inside groups only where they end the pattern). Anything else
/// throws ``GrammarError`` naming the construct, as do the constructs JSON Schema's ECMAScript and Swift's `Regex`
/// read differently (`{,n}`, possessive quantifiers, `[]`, set operations in classes). `\d`, `\w`, `\s` and `\S`
/// match in both dialects (``ScalarSet`` "Dialects"); `\D`, `\W`, `.` and negated classes as in ECMAScript.
struct RegexParser {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private let pattern: String
    /// Repetition counts above this are rejected (the automaton unrolls them).
    static let maximumRepetition = 1000
    /// The deepest nesting of groups: parsing, building and freeing the node all recurse once per level.
    static let maximumGroupDepth = 128
    /// The most quantifiers on one atom (`a{2}{3}`); each wraps the node once more, deepening that recursion too.
    static let maximumStackedQuantifiers = 4
    /// The most automaton pieces a pattern may unroll to: each counted repetition copies its body, so nested
    /// ones multiply (`((a{1000}){1000}){1000}` would be 10⁹ states) although each count is within bounds.
    static let maximumUnrolledSize = 20_000

    private var groupDepth = 0
    /// For each open group, whether one of its branches ends with `$`. Such a group must itself end the pattern:
    /// search patterns are wrapped as `[\s\S]*(?:…)[\s\S]*`, so in `(a$|b)` the `$` would otherwise be dropped
    /// and text allowed after the `a`.
    private var groupsEndingAtAnchor: [Bool] = []

    static func parse(_ pattern: String) throws(GrammarError) -> RegexNode {
        var parser = RegexParser(pattern: pattern)
        let node = try parser.parseWhole()
        guard unrolledSize(of: node) <= maximumUnrolledSize else {
            throw GrammarError(
                .tooLarge, construct: "nested repetition",
                "pattern /\(pattern)/ unrolls to more than \(maximumUnrolledSize) automaton states (nested counted repetitions)")
        }
        return node
    }

    /// An upper bound on the states the automaton builders create for `node`, saturating past the maximum.
    static func unrolledSize(of node: RegexNode) -> Int {
        let cap = maximumUnrolledSize + 1
        switch node {
        case .set: return 1
        case .concatenation(let parts): return parts.reduce(1) { min(cap, $0 + unrolledSize(of: $1)) }
        case .alternation(let branches): return branches.reduce(1) { min(cap, $0 + unrolledSize(of: $1)) }
        case .repetition(let inner, let minimum, let maximum):
            // Bounded: `maximum` copies of the body; unbounded: `minimum` copies and the loop.
            let copies = maximum.map { max($0, minimum) } ?? minimum + 1
            return min(cap, 1 + unrolledSize(of: inner) * copies)
        }
    }

    private init(pattern: String) {
        self.pattern = pattern
        scalars = Array(pattern.unicodeScalars)
    }

    private func unsupported(_ construct: String, _ why: String) -> GrammarError {
        GrammarError(.unsupportedPattern, construct: construct, "pattern /\(pattern)/ uses \(construct): \(why)")
    }

    private func invalid(_ why: String) -> GrammarError {
        GrammarError(.invalidPattern, construct: pattern, "pattern /\(pattern)/ is invalid: \(why)")
    }

    private var atEnd: Bool { index >= scalars.count }
    private var peek: Unicode.Scalar? { atEnd ? nil : scalars[index] }

    private mutating func parseWhole() throws(GrammarError) -> RegexNode {
        if peek == "^" { index += 1 }
        let node = try parseAlternation()
        if !atEnd {
            if peek == ")" { throw invalid("unbalanced `)`") }
            throw invalid("unexpected `\(peek!)`")
        }
        return node
    }

    private mutating func parseAlternation() throws(GrammarError) -> RegexNode {
        var branches = [try parseConcatenation()]
        while peek == "|" {
            index += 1
            branches.append(try parseConcatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseConcatenation() throws(GrammarError) -> RegexNode {
        var parts: [RegexNode] = []
        while let scalar = peek, scalar != "|", scalar != ")" {
            if scalar == "$" {
                index += 1
                // `$` must end its branch; inside a group, the group must then end the pattern (checked as it closes).
                guard atEnd || peek == "|" || peek == ")" else {
                    throw unsupported("anchor `$` in the middle", "only a trailing `$` is supported")
                }
                if !groupsEndingAtAnchor.isEmpty { groupsEndingAtAnchor[groupsEndingAtAnchor.count - 1] = true }
                continue
            }
            if scalar == "^" {
                throw unsupported("anchor `^` in the middle", "only a leading `^` is supported")
            }
            var atom = try parseAtom()
            atom = try parseQuantifiers(atom)
            parts.append(atom)
        }
        return parts.count == 1 ? parts[0] : .concatenation(parts)
    }

    private mutating func parseQuantifiers(_ atom: RegexNode) throws(GrammarError) -> RegexNode {
        var node = atom
        var stacked = 0
        while let scalar = peek {
            var minimum = 0
            var maximum: Int? = nil
            switch scalar {
            case "*": index += 1
            case "+": minimum = 1; index += 1
            case "?": maximum = 1; index += 1
            case "{":
                guard let (low, high) = try parseBraces() else { return node }
                minimum = low
                maximum = high
            default: return node
            }
            if peek == "?" { index += 1 }  // lazy: the same language
            if peek == "+" {
                // Possessive in Swift's Regex (it never gives back, so `a++a` matches nothing), an error in ECMAScript.
                throw unsupported("possessive quantifier `\(scalar)+`", "it matches less than the greedy one, and JSON Schema's regexes have none")
            }
            stacked += 1
            if stacked > Self.maximumStackedQuantifiers {
                throw unsupported(
                    "more than \(Self.maximumStackedQuantifiers) quantifiers in a row", "each one nests the pattern deeper")
            }
            node = .repetition(node, minimum: minimum, maximum: maximum)
        }
        return node
    }

    /// Parses `{m}`, `{m,}` or `{m,n}`; returns nil (literal `{`) when it is not a quantifier.
    private mutating func parseBraces() throws(GrammarError) -> (Int, Int?)? {
        let start = index
        index += 1
        if peek == "," {
            throw unsupported("quantifier `{,n}`", "Swift's Regex reads it as {0,n}, JSON Schema's as text; write {0,n}, or \\{ for the text")
        }
        func number(_ parser: inout RegexParser) -> Int? {
            var value: Int? = nil
            while let s = parser.peek, let digit = s.properties.numericType == .decimal ? Int(String(s)) : nil,
                s.isASCII
            {
                value = min((value ?? 0) * 10 + digit, 1_000_000)
                parser.index += 1
            }
            return value
        }
        guard let low = number(&self) else {
            index = start
            return nil
        }
        var high: Int? = low
        if peek == "," {
            index += 1
            high = number(&self)
        }
        guard peek == "}" else {
            index = start
            return nil
        }
        index += 1
        if let high, high < low { throw invalid("quantifier {\(low),\(high)} has max < min") }
        if low > Self.maximumRepetition || (high ?? 0) > Self.maximumRepetition {
            throw unsupported(
                "repetition count above \(Self.maximumRepetition)", "the automaton unrolls counted repetitions")
        }
        return (low, high)
    }

    private mutating func parseAtom() throws(GrammarError) -> RegexNode {
        let scalar = scalars[index]
        index += 1
        switch scalar {
        case ".":
            return .set(ScalarSet.complement(ScalarSet.lineTerminators))
        case "[":
            return .set(try parseClass())
        case "(":
            if peek == "?" {
                index += 1
                let kind = peek
                if kind == ":" {
                    index += 1
                } else if kind == "<", index + 1 < scalars.count, scalars[index + 1] != "=", scalars[index + 1] != "!" {
                    // Named group: treated as a plain group.
                    while let s = peek, s != ">" { index += 1 }
                    if atEnd { throw invalid("unterminated group name") }
                    index += 1
                } else if kind == "=" {
                    throw unsupported("lookahead `(?=`", "lookaround cannot be compiled to an automaton here")
                } else if kind == "!" {
                    throw unsupported("negative lookahead `(?!`", "lookaround cannot be compiled to an automaton here")
                } else if kind == "<" {
                    throw unsupported("lookbehind `(?<`", "lookaround cannot be compiled to an automaton here")
                } else {
                    throw unsupported("group modifier `(?\(kind.map { String($0) } ?? "")`", "inline flags and special groups are not supported")
                }
            }
            groupDepth += 1
            if groupDepth > Self.maximumGroupDepth {
                throw unsupported("groups nested more than \(Self.maximumGroupDepth) deep", "each level recurses")
            }
            groupsEndingAtAnchor.append(false)
            let inner = try parseAlternation()
            guard peek == ")" else { throw invalid("missing `)`") }
            index += 1
            groupDepth -= 1
            if groupsEndingAtAnchor.removeLast() {
                // A branch inside ends with `$`: only sound when nothing (not even a quantifier) can follow the
                // group, so it must end its own branch, and that branch the pattern in turn.
                guard atEnd || peek == "|" || peek == ")" || peek == "$" else {
                    throw unsupported("anchor `$` in the middle", "only a `$` that ends the whole pattern is supported")
                }
                if !groupsEndingAtAnchor.isEmpty { groupsEndingAtAnchor[groupsEndingAtAnchor.count - 1] = true }
            }
            return inner
        case ")":
            throw invalid("unbalanced `)`")
        case "*", "+", "?":
            throw invalid("quantifier `\(scalar)` without a target")
        case "\\":
            return try parseEscape(inClass: false, negated: false)
        default:
            return .set([scalar.value...scalar.value])
        }
    }

    /// Parses after `\`. In a negated class (`negated`) `\s` and `\S` stand for the most either dialect reads
    /// them as, since the class is their complement.
    private mutating func parseEscape(inClass: Bool, negated: Bool) throws(GrammarError) -> RegexNode {
        guard let scalar = peek else { throw invalid("trailing `\\`") }
        index += 1
        func single(_ value: UInt32) -> RegexNode { .set([value...value]) }
        switch scalar {
        case "d": return .set(ScalarSet.digits)
        case "D": return .set(ScalarSet.complement(ScalarSet.digits))
        case "w": return .set(ScalarSet.word)
        case "W": return .set(ScalarSet.complement(ScalarSet.word))
        case "s": return .set(negated ? ScalarSet.wideSpace : ScalarSet.narrowSpace)
        case "S": return .set(ScalarSet.complement(negated ? ScalarSet.narrowSpace : ScalarSet.wideSpace))
        case "n": return single(0x0A)
        case "t": return single(0x09)
        case "r": return single(0x0D)
        case "f": return single(0x0C)
        case "v": return single(0x0B)
        case "0":
            // `\01` is an octal escape in ECMAScript's web syntax and in Swift's Regex, an error in Unicode mode.
            if let next = peek, ("0"..."9").contains(next) { throw invalid("`\\0` followed by a digit (an octal escape)") }
            return single(0)
        case "b" where inClass: return single(0x08)
        case "b", "B":
            throw unsupported("word boundary `\\\(scalar)`", "assertions are not supported")
        case "A", "z", "Z", "G":
            throw unsupported("anchor `\\\(scalar)`", "only `^` and `$` at the ends are supported")
        case "1"..."9":
            throw unsupported("backreference `\\\(scalar)`", "backreferences are not regular")
        case "k":
            throw unsupported("named backreference `\\k`", "backreferences are not regular")
        case "p", "P":
            throw unsupported("Unicode property `\\\(scalar)`", "property classes are not supported")
        case "x":
            return single(try parseHex(count: 2))
        case "u":
            if peek == "{" {
                index += 1
                var value: UInt32 = 0
                var digits = 0
                while let s = peek, s != "}" {
                    guard let digit = s.properties.isASCIIHexDigit ? UInt32(String(s), radix: 16) : nil else {
                        throw invalid("bad \\u{…} escape")
                    }
                    value = value &* 16 &+ digit
                    digits += 1
                    index += 1
                }
                guard peek == "}", digits > 0, digits <= 6, Unicode.Scalar(value) != nil else {
                    throw invalid("bad \\u{…} escape")
                }
                index += 1
                return single(value)
            }
            let value = try parseHex(count: 4)
            // Two escaped UTF-16 halves (`\ud83d\ude00`) are one scalar, as ECMAScript reads them.
            if (0xD800...0xDBFF).contains(value), let low = escapedLowSurrogate() {
                return single(0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00))
            }
            guard Unicode.Scalar(value) != nil else {
                throw unsupported("surrogate escape `\\u\(String(value, radix: 16))`", "lone surrogates are not scalars")
            }
            return single(value)
        default:
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                throw unsupported("escape `\\\(scalar)`", "unknown escape")
            }
            return single(scalar.value)
        }
    }

    /// The low surrogate of a `\uXXXX` escape that follows, read past; `nil`, with nothing read, when none does.
    private mutating func escapedLowSurrogate() -> UInt32? {
        let start = index
        guard peek == "\\", index + 1 < scalars.count, scalars[index + 1] == "u" else { return nil }
        index += 2
        guard let low = try? parseHex(count: 4), (0xDC00...0xDFFF).contains(low) else {
            index = start
            return nil
        }
        return low
    }

    private mutating func parseHex(count: Int) throws(GrammarError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count {
            guard let s = peek, s.properties.isASCIIHexDigit, let digit = UInt32(String(s), radix: 16) else {
                throw invalid("bad hexadecimal escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    /// Parses after `[` up to and including `]`.
    private mutating func parseClass() throws(GrammarError) -> [ClosedRange<UInt32>] {
        var negated = false
        if peek == "^" {
            negated = true
            index += 1
        }
        var ranges: [ClosedRange<UInt32>] = []
        var first = true
        // Class escapes seen, to read `[\s\S]` (and `[\d\D]`, `[\w\W]`) as every scalar, as both dialects do.
        var escapes: Set<Unicode.Scalar> = []
        while true {
            guard let scalar = peek else { throw invalid("unterminated character class") }
            if scalar == "]" {
                // `[]` matches nothing and `[^]` anything in ECMAScript; other dialects take the `]` as a literal.
                guard !first else { throw unsupported("empty class `[]` or `[^]`", "dialects read it differently; escape the `]` as \\]") }
                index += 1
                break
            }
            if scalar == "[", index + 1 < scalars.count, scalars[index + 1] == ":" {
                throw unsupported("POSIX class `[:`", "use \\d, \\w, \\s or explicit ranges")
            }
            if scalar == "[" {
                throw unsupported("`[` inside a class", "Swift's Regex reads it as a nested class, JSON Schema's as text; escape it as \\[")
            }
            if ["-", "&", "~"].contains(scalar), index + 1 < scalars.count, scalars[index + 1] == scalar {
                throw unsupported("`\(scalar)\(scalar)` inside a class", "Swift's Regex reads it as a set operation, JSON Schema's as text; escape one of them")
            }
            first = false
            if scalar == "\\", index + 1 < scalars.count { escapes.insert(scalars[index + 1]) }
            let low = try parseClassAtom(negated: negated)
            if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                index += 1
                if peek == "-" {
                    throw unsupported("`--` inside a class", "Swift's Regex reads it as a set operation, JSON Schema's as text; escape one of them")
                }
                let high = try parseClassAtom(negated: negated)
                guard case .set(let lowSet) = low, lowSet.count == 1, lowSet[0].count == 1,
                    case .set(let highSet) = high, highSet.count == 1, highSet[0].count == 1
                else { throw invalid("class range with a class escape as an end") }
                let lowValue = lowSet[0].lowerBound
                let highValue = highSet[0].lowerBound
                guard lowValue <= highValue else { throw invalid("class range out of order") }
                ranges.append(lowValue...highValue)
            } else if case .set(let set) = low {
                ranges += set
            }
        }
        if !negated, ["d", "w", "s"].contains(where: { escapes.contains($0) && escapes.contains(Unicode.Scalar($0.value - 0x20)!) }) {
            return ScalarSet.all
        }
        let normalized = ScalarSet.normalized(ranges)
        return negated ? ScalarSet.complement(normalized) : normalized
    }

    private mutating func parseClassAtom(negated: Bool) throws(GrammarError) -> RegexNode {
        let scalar = scalars[index]
        index += 1
        if scalar == "\\" { return try parseEscape(inClass: true, negated: negated) }
        return .set([scalar.value...scalar.value])
    }
}
