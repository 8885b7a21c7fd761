import FMDecoding
import Foundation
import Testing

/// Regex features compiled into string guides, checked against Swift Regex as the oracle.
struct RegexPatternTests {
    static let rows: [(String, [String])] = [
        (#"[a-c]+"#, ["a", "abc", "", "abd", "cab"]),
        (#"[^a-c]x"#, ["dx", "ax", "éx", "\"x", "xx"]),
        (#"\d{3}-\d{2,4}"#, ["123-45", "123-4567", "123-45678", "12-45"]),
        (#"\w+\s\W\S"#, ["ab_1 !x", "ab !", "a  x", "a\t.é"]),
        (#"\D\d"#, ["a1", "11", "é2"]),
        (#"\S\s"#, ["a\u{00A0}", "\u{00A0} ", "a\u{3000}", "\u{2028}x", "x\u{2009}", "\u{202F}\u{202F}"]),
        (#"a.c"#, ["abc", "a\nc", "aéc", "a\"c", "ac"]),
        (#"(?:ab|cd)*e?"#, ["", "abcd", "abcde", "abc", "e"]),
        (#"(x|yz){2}"#, ["xx", "xyz", "yzyz", "x", "xxx"]),
        (#"a{3}"#, ["aaa", "aa", "aaaa"]),
        (#"a{2,}"#, ["aa", "aaaaa", "a"]),
        (#"colou?r"#, ["color", "colour", "colouur"]),
        (#"^start.*end$"#, ["startend", "start middle end", "start"]),
        (#"[A-Z][a-z]*(?<rest>[0-9])"#, ["Abc1", "A1", "abc1"]),
        (#"\x41\u00e9\u{1F600}"#, ["Aé😀", "Ae😀"]),
        (#"[\]\-\\]+"#, ["]-\\", "]", "a"]),
        (#"\.\*\+\?\(\)\[\]\{\}\|\^\$"#, [".*+?()[]{}|^$"]),
        (#"a+?b*?"#, ["a", "aab", "b"]),
        (#"[\t\n ]"#, ["\t", "\n", " ", "x"]),
        (#"\"[^"]*\""#, ["\"quoted\"", "\"a\"b\""]),
        (#"[a-z]{1,3}(\.[a-z]{1,3}){0,2}"#, ["ab", "ab.cd", "ab.cd.ef", "ab.cd.ef.gh", "ab."]),
        // A `$` ending a branch inside a group that itself ends the pattern.
        (#"(a$|b)"#, ["a", "b", "ax", "bx", ""]),
        (#"^(\d+$|\d+\.\d+)$"#, ["12", "1.5", "12x", "1.5x", "."]),
    ]

    @Test(arguments: rows)
    func matchesLikeSwiftRegex(_ row: (String, [String])) throws {
        let (pattern, samples) = row
        let start = try SchemaNode.string(.pattern(pattern)).document.matcher()
        for sample in samples {
            let json = String(decoding: (try? JSONTextEncoder.quoted(sample)) ?? [], as: UTF8.self)
            let expected = PatternOracle.matches(pattern, sample)
            #expect(start.acceptsCompletely(json) == expected, "/\(pattern)/ on \(sample.debugDescription) → \(json)")
        }
    }

    static let unsupported: [(String, String)] = [
        (#"(a)\1"#, "backreference"),
        (#"a(?=b)"#, "lookahead"),
        (#"a(?!b)"#, "negative lookahead"),
        (#"(?<=a)b"#, "lookbehind"),
        (#"(?<!a)b"#, "lookbehind"),
        (#"\bword\b"#, "word boundary"),
        (#"a^b"#, "anchor"),
        (#"a$b"#, "anchor"),
        (#"\p{L}"#, "Unicode property"),
        (#"(?i)abc"#, "group modifier"),
        (#"a{2000}"#, "repetition count"),
        (#"[[:alpha:]]"#, "POSIX class"),
        (#"\k<x>"#, "named backreference"),
    ]

    @Test(arguments: unsupported)
    func unsupportedConstructsAreNamed(_ row: (String, String)) {
        let (pattern, construct) = row
        do {
            _ = try Grammar(compiling: SchemaNode.string(.pattern(pattern)).document)
            Issue.record("/\(pattern)/ should be rejected")
        } catch {
            #expect(error.code == .unsupportedPattern, "\(error)")
            #expect(error.construct.contains(construct), "\(error.construct) should name \(construct)")
        }
    }

    /// Search patterns are wrapped as `[\s\S]*(?:…)[\s\S]*`: a `$` inside a group is then followed by more
    /// pattern and must be refused, not dropped (dropping it let `(a$|b)` match "ax").
    @Test(arguments: [#"(a$|b)"#, #"^(\d+$|\d+\.\d+)"#, #"(a$)*"#, #"((a$)|b)c"#])
    func anAnchorThatDoesNotEndThePatternIsRefused(_ pattern: String) {
        do {
            _ = try PatternMatcher(searching: pattern)
            Issue.record("/\(pattern)/ should be rejected as a search pattern")
        } catch {
            #expect(error.code == .unsupportedPattern, "\(error)")
            #expect(error.construct.contains("anchor"), "\(error.construct) should name the anchor")
        }
    }

    @Test func anAnchorEndingTheWholeSearchPatternIsEnforced() throws {
        let matcher = try PatternMatcher(searching: #"^(\d+$|\d+\.\d+)$"#)
        #expect(matcher.matches("12") && matcher.matches("1.5"))
        #expect(!matcher.matches("12x") && !matcher.matches("x12"))
        let branches = try PatternMatcher(searching: #"(a$|b)$"#)
        #expect(branches.matches("xa") && branches.matches("ab"))
        #expect(!branches.matches("ax"))
    }

    /// Three wide search patterns together: the product's first state alone has hundreds of millions of edge
    /// combinations, so the size limit must stop the construction as it goes rather than after it.
    @Test func aWideIntersectionIsRefusedAsItGrows() throws {
        let search = try PatternMatcher.wholeMatchSource(
            searching: (0..<300).map { "a\($0)" }.joined(separator: "|"))
        let node = SchemaNode.string(
            .matching(patterns: [search, search, search], minimumLength: 0, maximumLength: nil))
        #expect { try node.document.matcher() } throws: { ($0 as? GrammarError)?.code == .tooLarge }
    }

    @Test(arguments: [#"(ab"#, #"ab)"#, #"[ab"#, #"*a"#, #"a{3,1}"#, #"[z-a]"#])
    func malformedPatternsAreInvalid(_ pattern: String) {
        #expect(throws: GrammarError.self) { try Grammar(compiling: SchemaNode.string(.pattern(pattern)).document) }
    }
}

/// Encodes a string the way a JSON encoder may (escaping only what must be escaped).
enum JSONTextEncoder {
    static func quoted(_ text: String) throws -> [UInt8] {
        var bytes: [UInt8] = [0x22]
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": bytes += Array(#"\""#.utf8)
            case "\\": bytes += Array(#"\\"#.utf8)
            case "\n": bytes += Array(#"\n"#.utf8)
            case "\t": bytes += Array(#"\t"#.utf8)
            case "\r": bytes += Array(#"\r"#.utf8)
            case "\u{08}": bytes += Array(#"\b"#.utf8)
            case "\u{0C}": bytes += Array(#"\f"#.utf8)
            default:
                if scalar.value < 0x20 {
                    bytes += Array(String(format: "\\u%04x", scalar.value).utf8)
                } else {
                    bytes += Array(String(scalar).utf8)
                }
            }
        }
        bytes.append(0x22)
        return bytes
    }
}
