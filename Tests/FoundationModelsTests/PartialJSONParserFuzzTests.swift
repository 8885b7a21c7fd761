import FMLlama
import FoundationModels
import Testing

/// Random documents, their prefixes and mutations, and hostile nesting: the partial JSON parser returns a value or
/// throws `DecodingError`, and never traps or overflows the stack.
struct PartialJSONParserFuzzTests {
    /// Random trees in both spellings the package writes; each one's text and the tree it must parse back to.
    static func documents(count: Int, seed: UInt64) -> [(text: String, content: GeneratedContent)] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).flatMap { _ in
            let content = PartialJSONParsingTests.randomContent(depth: 0, using: &generator)
            return [(content.jsonString, content), (content.compactJSONString, content)]
        }
    }

    @Test func everyPrefixOfRandomDocumentsParses() throws {
        for (text, content) in Self.documents(count: 400, seed: 0x9A87) {
            let whole = try GeneratedContent(json: text)
            #expect(whole == content && whole.isComplete, "\(text) parsed as \(whole.compactJSONString)")
            // A top-level number is complete at every digit (`1` of `12`), so only containers and strings grow.
            var isNumber = false
            if case .number = content.kind { isNumber = true }
            var prefix = String.UnicodeScalarView()
            for scalar in text.unicodeScalars {
                let partial = try GeneratedContent(json: String(prefix))
                if !isNumber {
                    #expect(!partial.isComplete, "prefix \(String(prefix)) of \(text) is complete")
                    #expect(PartialJSONParsingTests.isConsistent(partial, with: content),
                            "prefix \(String(prefix)) parsed as \(partial.compactJSONString)")
                }
                prefix.append(scalar)
            }
        }
    }

    /// Characters that change JSON's structure, for mutations that reach deeper than random text would.
    static let structural: [Unicode.Scalar] = [
        "{", "}", "[", "]", ":", ",", "\"", "\\", "u", "0", "9", "-", "+", ".", "e", "E", "t", "n", "f", " ", "\n",
        "\u{0}", "\u{1F}", "\u{7F}", "é", "😀", "\u{FFFD}", "\u{D7FF}",
    ]

    @Test func randomMutationsParseOrThrowDecodingError() {
        var generator = SeededGenerator(seed: 0x3C3C)
        var parsed = 0
        var failed = 0
        for (text, _) in Self.documents(count: 300, seed: 0x77) {
            for _ in 0..<6 {
                var scalars = Array(text.unicodeScalars)
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let position = Int.random(in: 0...scalars.count, using: &generator)
                    let symbol = Self.structural.randomElement(using: &generator)!
                    switch Int.random(in: 0..<5, using: &generator) {
                    case 0: scalars.insert(symbol, at: position)
                    case 1 where position < scalars.count: scalars[position] = symbol
                    case 2 where position < scalars.count: scalars.remove(at: position)
                    case 3: scalars.removeSubrange(position...)  // truncation
                    default:
                        // A copy of another stretch of the document, which nests or repeats structure.
                        let start = Int.random(in: 0...scalars.count, using: &generator)
                        let end = min(scalars.count, start + Int.random(in: 0...20, using: &generator))
                        scalars.insert(contentsOf: scalars[start..<end], at: position)
                    }
                }
                let mutant = String(String.UnicodeScalarView(scalars))
                do {
                    _ = try GeneratedContent(json: mutant)
                    parsed += 1
                } catch is DecodingError {
                    failed += 1
                } catch {
                    Issue.record("\(mutant) threw \(type(of: error)): \(error)")
                }
            }
        }
        #expect(parsed > 200 && failed > 200, "parsed \(parsed), failed \(failed)")
    }

    @Test func randomBytesParseOrThrowDecodingError() {
        var generator = SeededGenerator(seed: 0xB17E5)
        for _ in 0..<3000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                // Half JSON punctuation, half any byte (invalid UTF-8 decodes to U+FFFD).
                Bool.random(using: &generator)
                    ? UInt8.random(in: 0...255, using: &generator)
                    : Array("{}[]:,\"\\0123456789-.eEtruefalsn ".utf8).randomElement(using: &generator)!
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                _ = try GeneratedContent(json: text)
            } catch is DecodingError {
            } catch {
                Issue.record("\(text.debugDescription) threw \(type(of: error)): \(error)")
            }
        }
    }

    /// Texts nested far past the parser's depth limit, complete or cut off (named, so the log does not print them).
    enum DeepText: CaseIterable, Sendable {
        case openArrays, balancedArrays, openObjects, arraysOfObjects, arraysAfterElements

        var text: String {
            switch self {
            case .openArrays: String(repeating: "[", count: 100_000)
            case .balancedArrays: String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
            case .openObjects: String(repeating: #"{"a":"#, count: 100_000)
            case .arraysOfObjects: String(repeating: #"[{"a":"#, count: 100_000) + "1"
            case .arraysAfterElements: String(repeating: "[1,", count: 100_000)
            }
        }
    }

    @Test(arguments: DeepText.allCases)
    func deepNestingThrowsDecodingError(_ deep: DeepText) {
        let text = deep.text
        #expect(throws: DecodingError.self) { try GeneratedContent(json: text) }
    }

    @Test func nestingWithinTheLimitParses() throws {
        let depth = 500
        let text = String(repeating: #"{"a":["#, count: depth / 2) + "null" + String(repeating: "]}", count: depth / 2)
        let content = try GeneratedContent(json: text)
        #expect(content.isComplete)
        #expect(content.compactJSONString == text)
    }
}
