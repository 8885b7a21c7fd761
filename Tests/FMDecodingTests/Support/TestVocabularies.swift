import FMDecoding
import Foundation

/// Vocabularies for tests: tiny synthetic ones and the real model files.
enum TestVocabularies {
    /// Every single byte, a few multi-byte tokens spanning grammar elements, one control token and EOS.
    static let synthetic: TokenVocabulary = {
        var tokens: [[UInt8]] = (0...255).map { [UInt8($0)] }
        let extra = [
            "\"],", "\"]", "\"}", "\",\"", "{\"", "\":", "\":\"", "true", "false", "null", "ab", "abc", "art", "artist",
            "],\"", "}]", "}}", "]}", "12", "00", "-0", "0.", ".5", "\\u00", "é", "\"a\"", "\"a\",", "ar", "\"ar",
        ]
        tokens += extra.map { Array($0.utf8) }
        tokens.append(Array("<|control|>".utf8))
        tokens.append([])  // EOS
        return TokenVocabulary(
            tokens: tokens, eosTokenIDs: [tokens.count - 1], excludedTokenIDs: [tokens.count - 2])
    }()

    static let smolPath = NSString(
        string: "~/.cache/foundation-models/models/SmolLM2-135M-Instruct.Q4_1.gguf"
    ).expandingTildeInPath

    static let gemmaPath =
        ProcessInfo.processInfo.environment["FM_GEMMA_MODEL_PATH"]
        ?? NSString(string: "~/.cache/foundation-models/models/gemma-3-270m-q4_k_m.gguf").expandingTildeInPath

    /// Loads a model vocabulary; a missing file is a test failure that says how to install it.
    static func load(_ path: String, setup: String) throws -> TokenVocabulary {
        guard FileManager.default.fileExists(atPath: path) else {
            throw MissingModel(path: path, setup: setup)
        }
        return try cache.withLock { cache in
            if let cached = cache[path] { return cached }
            let vocabulary = try TokenVocabulary(ggufAt: path)
            cache[path] = vocabulary
            return vocabulary
        }
    }

    static func smol() throws -> TokenVocabulary { try load(smolPath, setup: "fm model install tiny") }
    static func gemma() throws -> TokenVocabulary { try load(gemmaPath, setup: "fm model install gemma") }

    private static let cache = LockedBox<[String: TokenVocabulary]>([:])

    struct MissingModel: Error, CustomStringConvertible {
        var path: String
        var setup: String
        var description: String { "model file missing at \(path); run `\(setup)` to install it" }
    }
}

/// A tiny lock-protected box for test caches.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // Safe: every access goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Helpers to drive matchers from strings.
extension SchemaDocument {
    func matcher(vocabulary: TokenVocabulary = TestVocabularies.synthetic) throws -> GrammarMatcher {
        TokenConstraint(grammar: try Grammar(compiling: self), vocabulary: vocabulary).makeMatcher()
    }

    func accepts(_ text: String) throws -> Bool {
        var matcher = try matcher()
        return matcher.accept(bytes: Array(text.utf8)) && matcher.canTerminate
    }
}

extension SchemaNode {
    var document: SchemaDocument { SchemaDocument(root: self) }
}
