/// A parsed regular expression over Unicode scalars.
indirect enum RegexNode: Sendable, Equatable {
    /// One scalar from a set of sorted, disjoint ranges.
    case set([ClosedRange<UInt32>])
    /// The parts in sequence (empty: the empty string).
    case concatenation([RegexNode])
    /// Any one of the branches.
    case alternation([RegexNode])
    /// The node repeated `minimum` to `maximum` times (`nil`: unbounded).
    case repetition(RegexNode, minimum: Int, maximum: Int?)
}

extension RegexNode {
    /// Whether no string matches: an empty set (`[^\s\S]`) the pattern cannot avoid.
    var matchesNothing: Bool {
        switch self {
        case .set(let ranges): ranges.isEmpty
        case .concatenation(let parts): parts.contains(where: \.matchesNothing)
        case .alternation(let branches): branches.allSatisfy(\.matchesNothing)
        case .repetition(let inner, let minimum, _): minimum > 0 && inner.matchesNothing
        }
    }
}

/// Operations on sorted, disjoint scalar range sets.
enum ScalarSet {
    static let all: [ClosedRange<UInt32>] = [0...0xD7FF, 0xE000...0x10FFFF]
    static let digits: [ClosedRange<UInt32>] = [0x30...0x39]
    static let word: [ClosedRange<UInt32>] = [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A]
    /// ECMAScript's `\s` (JSON Schema patterns are ECMA-262 regexes): its white space and line terminators,
    /// Unicode's space separators among them.
    static let space: [ClosedRange<UInt32>] = [
        0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A, 0x2028...0x2029, 0x202F...0x202F,
        0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
    ]
    /// Line terminators `.` does not match (the union of ICU's and ECMAScript's).
    static let lineTerminators: [ClosedRange<UInt32>] = [0x0A...0x0D, 0x85...0x85, 0x2028...0x2029]

    static func normalized(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var result: [ClosedRange<UInt32>] = []
        for range in sorted {
            if let last = result.last, range.lowerBound <= last.upperBound &+ 1 {
                result[result.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return subtract(result, [0xD800...0xDFFF], normalize: false)
    }

    static func complement(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        subtract(all, normalized(ranges), normalize: false)
    }

    static func subtract(
        _ ranges: [ClosedRange<UInt32>], _ removed: [ClosedRange<UInt32>], normalize: Bool = true
    ) -> [ClosedRange<UInt32>] {
        var result: [ClosedRange<UInt32>] = []
        for range in normalize ? normalized(ranges) : ranges {
            var pieces = [range]
            for cut in removed {
                pieces = pieces.flatMap { piece -> [ClosedRange<UInt32>] in
                    if cut.upperBound < piece.lowerBound || cut.lowerBound > piece.upperBound { return [piece] }
                    var parts: [ClosedRange<UInt32>] = []
                    if cut.lowerBound > piece.lowerBound { parts.append(piece.lowerBound...(cut.lowerBound - 1)) }
                    if cut.upperBound < piece.upperBound { parts.append((cut.upperBound + 1)...piece.upperBound) }
                    return parts
                }
            }
            result += pieces
        }
        return result
    }
}
