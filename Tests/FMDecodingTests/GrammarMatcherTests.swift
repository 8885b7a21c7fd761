import FMDecoding
import Testing

/// Matcher behaviour: masks, forced bytes, completion, EOS, uniqueness bookkeeping.
struct GrammarMatcherTests {
    let vocabulary = TestVocabularies.synthetic
    var eos: Int { vocabulary.eosTokenIDs[0] }

    func token(_ text: String) -> Int {
        guard let id = (0..<vocabulary.count).first(where: { Array(vocabulary.bytes(of: $0)) == Array(text.utf8) && vocabulary.isUsableInText($0) }) else {
            fatalError("no token \(text.debugDescription)")
        }
        return id
    }

    @Test func forcedBytesCoverKeysAndPunctuation() throws {
        let document = SchemaNode.object(properties: [
            SchemaProperty(name: "label", schema: .string(.choices(["bug", "feature", "featherweight"]))),
            SchemaProperty(name: "ok", schema: .boolean),
        ]).document
        var matcher = try document.matcher()
        #expect(String(decoding: matcher.forcedBytes(), as: UTF8.self) == #"{"label":""#)
        #expect(true == matcher.accept(bytes: matcher.forcedBytes()))
        #expect(matcher.forcedBytes().isEmpty)
        #expect(true == matcher.accept(bytes: Array("fe".utf8)))
        #expect(String(decoding: matcher.forcedBytes(), as: UTF8.self) == "at")  // feat-ure / feat-herweight
        #expect(true == matcher.accept(bytes: Array("atu".utf8)))
        #expect(String(decoding: matcher.forcedBytes(), as: UTF8.self) == #"re","ok":"#)
        #expect(true == matcher.accept(bytes: matcher.forcedBytes()))
        #expect(true == matcher.accept(bytes: Array("true".utf8)))
        #expect(String(decoding: matcher.forcedBytes(), as: UTF8.self) == "}")
        #expect(!matcher.isComplete)
        #expect(true == matcher.accept(bytes: Array("}".utf8)))
        #expect(matcher.isComplete)
        #expect(matcher.forcedBytes().isEmpty)
    }

    @Test func maskAllowsTokensSpanningElementsAndNeverControlTokens() throws {
        let document = SchemaNode.object(properties: [
            SchemaProperty(name: "a", schema: .array(items: .string(.any), minimumCount: 0, maximumCount: nil, uniqueItems: false)),
            SchemaProperty(name: "b", schema: .boolean),
        ]).document
        var matcher = try document.matcher()
        #expect(true == matcher.accept(bytes: Array(#"{"a":["x"#.utf8)))
        var mask = TokenMask(count: vocabulary.count)
        matcher.fillMask(into: &mask)
        #expect(mask.contains(token(#"""#)))
        #expect(mask.contains(token(#""],"#)))
        #expect(mask.contains(token(#"",""#)))
        #expect(mask.contains(token("ab")))
        #expect(!mask.contains(token("\n")))
        #expect(!mask.contains(vocabulary.count - 2))  // control token
        #expect(!mask.contains(eos))
        #expect(true == matcher.accept(token: token(#""],"#)))
        #expect(true == matcher.accept(bytes: matcher.forcedBytes()))
        #expect(String(decoding: matcher.generatedBytes, as: UTF8.self) == #"{"a":["x"],"b":"#)
    }

    @Test func eosOnlyWhenComplete() throws {
        var matcher = try SchemaNode.integer(minimum: 0, maximum: 500).document.matcher()
        var mask = TokenMask(count: vocabulary.count)
        matcher.fillMask(into: &mask)
        #expect(!mask.contains(eos))
        #expect(false == matcher.accept(token: eos))
        #expect(true == matcher.accept(token: token("12")))
        matcher.fillMask(into: &mask)
        #expect(mask.contains(eos))
        #expect(mask.contains(token("0")))
        #expect(!matcher.isComplete)  // 120 may follow
        #expect(true == matcher.accept(token: eos))
        #expect(matcher.isComplete && matcher.isTerminated)
        matcher.fillMask(into: &mask)
        #expect(mask.isEmpty)
    }

    @Test func maskMatchesByteLevelAcceptanceForEveryToken() throws {
        let document = SchemaNode.object(properties: [
            SchemaProperty(name: "art", schema: .string(.choices(["art", "artist"]))),
            SchemaProperty(name: "n", schema: .number(minimum: -1.5, maximum: 2.25), isOptional: true),
            SchemaProperty(name: "u", schema: .array(items: .string(.any), minimumCount: 1, maximumCount: 3, uniqueItems: true)),
        ]).document
        var matcher = try document.matcher()
        var mask = TokenMask(count: vocabulary.count)
        for prefix in [#"{"art":"#, #""ar"#, #"t"#, #"","n":-1."#, #"4"#, #","u":["a"#, #"","#] {
            #expect(true == matcher.accept(bytes: Array(prefix.utf8)), "\(prefix)")
            matcher.fillMask(into: &mask)
            for id in 0..<vocabulary.count {
                var copy = matcher
                let expected = vocabulary.eosTokenIDs.contains(id) ? matcher.canTerminate : copy.accept(token: id)
                #expect(mask.contains(id) == expected, "token \(id) \(Array(vocabulary.bytes(of: id))) after \(prefix)")
            }
        }
        // `"a"` would repeat the first element.
        matcher.fillMask(into: &mask)
        #expect(!mask.contains(token(#""a""#)))
        #expect(false == matcher.accept(bytes: Array(#""a"]"#.utf8)))
        #expect(true == matcher.accept(bytes: Array(#""ab"]}"#.utf8)))
        #expect(matcher.isComplete)
    }

    @Test func finiteUniqueItemsNeverDeadEnd() throws {
        let document = SchemaNode.array(
            items: .string(.choices(["a", "ab", "c"])), minimumCount: 0, maximumCount: 5, uniqueItems: true
        ).document
        var matcher = try document.matcher()
        #expect(true == matcher.accept(bytes: Array(#"["ab","c""#.utf8)))
        var mask = TokenMask(count: vocabulary.count)
        matcher.fillMask(into: &mask)
        #expect(mask.contains(token(",")))
        #expect(true == matcher.accept(bytes: Array(#","a"#.utf8)))
        // "a" is the only value left: the element must close, and then no comma is possible.
        #expect(false == matcher.accept(bytes: Array("b".utf8)))
        #expect(true == matcher.accept(bytes: Array(#"""#.utf8)))
        #expect(false == matcher.accept(bytes: Array(",".utf8)))
        #expect(true == matcher.accept(bytes: Array("]".utf8)))
        #expect(matcher.isComplete)
        // A later array instance at the same position starts afresh.
        let nested = SchemaNode.array(
            items: .array(items: .boolean, minimumCount: 0, maximumCount: 2, uniqueItems: true),
            minimumCount: 0, maximumCount: nil, uniqueItems: false
        ).document
        var second = try nested.matcher()
        #expect(true == second.accept(bytes: Array("[[true,false],[false,true],[true]]".utf8)))
        #expect(!second.acceptsCompletely("[[true,true]]"))
        #expect(second.isComplete)
    }

    /// Enum members that are objects are spelled in the schema's key order but compared canonically (keys sorted):
    /// a member already used is refused where its spelling departs from the others, not once it is complete.
    @Test func objectLiteralItemsAreTrackedByCanonicalValue() throws {
        let members = SchemaNode.anyOf([.literal(#"{"name":"x","id":1}"#), .literal(#"{"name":"y","id":2}"#)])
        let document = SchemaNode.array(items: members, minimumCount: 0, maximumCount: nil, uniqueItems: true).document
        var matcher = try document.matcher()
        #expect(true == matcher.accept(bytes: Array(#"[{"name":"x","id":1},{"name":""#.utf8)))
        #expect(false == matcher.accept(bytes: Array("x".utf8)))
        #expect(true == matcher.accept(bytes: Array(#"y","id":2}"#.utf8)))
        #expect(false == matcher.accept(bytes: Array(",".utf8)))  // both members used
        #expect(true == matcher.accept(bytes: Array("]".utf8)))
        #expect(matcher.isComplete)
        // Two spellings of one value are one value: two unique items cannot be had.
        let permuted = SchemaNode.array(
            items: .anyOf([.literal(#"{"a":1,"b":2}"#), .literal(#"{"b":2,"a":1}"#)]), minimumCount: 2,
            maximumCount: nil, uniqueItems: true
        ).document
        #expect { try permuted.matcher() } throws: { ($0 as? GrammarError)?.code == .unsatisfiable }
    }

    /// Item languages the schema does not list (a pattern with a length guide, a one-value number range) are read
    /// off the automaton: a prefix of only used values is refused at once, and an array needing more distinct
    /// items than there are is refused when compiling instead of dead-ending at the first repeat.
    @Test func finiteItemLanguagesFromTheAutomatonNeverDeadEnd() throws {
        let colours = SchemaNode.string(
            .matching(patterns: ["^(red|rose|blue)$"], minimumLength: 1, maximumLength: nil))
        var matcher = try SchemaNode.array(items: colours, minimumCount: 0, maximumCount: nil, uniqueItems: true)
            .document.matcher()
        #expect(true == matcher.accept(bytes: Array(#"["red","rose",""#.utf8)))
        #expect(false == matcher.accept(bytes: Array("r".utf8)))
        #expect(true == matcher.accept(bytes: Array(#"blue"]"#.utf8)))
        #expect(matcher.isComplete)
        // An integer range reaching past the 18 digits the automaton writes counts only the values it writes:
        // 5 here, not the 11 of the range.
        let edge = SchemaNode.integer(minimum: -1_000_000_000_000_000_005, maximum: -999_999_999_999_999_995)
        for (items, minimum) in [(colours, 4), (SchemaNode.number(minimum: 0, maximum: 0), 2), (edge, 8)] {
            let document = SchemaNode.array(items: items, minimumCount: minimum, maximumCount: nil, uniqueItems: true)
                .document
            #expect { try document.matcher() } throws: { ($0 as? GrammarError)?.code == .unsatisfiable }
        }
        let zero = try SchemaNode.array(
            items: .number(minimum: 0, maximum: 0), minimumCount: 1, maximumCount: nil, uniqueItems: true
        ).document.matcher()
        #expect(zero.acceptsCompletely("[0]") && !zero.acceptsCompletely("[0,0]"))
    }

    /// Items with endlessly many values can still reach a point where every way on repeats an element; a token
    /// leading there is refused, whether the ways branch (`ed"` or `ose"`) or go on past a repeated end (`1` → `10`).
    @Test func tokensBeforeOnlyRepeatedEndingsAreRefused() throws {
        var mask = TokenMask(count: vocabulary.count)
        let named = SchemaNode.array(
            items: .string(.pattern("red|rose|[0-9]+")), minimumCount: 0, maximumCount: nil, uniqueItems: true
        ).document
        var matcher = try named.matcher()
        #expect(true == matcher.accept(bytes: Array(#"["red","rose",""#.utf8)))
        matcher.fillMask(into: &mask)
        #expect(!mask.contains(token("r")))
        #expect(mask.contains(token("7")))
        let numbers = SchemaNode.array(
            items: .anyOf([.string(.any), .integer(minimum: 1, maximum: 12)]), minimumCount: 0, maximumCount: nil,
            uniqueItems: true
        ).document
        var counting = try numbers.matcher()
        #expect(true == counting.accept(bytes: Array("[1,10,11,12,".utf8)))
        counting.fillMask(into: &mask)
        #expect(!mask.contains(token("1")))  // 1, 10, 11 and 12 are all used
        #expect(!mask.contains(token("12")))
        #expect(mask.contains(token("2")) && mask.contains(token(#"""#)))
    }

    /// An element that is a reference returns from the reference's rule before its end is checked; a repeated end
    /// must leave nothing behind: a finished reference that stayed live would keep the step alive, into a dead end.
    @Test func aRepeatedElementThroughAReferenceIsRefusedAtItsEnd() throws {
        let tree = SchemaNode.anyOf([
            .boolean, .object(properties: [SchemaProperty(name: "r", schema: .reference("R"), isOptional: true)]),
        ])
        let document = SchemaDocument(
            root: .array(items: .reference("R"), minimumCount: 0, maximumCount: nil, uniqueItems: true),
            definitions: ["R": tree])
        var matcher = try document.matcher()
        #expect(true == matcher.accept(bytes: Array(#"[{"r":false},{"r":"#.utf8)))
        var mask = TokenMask(count: vocabulary.count)
        matcher.fillMask(into: &mask)
        #expect(!mask.contains(token("false")) && mask.contains(token("true")))
        #expect(true == matcher.accept(bytes: Array("false".utf8)))
        #expect(false == matcher.accept(bytes: Array("}".utf8)))
    }

    /// Bounds at the edges of what the automaton can hold give a typed error or a bounded automaton, never a
    /// trap, a runaway build or a value outside the schema.
    @Test func extremeBoundsAreRefusedOrBoundedNeverOverflowed() throws {
        // The widest integer range: its span overflows Int, so it is not a finite set of values.
        let wide = SchemaNode.array(
            items: .integer(minimum: Int.min, maximum: Int.max), minimumCount: 0, maximumCount: 3, uniqueItems: true
        ).document
        let anyIntegers = try wide.matcher()
        #expect(anyIntegers.acceptsCompletely("[1,-2,300]"))
        // A billion unique strings would unroll a billion elements: too large, said so.
        let huge = SchemaNode.array(items: .string(.any), minimumCount: 0, maximumCount: 1_000_000_000, uniqueItems: true).document
        #expect { try huge.matcher() } throws: { ($0 as? GrammarError)?.code == .tooLarge }
        // With few values, a large maximum is the number of values.
        let booleans = SchemaNode.array(items: .boolean, minimumCount: 0, maximumCount: 1_000_000_000, uniqueItems: true).document
        let pair = try booleans.matcher()
        #expect(pair.acceptsCompletely("[true,false]"))
        // A number range wholly beyond the decimal automaton has no value it could write.
        for node in [SchemaNode.number(minimum: 1e16, maximum: nil), .number(minimum: nil, maximum: -1e16),
                     .number(minimum: 999_999_999_999_999.5, maximum: nil)] {
            #expect { try node.document.matcher() } throws: { ($0 as? GrammarError)?.code == .tooLarge }
        }
        let inRange = try SchemaNode.number(minimum: 1e14, maximum: 1e20).document.matcher()
        #expect(inRange.acceptsCompletely("100000000000001"))
    }

    @Test func unicodeAndInvalidUTF8() throws {
        var matcher = try SchemaNode.string(.any).document.matcher()
        #expect(true == matcher.accept(bytes: [0x22, 0xC3]))
        #expect(false == matcher.accept(bytes: [0x22]))  // incomplete sequence cannot be closed
        #expect(false == matcher.accept(bytes: [0xC3]))  // not a continuation byte
        #expect(true == matcher.accept(bytes: [0xA9, 0x22]))
        #expect(matcher.isComplete)
        let plain = try SchemaNode.string(.any).document.matcher()
        for bad: [UInt8] in [[0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], [0x22, 0x01, 0x22]] {
            var copy = plain
            #expect(false == copy.accept(bytes: bad), "\(bad)")
        }
    }

    @Test func choicesSharingPrefixes() throws {
        var matcher = try SchemaNode.string(.choices(["art", "artist", "arts"])).document.matcher()
        #expect(true == matcher.accept(bytes: Array(#""art"#.utf8)))
        var mask = TokenMask(count: vocabulary.count)
        matcher.fillMask(into: &mask)
        #expect(mask.contains(token(#"""#)) && mask.contains(token("i")) && mask.contains(token("s")))
        #expect(!mask.contains(token("a")))
        #expect(true == matcher.accept(bytes: Array("i".utf8)))
        #expect(String(decoding: matcher.forcedBytes(), as: UTF8.self) == #"st""#)
    }
}

/// Fixed-length patterns in unique arrays: a token that can only be followed by a repeated element is refused.
struct ForcedCompletionTests {
    @Test func tokenBeforeARepeatedForcedEndingIsRefused() throws {
        let vocabulary = TokenVocabulary(
            tokens: (0...255).map { [UInt8($0)] } + [Array("0000".utf8), []], eosTokenIDs: [257])
        let document = SchemaNode.array(
            items: .string(.pattern(#"\d{3}-\d{4}"#)), minimumCount: 1, maximumCount: nil, uniqueItems: true
        ).document
        var matcher = try document.matcher(vocabulary: vocabulary)
        #expect(true == matcher.accept(bytes: Array(#"["000-0000","000-"#.utf8)))
        var mask = TokenMask(count: vocabulary.count)
        matcher.fillMask(into: &mask)
        #expect(!mask.contains(256))  // "0000" would leave only a repeated element
        #expect(mask.contains(Int(UInt8(ascii: "0"))) && mask.contains(Int(UInt8(ascii: "1"))))
        #expect(true == matcher.accept(bytes: Array("000".utf8)))
        matcher.fillMask(into: &mask)
        #expect(!mask.contains(Int(UInt8(ascii: "0"))) && mask.contains(Int(UInt8(ascii: "1"))))
    }
}
