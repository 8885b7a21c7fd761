import FMDecoding
import Foundation
import Testing

/// Random and hostile patterns: the regex parser and the automata built from its output either succeed or throw
/// ``GrammarError`` — never a trap, a stack overflow, a hang or an allocation sized by repetition counts.
struct RegexParserFuzzTests {
    /// Metacharacters and the letters that follow `\`, `(?` and `{` in the supported syntax, weighted toward
    /// structure so most strings exercise groups, classes and quantifiers.
    static let alphabet: [String] = [
        "a", "b", "é", "(", ")", "(?:", "(?<n>", "(?=", "[", "]", "[^", "{", "}", "{2}", "{1,3}", "{0,}", ",", "|",
        "*", "+", "?", ".", "^", "$", "\\", "\\d", "\\w", "\\s", "\\u", "\\x4", "\\u{1F600}", "-", "0", "9", "1000",
    ]

    static let expectedCodes: [GrammarError.Code] = [.invalidPattern, .unsupportedPattern, .tooLarge]

    @Test func randomMetacharacterStringsParseOrThrow() {
        var rng = SeededGenerator(seed: 0x2E6E)
        var compiled = 0
        var refused = 0
        for iteration in 0..<4000 {
            let pattern = (0..<Int.random(in: 0...14, using: &rng)).map { _ in Self.alphabet.randomElement(using: &rng)! }.joined()
            do {
                let matcher = try PatternMatcher(pattern: pattern)
                compiled += 1
                // Matching runs the automaton the parse produced; it must not trap on any input.
                for sample in ["", "a", "ab", "aaaa", "é😀", "(a)", "12,3"] { _ = matcher.matches(sample) }
                _ = matcher.matchesNothing
            } catch {
                refused += 1
                #expect(Self.expectedCodes.contains(error.code), "/\(pattern)/: \(error)")
            }
            // Search semantics and grammar compilation wrap the pattern in more syntax; they must fail the same way.
            _ = try? PatternMatcher(searching: pattern)
            if iteration % 8 == 0 { _ = try? Grammar(compiling: SchemaNode.string(.pattern(pattern)).document) }
        }
        #expect(compiled > 400 && refused > 400, "compiled \(compiled), refused \(refused)")
    }

    /// Counted repetitions that would unroll to millions or billions of states, alone or nested.
    @Test(arguments: [
        "a{1000000000}", "a{0,1000000000}", "a{1000000000,}", "a{99999999999999999999999}", "a{1001}",
        "(a{1000}){1000}", "((a{1000}){1000}){1000}", "a{1000}{1000}", "(?:[a-z]{100}){300}",
        "((a?){1000}){20}", "((?:){1000}){19}", "(((a|b){10}){10}){10}{10}",
    ])
    func hugeRepetitionsAreTypedErrors(_ pattern: String) {
        let elapsed = ContinuousClock().measure { Self.expectRefused(pattern) }
        // About a second on a busy machine; unbounded, these ran for minutes and took gigabytes.
        #expect(elapsed < .seconds(10), "/\(pattern)/ took \(elapsed)")
    }

    static func expectRefused(_ pattern: String) {
        do {
            _ = try PatternMatcher(pattern: pattern)
            Issue.record("/\(pattern)/ compiled")
        } catch {
            #expect(error.code == .unsupportedPattern || error.code == .tooLarge, "\(error)")
        }
        // The grammar unrolls patterns into its own automaton under its own state limit: refused or built, in time.
        do {
            _ = try Grammar(compiling: SchemaNode.string(.pattern(pattern)).document)
        } catch {
            #expect(expectedCodes.contains(error.code), "\(error)")
        }
    }

    /// The limits leave room for real patterns: the largest single count, and a long chain of optional steps.
    @Test func patternsWithinTheLimitsStillCompile() throws {
        let thousand = String(repeating: "a", count: 1000)
        #expect(try PatternMatcher(pattern: "a{1000}").matches(thousand))
        // Every state of a chain of optional steps reaches every later one: 45,000 steps of ε-removal, within the limit.
        let optional = try PatternMatcher(pattern: "(a?){300}")
        #expect(optional.matches("aa") && !optional.matches("ab"))
        #expect(try PatternMatcher(pattern: "(?:[a-z]{1,3}\\.){0,100}[a-z]+").matches("ab.c.def.g"))
        let nested = String(repeating: "(", count: 128) + "a" + String(repeating: ")", count: 128)
        #expect(try PatternMatcher(pattern: nested).matches("a"))
        #expect(try PatternMatcher(pattern: "a{2}{3}").matches("aaaaaa"))
    }

    /// Nesting that each parser level, automaton builder and node destructor would otherwise recurse through.
    @Test(arguments: [
        NamedPattern("100,000 `(`", String(repeating: "(", count: 100_000)),
        NamedPattern("100,000 nested groups", String(repeating: "(", count: 100_000) + "a" + String(repeating: ")", count: 100_000)),
        NamedPattern("100,000 nested `(?:`", String(repeating: "(?:", count: 100_000) + "a" + String(repeating: ")", count: 100_000)),
        NamedPattern("100,000 nested alternations", String(repeating: "(a|", count: 100_000) + "b" + String(repeating: ")", count: 100_000)),
        NamedPattern("129 nested groups", String(repeating: "(", count: 129) + "a" + String(repeating: ")", count: 129)),
        NamedPattern("100,000 `*`", "a" + String(repeating: "*", count: 100_000)),
        NamedPattern("100,000 `{1,2}`", "a" + String(repeating: "{1,2}", count: 100_000)),
        NamedPattern("five `??`", "a" + String(repeating: "?", count: 10)),  // `??` is lazy: five quantifiers
    ])
    func deepNestingIsATypedError(_ pattern: NamedPattern) {
        #expect(throws: GrammarError.self) { try PatternMatcher(pattern: pattern.text) }
        #expect(throws: GrammarError.self) { try Grammar(compiling: SchemaNode.string(.pattern(pattern.text)).document) }
    }

    @Test func longFlatPatternsAreFine() throws {
        // Length alone is not depth: long alternations and classes parse iteratively.
        let alternation = (0..<4000).map { "a\($0 % 10)" }.joined(separator: "|")
        #expect(try PatternMatcher(pattern: alternation).matches("a7"))
        let characterClass = "[" + String(repeating: "a-z0-9_", count: 15_000) + "]+"
        #expect(try PatternMatcher(pattern: characterClass).matches("x_9"))
    }
}

/// A test pattern named for the test log, which would otherwise print all of a 100,000-character argument.
struct NamedPattern: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String

    init(_ name: String, _ text: String) {
        self.name = name
        self.text = text
    }

    var testDescription: String { name }
}
