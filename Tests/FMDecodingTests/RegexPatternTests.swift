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

    /// Two escaped UTF-16 halves are one scalar, as ECMAScript (and so JSON Schema) reads them, in a class too;
    /// a half alone is refused by name.
    @Test func escapedSurrogatePairsAreOneScalar() throws {
        let matcher = try SchemaNode.string(.pattern(#"^\ud83d\ude00+[\ud83d\ude01-\ud83d\ude03]$"#)).document.matcher()
        #expect(matcher.acceptsCompletely("\"\u{1F600}\u{1F600}\u{1F602}\""))
        #expect(!matcher.acceptsCompletely("\"\u{1F600}\u{1F604}\""))
        for pattern in [#"\ud83d"#, #"\ud83dx"#, #"\ude00"#, #"\ud83d\u0041"#] {
            do {
                _ = try Grammar(compiling: SchemaNode.string(.pattern(pattern)).document)
                Issue.record("/\(pattern)/ should be rejected")
            } catch {
                #expect(error.construct.contains("surrogate"), "\(error.construct)")
            }
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
        // Read one way by Swift's Regex and another by JSON Schema's ECMAScript.
        (#"a{,3}"#, "{,n}"),
        (#"a++a"#, "possessive"),
        (#"\d*+5"#, "possessive"),
        (#"[]a]"#, "empty class"),
        (#"[^]]"#, "empty class"),
        (#"[a-z--[aeiou]]"#, "--"),
        (#"[[a]b]"#, "`[` inside a class"),
        (#"[a&&b]"#, "&&"),
        (#"[a~~b]"#, "~~"),
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

    /// `\d`, `\w`, `\s` and `\S` write only what both dialects match: JSON Schema's ECMAScript (ASCII `\d` and
    /// `\w`, its own `\s`) and Swift's `Regex` (Unicode classes, matched on a `Character`). Every scalar the
    /// decoder allows here is one Swift's `Regex` matches as a user's guide runs it, and the ECMAScript oracle too.
    @Test(arguments: [#"\d"#, #"\w"#, #"\s"#, #"\S"#, #"[^\s]"#, #"[^\S\d]"#, #"[\s\d]"#])
    func classEscapesWriteWhatBothDialectsMatch(_ pattern: String) throws {
        let matcher = try PatternMatcher(pattern: pattern)
        let regex = try Regex(pattern)
        let special: [UInt32] = [0x0D, 0x85, 0xA0, 0x301, 0x663, 0x180E, 0x200B, 0x200D, 0x2028, 0xFEFF, 0x1D7CE]
        let sampled = Array(stride(from: UInt32(0x0), through: 0x3000, by: 3)) + Array(stride(from: UInt32(0x3001), through: 0x1FFFF, by: 97))
        let scalars = (sampled + special).compactMap(Unicode.Scalar.init)
        var allowed = 0
        for scalar in scalars where matcher.matches(String(scalar)) {
            allowed += 1
            #expect((try? regex.wholeMatch(in: String(scalar))) != nil, "/\(pattern)/ allows U+\(String(scalar.value, radix: 16)), Swift's Regex does not match it")
            #expect(PatternOracle.matches(pattern, String(scalar)), "/\(pattern)/ allows U+\(String(scalar.value, radix: 16)), ECMAScript does not match it")
        }
        #expect(allowed > 0)
    }

    /// Spaces the two dialects read differently are not written for `\s` or `\S`: U+0085 and U+FEFF are white
    /// space to one and not the other, and Swift reads a carriage return and line feed as one character.
    @Test func spacesSwiftReadsDifferentlyAreNotWritten() throws {
        let cases: [(String, String)] = [(#"\S"#, "\u{85}"), (#"\s\s"#, "\r\n"), (#"\s"#, "\u{FEFF}"), (#"\S"#, "\u{FEFF}")]
        for (pattern, text) in cases {
            #expect(!(try PatternMatcher(pattern: pattern)).matches(text), "/\(pattern)/ on \(text.debugDescription)")
        }
        // What both read alike is still written, and `[\s\S]` is anything.
        #expect(try PatternMatcher(pattern: #"\W\D.\s"#).matches("!é🙂\u{3000}"))
        #expect(try PatternMatcher(pattern: #"e[\s\S]"#).matches("e\u{301}"))
    }

    /// A pattern no string matches is unsatisfiable, said as such, not an unending value.
    @Test(arguments: [#"[^\s\S]"#, #"a[^\d\D]b"#, #"(?:[^\w\W])+|[^\s\S]"#])
    func aPatternThatMatchesNothingIsUnsatisfiable(_ pattern: String) throws {
        #expect { try Grammar(compiling: SchemaNode.string(.pattern(pattern)).document) } throws: { error in
            (error as? GrammarError)?.code == .unsatisfiable && (error as? GrammarError)?.construct == "string constraints"
        }
        #expect(try PatternMatcher(pattern: #"(?:[^\s\S])*x"#).matches("x"))
    }

    @Test(arguments: [#"(ab"#, #"ab)"#, #"[ab"#, #"*a"#, #"a{3,1}"#, #"[z-a]"#, #"\01"#])
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
