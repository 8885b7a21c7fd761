import FMDecoding
import Testing

/// Exhaustive checks of the digit automata around the bounds.
struct NumberRangeTests {
    @Test(arguments: [(0, 20), (-5, 5), (10, 1000), (-1000, -10), (-37, 0), (0, 0), (7, 7), (-120, 99), (1, 9), (95, 105)])
    func integerRangeIsExact(_ bounds: (Int, Int)) throws {
        let (low, high) = bounds
        var matcher = try SchemaNode.integer(minimum: low, maximum: high).document.matcher()
        let start = matcher
        for n in (low - 150)...(high + 150) {
            matcher = start
            let accepted = matcher.accept(bytes: Array(String(n).utf8)) && matcher.canTerminate
            #expect(accepted == (low...high).contains(n), "n = \(n) in \(low)...\(high)")
        }
        for bad in ["-0", "00", "01", "+1", "1.0", "1e1", "", "-"] {
            #expect(!start.acceptsCompletely(bad), "\(bad) must be rejected")
        }
    }

    @Test func unboundedIntegers() throws {
        let matcher = try SchemaNode.integer(minimum: nil, maximum: nil).document.matcher()
        for text in ["0", "-1", "123456789012345", "-999999999999999"] { #expect(matcher.acceptsCompletely(text), "\(text)") }
        for text in ["1234567890123456", "-0", "007"] { #expect(!matcher.acceptsCompletely(text), "\(text)") }
        let lower = try SchemaNode.integer(minimum: 5, maximum: nil).document.matcher()
        #expect(lower.acceptsCompletely("5") && lower.acceptsCompletely("999999") && !lower.acceptsCompletely("4"))
        let upper = try SchemaNode.integer(minimum: nil, maximum: -3).document.matcher()
        #expect(upper.acceptsCompletely("-3") && upper.acceptsCompletely("-99999") && !upper.acceptsCompletely("-2"))
        #expect(!upper.acceptsCompletely("0"))
    }

    @Test(arguments: [(0.0, 1.0), (-1.5, 2.25), (0.1, 0.35), (-2.0, -0.5), (-0.25, 0.0), (3.0, 3.0), (100.0, 12345.678)])
    func numberRangeIsExact(_ bounds: (Double, Double)) throws {
        let (low, high) = bounds
        let start = try SchemaNode.number(minimum: low, maximum: high).document.matcher()
        // Every value on a 0.005 grid (written with 3 decimals, and trimmed) around the range.
        var step = -400
        while step <= 400 {
            let value = Double(step) * 0.005 + (low + high) / 2
            for text in [formatted(value, decimals: 3), formatted(value, decimals: 2), formatted(value, decimals: 0)] {
                guard let parsed = Double(text) else { continue }
                let canonical = !(text.contains(".") && text.hasSuffix("0"))
                let expected = parsed >= low && parsed <= high && !(parsed == 0 && text.hasPrefix("-")) && canonical
                #expect(start.acceptsCompletely(text) == expected, "\(text) in \(low)...\(high)")
            }
            step += 1
        }
        #expect(!start.acceptsCompletely("-0"))
        #expect(!start.acceptsCompletely("-0.0"))
        #expect(!start.acceptsCompletely("1."))
        #expect(!start.acceptsCompletely(".5"))
    }

    @Test func fractionBoundaries() throws {
        let matcher = try SchemaNode.number(minimum: 0, maximum: 1).document.matcher()
        for text in ["0", "1", "0.5", "0.99999999", "0.05"] { #expect(matcher.acceptsCompletely(text), "\(text)") }
        for text in ["1.00000001", "1.1", "-0.1", "2", "0.123456789", "1.0", "0.50", "0.0"] { #expect(!matcher.acceptsCompletely(text), "\(text)") }
    }

    /// A one-sided bound beyond the unbounded digit count (15) leaves values up to the 18 digits the automaton
    /// writes, not an "empty range"; a bound beyond 18 digits is too large, said so.
    @Test func oneSidedIntegerBoundsBeyondTheUnboundedDigits() throws {
        let above = try SchemaNode.integer(minimum: 10_000_000_000_000_000, maximum: nil).document.matcher()
        #expect(above.acceptsCompletely("10000000000000000") && above.acceptsCompletely("999999999999999999"))
        #expect(!above.acceptsCompletely("9999999999999999") && !above.acceptsCompletely("1000000000000000000"))
        let below = try SchemaNode.integer(minimum: nil, maximum: -10_000_000_000_000_000).document.matcher()
        #expect(below.acceptsCompletely("-10000000000000000") && below.acceptsCompletely("-999999999999999999"))
        #expect(!below.acceptsCompletely("-9999999999999999") && !below.acceptsCompletely("0"))
        for node in [SchemaNode.integer(minimum: Int.max, maximum: nil), .integer(minimum: nil, maximum: Int.min)] {
            #expect { try node.document.matcher() } throws: {
                ($0 as? GrammarError)?.code == .tooLarge && ($0 as? GrammarError)?.construct == "integer range"
            }
        }
    }

    /// A range between two neighbours of the 8-fraction-digit grid has no value the decoder writes: refused as an
    /// empty number range, not as a reference that recurses unconditionally.
    @Test func aRangeBetweenFractionDigitsIsUnsatisfiable() throws {
        for (low, high) in [(0.000000001, 0.000000005), (-0.000000005, -0.000000001), (0.40000000001, 0.40000000009)] {
            #expect { try SchemaNode.number(minimum: low, maximum: high).document.matcher() } throws: {
                ($0 as? GrammarError)?.code == .unsatisfiable && ($0 as? GrammarError)?.construct == "number range"
            }
        }
        let edge = try SchemaNode.number(minimum: 0.000000001, maximum: 0.00000001).document.matcher()
        #expect(edge.acceptsCompletely("0.00000001") && !edge.acceptsCompletely("0"))
        let aroundZero = try SchemaNode.number(minimum: -0.000000001, maximum: 0.000000001).document.matcher()
        #expect(aroundZero.acceptsCompletely("0") && !aroundZero.acceptsCompletely("0.00000001"))
    }

    /// Options outside their ranges are clamped (a negative digit count fed `0..<n` and trapped).
    @Test func outOfRangeOptionsAreClamped() throws {
        let options = Grammar.Options(
            maximumNestingDepth: Int.max, unboundedIntegerDigits: -1, maximumFractionDigits: -3)
        #expect(options.unboundedIntegerDigits == 1 && options.maximumFractionDigits == 0)
        let document = SchemaNode.array(
            items: .number(minimum: nil, maximum: nil), minimumCount: 0, maximumCount: nil, uniqueItems: false
        ).document
        let grammar = try Grammar(compiling: document, options: options)
        let matcher = TokenConstraint(grammar: grammar, vocabulary: TestVocabularies.synthetic).makeMatcher()
        #expect(matcher.acceptsCompletely("[7,-3]"))
        #expect(!matcher.acceptsCompletely("[12]") && !matcher.acceptsCompletely("[1.5]"))
        var changed = Grammar.Options()
        changed.unboundedIntegerDigits = 100
        changed.maximumNestingDepth = -4
        #expect(changed.unboundedIntegerDigits == 18 && changed.maximumNestingDepth == 0)
    }

    private func formatted(_ value: Double, decimals: Int) -> String {
        var scaled = (value * pow10(decimals)).rounded()
        if scaled == 0 { scaled = 0 }
        let negative = scaled < 0
        let digits = String(Int(abs(scaled)))
        if decimals == 0 { return (negative ? "-" : "") + digits }
        let padded = String(repeating: "0", count: max(0, decimals + 1 - digits.count)) + digits
        let integer = padded.dropLast(decimals)
        let fraction = padded.suffix(decimals)
        return (negative ? "-" : "") + integer + "." + fraction
    }

    private func pow10(_ n: Int) -> Double { (0..<n).reduce(1.0) { value, _ in value * 10 } }
}
