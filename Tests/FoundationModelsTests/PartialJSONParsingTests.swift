import FMLlama
import FoundationModels
import Testing

struct PartialJSONParsingTests {
    /// Valid documents whose every prefix must parse.
    static let documents: [String] = [
        #"{"title": "A story of", "pages": 12, "tags": ["a", "b"], "done": false}"#,
        #"{"a": {"b": {"c": [1, [2, [3, {"d": null}]]]}}, "e": true}"#,
        #"{"escapes": "quote \" slash \/ back \\ nl \n tab \t \u00e9 \ud83d\ude00 end"}"#,
        #"["ünïcödé 日本語 😀", "", "x"]"#,
        #"{"numbers": [0, -1, 3.25, -0.5e-3, 6.02E+23, 1e2, 10]}"#,
        #"[true, false, null, {"k": [true]}]"#,
        "  {\n  \"spaced\" :\t[ 1 , 2 ] ,\r\n \"s\" : \"v\" }",
        #""just a string with \"escapes\" and é""#,
        "[]",
        "{}",
        "null",
    ]

    @Test(arguments: documents)
    func everyPrefixParses(_ document: String) throws {
        let final = try GeneratedContent(json: document)
        #expect(final.isComplete)
        var prefix = ""
        for character in document.unicodeScalars {
            let partial = try GeneratedContent(json: prefix)
            #expect(!partial.isComplete, "prefix \(prefix) should be incomplete")
            #expect(Self.isConsistent(partial, with: final), "prefix \(prefix) parsed as \(partial.jsonString)")
            prefix.unicodeScalars.append(character)
        }
    }

    @Test func truncatedStringKeepsItsText() throws {
        let content = try GeneratedContent(json: #"{"title": "A story of"#)
        #expect(try content.value(String.self, forProperty: "title") == "A story of")
        #expect(!content.isComplete)
        guard case .structure(let properties, _) = content.kind else { return }
        #expect(properties["title"]?.isComplete == false)
    }

    @Test(arguments: [
        (#"{"a": tr"#, #"{"a":true}"#),
        (#"{"a": n"#, #"{"a":null}"#),
        (#"{"a": 1.5e"#, #"{"a":1.5}"#),
        (#"{"a": -"#, "{}"),
        (#"{"a""#, "{}"),
        (#"{"a"#, "{}"),
        (#"["x\"#, #"["x"]"#),
        (#"["x\u00"#, #"["x"]"#),
        (#"["\ud83d"#, #"[""]"#),
        (#"["\ud83d\ude"#, #"[""]"#),
        (#"[1, 2,"#, "[1,2]"),
        (#"{"a": {"b": ["#, #"{"a":{"b":[]}}"#),
    ])
    func truncationsKeepWhatIsKnown(_ prefix: String, _ expected: String) throws {
        let content = try GeneratedContent(json: prefix)
        #expect(content.compactJSONString == expected)
        #expect(!content.isComplete)
    }

    @Test func completedNestedValuesAreMarkedComplete() throws {
        let content = try GeneratedContent(json: #"{"done": "yes", "list": [1, 2], "open": "no"#)
        guard case .structure(let properties, _) = content.kind else {
            Issue.record("expected a structure")
            return
        }
        #expect(properties["done"]?.isComplete == true)
        #expect(properties["list"]?.isComplete == true)
        #expect(properties["open"]?.isComplete == false)
    }

    @Test func topLevelNumberIsCompleteAtTheEnd() throws {
        #expect(try GeneratedContent(json: "42").isComplete)
        #expect(try !GeneratedContent(json: "4.").isComplete)
        #expect(try !GeneratedContent(json: "").isComplete)
    }

    @Test(arguments: [
        "{]", "[1 2]", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "{a:1}", "tru e", "nul!", "01", "1.x", "-a", "\"\\x\"",
        "\"\\u12G4\"", "\"line\nbreak\"", "{} {}", "[1]]", "+1", "'single'", "{\"a\":1 \"b\":2}", ".5",
    ])
    func malformedJSONThrows(_ text: String) {
        #expect(throws: DecodingError.self) { try GeneratedContent(json: text) }
    }

    @Test func deepNestingThrowsInsteadOfCrashing() {
        let deep = String(repeating: "[", count: 10_000)
        #expect(throws: DecodingError.self) { try GeneratedContent(json: deep) }
    }

    @Test func duplicateKeysKeepTheLastValue() throws {
        #expect(try GeneratedContent(json: #"{"a":1,"b":2,"a":3}"#).compactJSONString == #"{"a":3,"b":2}"#)
    }

    @Test func randomTreesRoundTripExactly() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        for _ in 0..<300 {
            let content = Self.randomContent(depth: 0, using: &generator)
            let parsed = try GeneratedContent(json: content.jsonString)
            #expect(parsed == content, "\(content.jsonString)")
            #expect(parsed.jsonString == content.jsonString)
        }
    }

    // MARK: Helpers

    /// Whether `partial` could grow into `final`: strings are prefixes, containers hold consistent prefixes.
    static func isConsistent(_ partial: GeneratedContent, with final: GeneratedContent) -> Bool {
        switch (partial.kind, final.kind) {
        case (.null, _) where !partial.isComplete:
            return true
        case (.string(let prefix), .string(let whole)):
            return partial.isComplete ? prefix == whole : whole.hasPrefix(prefix)
        case (.number(let value), .number(let whole)):
            // A truncated number (say `1.5e` of `1.5e-3`) can be far from the final value; only check complete ones.
            return !partial.isComplete || value == whole
        case (.bool(let value), .bool(let whole)):
            return value == whole
        case (.null, .null):
            return true
        case (.array(let elements), .array(let all)):
            guard elements.count <= all.count else { return false }
            return zip(elements, all).allSatisfy { isConsistent($0, with: $1) }
        case (.structure(let properties, let keys), .structure(let all, let allKeys)):
            guard Array(allKeys.prefix(keys.count)) == keys else { return false }
            return keys.allSatisfy { key in isConsistent(properties[key]!, with: all[key]!) }
        default:
            return false
        }
    }

    static func randomContent(depth: Int, using generator: inout SeededGenerator) -> GeneratedContent {
        let choice = Int(generator.next() % (depth > 3 ? 4 : 6))
        switch choice {
        case 0: return .null
        case 1: return GeneratedContent(kind: .bool(generator.next() % 2 == 0))
        case 2:
            let numbers: [Double] = [
                Double(Int64(bitPattern: generator.next()) >> 20),
                Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF) * (generator.next() % 2 == 0 ? 1 : -1),
                Double(generator.next() % 10_000) / 100,
            ]
            return GeneratedContent(kind: .number(numbers[Int(generator.next() % 3)]))
        case 3: return GeneratedContent(kind: .string(randomString(using: &generator)))
        case 4:
            let count = Int(generator.next() % 5)
            return GeneratedContent(kind: .array((0..<count).map { _ in randomContent(depth: depth + 1, using: &generator) }))
        default:
            let count = Int(generator.next() % 5)
            var properties: [String: GeneratedContent] = [:]
            var keys: [String] = []
            for _ in 0..<count {
                let key = randomString(using: &generator)
                if properties[key] == nil { keys.append(key) }
                properties[key] = randomContent(depth: depth + 1, using: &generator)
            }
            return GeneratedContent(kind: .structure(properties: properties, orderedKeys: keys))
        }
    }

    static func randomString(using generator: inout SeededGenerator) -> String {
        let pool: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "é", "日", "😀",
                                      "\u{2028}", "\u{FFFD}", "{", "]", ":", ","]
        var text = String.UnicodeScalarView()
        for _ in 0..<Int(generator.next() % 8) {
            text.append(pool[Int(generator.next() % UInt64(pool.count))])
        }
        return String(text)
    }
}
