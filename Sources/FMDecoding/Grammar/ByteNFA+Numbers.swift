/// Exact digit automata for integer and decimal ranges (no leading zeros, no `-0`, no exponent).
extension ByteNFA {
    /// Adds the JSON integers in `low...high` (caller guarantees `|bounds| < 10^18`).
    mutating func addIntegerRange(_ low: Int, _ high: Int, from: Int32, to: Int32) {
        if low < 0 {
            let minus = addLiteral([UInt8(ascii: "-")], from: from)
            addNaturalRange(max(1, -min(high, -1)), -low, from: minus, to: to)
        }
        if high >= 0 { addNaturalRange(max(low, 0), high, from: from, to: to) }
    }

    /// Adds the non-negative integers in `low...high` written without leading zeros.
    mutating func addNaturalRange(_ low: Int, _ high: Int, from: Int32, to: Int32) {
        guard low <= high else { return }
        var power = 1
        for length in 1...19 {
            let lower = length == 1 ? 0 : power
            let upper = power > Int.max / 10 ? Int.max : power * 10 - 1
            let segmentLow = max(low, lower)
            let segmentHigh = min(high, upper)
            if segmentLow <= segmentHigh {
                addSameLength(Array(String(segmentLow).utf8)[...], Array(String(segmentHigh).utf8)[...], from: from, to: to)
            }
            if upper >= high || power > Int.max / 10 { break }
            power *= 10
        }
    }

    /// Adds the digit strings of one length between `low` and `high` (same length, as ASCII digits).
    private mutating func addSameLength(_ low: ArraySlice<UInt8>, _ high: ArraySlice<UInt8>, from: Int32, to: Int32) {
        guard let first = low.first, let last = high.first else {
            addEpsilon(from, to)
            return
        }
        let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9")
        if low.allSatisfy({ $0 == zero }) && high.allSatisfy({ $0 == nine }) {
            // Any digits of this length: a plain chain (keeps the automaton linear in the digit count).
            var current = from
            for index in 0..<low.count {
                let next = index == low.count - 1 ? to : addState()
                addBytes(current, zero, nine, next)
                current = next
            }
            return
        }
        if first == last {
            let next = addState()
            addBytes(from, first, first, next)
            addSameLength(low.dropFirst(), high.dropFirst(), from: next, to: to)
            return
        }
        let restLength = low.count - 1
        let nines = ArraySlice([UInt8](repeating: nine, count: restLength))
        let zeros = ArraySlice([UInt8](repeating: zero, count: restLength))
        let lowNext = addState()
        addBytes(from, first, first, lowNext)
        addSameLength(low.dropFirst(), nines, from: lowNext, to: to)
        if first + 1 <= last - 1 {
            let middle = addState()
            addBytes(from, first + 1, last - 1, middle)
            addSameLength(zeros, nines, from: middle, to: to)
        }
        let highNext = addState()
        addBytes(from, last, last, highNext)
        addSameLength(zeros, high.dropFirst(), from: highNext, to: to)
    }

    /// Adds the JSON numbers (optional fraction of at most `fractionDigits` digits, never ending in `0`) in
    /// `low...high`.
    mutating func addDecimalRange(_ low: DecimalBound, _ high: DecimalBound, fractionDigits: Int, from: Int32, to: Int32) {
        if low.isNegative {
            // Magnitudes of the negative part: max(0, -high) ... -low, never zero.
            let magnitudeLow = high.isNegative ? high.negated : DecimalBound.zero
            let minus = addLiteral([UInt8(ascii: "-")], from: from)
            addNonNegativeDecimals(
                magnitudeLow, low.negated, nonZero: true, fractionDigits: fractionDigits, from: minus, to: to)
        }
        if !high.isNegative {
            let start = low.isNegative ? DecimalBound.zero : low
            addNonNegativeDecimals(start, high, nonZero: false, fractionDigits: fractionDigits, from: from, to: to)
        }
    }

    private mutating func addNonNegativeDecimals(
        _ low: DecimalBound, _ high: DecimalBound, nonZero: Bool, fractionDigits: Int, from: Int32, to: Int32
    ) {
        guard low <= high else { return }
        func literal(_ value: Int) -> Int32 { addLiteral(Array(String(value).utf8), from: from) }
        if low.integer == high.integer {
            let afterInteger = literal(low.integer)
            addFraction(
                low: low.fraction, high: high.fraction, nonZero: nonZero && low.integer == 0,
                digits: fractionDigits, from: afterInteger, to: to)
            return
        }
        let lowInteger = literal(low.integer)
        addFraction(
            low: low.fraction, high: nil, nonZero: nonZero && low.integer == 0, digits: fractionDigits,
            from: lowInteger, to: to)
        if low.integer + 1 <= high.integer - 1 {
            let middle = addState()
            addNaturalRange(low.integer + 1, high.integer - 1, from: from, to: middle)
            addFraction(low: nil, high: nil, nonZero: false, digits: fractionDigits, from: middle, to: to)
        }
        let highInteger = literal(high.integer)
        addFraction(low: nil, high: high.fraction, nonZero: false, digits: fractionDigits, from: highInteger, to: to)
    }

    /// Adds an optional `.digits` whose value `0.digits` lies within `[0.low, 0.high]` (nil = unbounded).
    private mutating func addFraction(low: [UInt8]?, high: [UInt8]?, nonZero: Bool, digits: Int, from: Int32, to: Int32) {
        let lowIsZero = (low ?? []).allSatisfy { $0 == 0 }
        if lowIsZero && !nonZero { addEpsilon(from, to) }
        guard digits > 0 else { return }
        let point = addLiteral([UInt8(ascii: ".")], from: from)
        struct Key: Hashable { var position: Int, lowEqual: Bool, highEqual: Bool, seenNonZero: Bool, lastNonZero: Bool }
        let first = Key(position: 0, lowEqual: low != nil, highEqual: high != nil, seenNonZero: false, lastNonZero: false)
        var states: [Key: Int32] = [first: point]
        var frontier = Array(states.keys)
        while let key = frontier.popLast() {
            let state = states[key]!
            if key.position > 0 {
                let lowRest = (low ?? []).dropFirst(key.position)
                let lowOK = !key.lowEqual || lowRest.allSatisfy { $0 == 0 }
                // Canonical: a fraction never ends in 0, so every value has one spelling.
                if lowOK && key.lastNonZero && (!nonZero || key.seenNonZero) { addEpsilon(state, to) }
            }
            guard key.position < digits else { continue }
            var targets: [(UInt8, Int32)] = []
            for digit in UInt8(0)...9 {
                let lowDigit = key.position < (low?.count ?? 0) ? low![key.position] : 0
                let highDigit = key.position < (high?.count ?? 0) ? high![key.position] : 0
                if key.lowEqual && digit < lowDigit { continue }
                if key.highEqual && digit > highDigit { continue }
                let next = Key(
                    position: key.position + 1, lowEqual: key.lowEqual && digit == lowDigit,
                    highEqual: key.highEqual && digit == highDigit, seenNonZero: key.seenNonZero || digit != 0,
                    lastNonZero: digit != 0)
                let target: Int32
                if let existing = states[next] {
                    target = existing
                } else {
                    target = addState()
                    states[next] = target
                    frontier.append(next)
                }
                targets.append((digit, target))
            }
            var index = 0
            while index < targets.count {
                var end = index
                while end + 1 < targets.count, targets[end + 1].1 == targets[index].1,
                    targets[end + 1].0 == targets[end].0 + 1
                {
                    end += 1
                }
                addBytes(state, 0x30 + targets[index].0, 0x30 + targets[end].0, targets[index].1)
                index = end + 1
            }
        }
    }
}

/// A decimal bound split into sign, integer part and fraction digits (exact decimal of a `Double`'s shortest form).
struct DecimalBound: Comparable, Sendable {
    var isNegative: Bool
    var integer: Int
    /// Fraction digits as values 0...9, without trailing zeros.
    var fraction: [UInt8]

    static let zero = DecimalBound(isNegative: false, integer: 0, fraction: [])

    var negated: DecimalBound {
        var copy = self
        copy.isNegative.toggle()
        if copy.integer == 0 && copy.fraction.isEmpty { copy.isNegative = false }
        return copy
    }

    /// The exact decimal written by Swift's shortest round-trip formatting of `value`, clamped to `±limit`.
    init(_ value: Double, limit: Int) {
        let clamped = min(max(value, -Double(limit)), Double(limit))
        isNegative = clamped < 0
        let parts = DecimalText.plain(abs(clamped)).split(separator: ".", omittingEmptySubsequences: false)
        integer = Int(parts[0]) ?? limit
        fraction = parts.count > 1 ? parts[1].map { UInt8($0.asciiValue! - 48) } : []
        if integer == 0 && fraction.isEmpty { isNegative = false }
    }

    init(isNegative: Bool, integer: Int, fraction: [UInt8]) {
        self.isNegative = isNegative
        self.integer = integer
        self.fraction = fraction
    }

    /// The smallest value with at most `digits` fraction digits that is not below this one.
    func roundedUp(fractionDigits digits: Int) -> DecimalBound {
        fraction.count > digits ? cut(to: digits, awayFromZero: !isNegative) : self
    }

    /// The largest value with at most `digits` fraction digits that is not above this one.
    func roundedDown(fractionDigits digits: Int) -> DecimalBound {
        fraction.count > digits ? cut(to: digits, awayFromZero: isNegative) : self
    }

    /// The fraction cut to `digits` (fewer than it has), plus one unit in the last place kept when rounding away
    /// from zero.
    private func cut(to digits: Int, awayFromZero: Bool) -> DecimalBound {
        var kept = Array(fraction.prefix(max(0, digits)))
        var whole = integer
        if awayFromZero {
            var index = kept.count - 1
            while index >= 0 && kept[index] == 9 {
                kept[index] = 0
                index -= 1
            }
            if index >= 0 { kept[index] += 1 } else { whole += 1 }
        }
        while kept.last == 0 { kept.removeLast() }
        return DecimalBound(isNegative: isNegative && (whole != 0 || !kept.isEmpty), integer: whole, fraction: kept)
    }

    private static func magnitudeLess(_ a: DecimalBound, _ b: DecimalBound) -> Bool {
        if a.integer != b.integer { return a.integer < b.integer }
        return a.fraction.lexicographicallyPrecedes(b.fraction)
    }

    static func < (a: DecimalBound, b: DecimalBound) -> Bool {
        switch (a.isNegative, b.isNegative) {
        case (true, false): return true
        case (false, true): return false
        case (false, false): return magnitudeLess(a, b)
        case (true, true): return magnitudeLess(b, a)
        }
    }
}
