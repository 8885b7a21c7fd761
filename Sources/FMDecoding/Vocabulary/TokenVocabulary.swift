import Foundation
import Synchronization

/// A model's tokens as exact byte strings, indexed for fast mask computation.
///
/// Build one per model and share it: it is immutable and `Sendable`. Tokens that may never appear inside
/// generated JSON (control, unknown, unused and user-defined special tokens, and tokens with no bytes) are
/// excluded from every mask; the EOS ids are allowed only where the grammar may end.
///
/// ```swift
/// let vocabulary = try TokenVocabulary(ggufAt: modelPath)
/// let grammar = try Grammar(compiling: document)
/// let constraint = TokenConstraint(grammar: grammar, vocabulary: vocabulary)
/// ```
public final class TokenVocabulary: Sendable {
    /// Number of token ids (the mask size).
    public let count: Int
    /// Ids that end generation.
    public let eosTokenIDs: [Int]
    /// The tokenizer family from `tokenizer.ggml.model` (`gpt2`, `llama`, …), or `synthetic`.
    public let tokenizerModel: String

    /// All token bytes, concatenated; token `i` is `storage[offsets[i]..<offsets[i + 1]]`.
    let storage: [UInt8]
    let offsets: [Int32]
    /// Whether a token may appear in generated text at all.
    let isUsable: [Bool]
    /// Usable token ids sorted by their bytes.
    let sortedIDs: [Int32]
    /// For `sortedIDs[i]`, the length of the prefix it shares with `sortedIDs[i - 1]` (0 for the first).
    let sharedPrefix: [Int32]
    /// Per id: its position in `sortedIDs` (-1 for unusable ids), to keep token lists in byte order.
    let byteOrderRank: [Int32]
    /// Tries folded over scalar classes, built on first use and kept for the vocabulary's lifetime.
    private let tries = Mutex<[ScalarClass: TokenTrie]>([:])
    /// Most distinct classes kept; beyond this, states fall back to the plain byte trie.
    static let maximumTrieClasses = 24

    /// Creates a vocabulary from token byte strings.
    ///
    /// - Parameters:
    ///   - tokens: Each token's exact bytes, indexed by id.
    ///   - eosTokenIDs: Ids that end generation; they are never part of the text.
    ///   - excludedTokenIDs: Ids that must never be sampled inside the value (special and control tokens).
    ///   - tokenizerModel: A label for diagnostics.
    public init(tokens: [[UInt8]], eosTokenIDs: [Int], excludedTokenIDs: Set<Int> = [], tokenizerModel: String = "synthetic") {
        count = tokens.count
        self.eosTokenIDs = eosTokenIDs.filter { $0 >= 0 && $0 < tokens.count }
        self.tokenizerModel = tokenizerModel
        var storage: [UInt8] = []
        storage.reserveCapacity(tokens.reduce(0) { $0 + $1.count })
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(tokens.count + 1)
        for token in tokens {
            storage.append(contentsOf: token)
            offsets.append(Int32(storage.count))
        }
        let eos = Set(eosTokenIDs)
        var usable = [Bool](repeating: true, count: tokens.count)
        for id in tokens.indices where tokens[id].isEmpty || excludedTokenIDs.contains(id) || eos.contains(id) {
            usable[id] = false
        }
        let ids = tokens.indices.filter { usable[$0] }.sorted { tokens[$0].lexicographicallyPrecedes(tokens[$1]) }
        var shared = [Int32](repeating: 0, count: ids.count)
        for index in ids.indices.dropFirst() {
            let previous = tokens[ids[index - 1]]
            let current = tokens[ids[index]]
            var length = 0
            while length < previous.count, length < current.count, previous[length] == current[length] { length += 1 }
            shared[index] = Int32(length)
        }
        self.storage = storage
        self.offsets = offsets
        self.isUsable = usable
        self.sortedIDs = ids.map { Int32($0) }
        self.sharedPrefix = shared
        var rank = [Int32](repeating: -1, count: tokens.count)
        for (position, id) in ids.enumerated() { rank[id] = Int32(position) }
        self.byteOrderRank = rank
    }

    /// The trie of usable tokens folded over `scalarClass` (built on first request), or nil when too many
    /// classes are cached already. The empty class always has its plain byte trie.
    func trie(for scalarClass: ScalarClass) -> TokenTrie? {
        tries.withLock { tries in
            if let trie = tries[scalarClass] { return trie }
            guard scalarClass.isEmpty || tries.count < Self.maximumTrieClasses else { return nil }
            let trie = TokenTrie(scalarClass: scalarClass, ids: sortedIDs, storage: storage, offsets: offsets)
            tries[scalarClass] = trie
            return trie
        }
    }

    /// The exact bytes token `id` stands for (empty for special tokens without text).
    public func bytes(of id: Int) -> ArraySlice<UInt8> {
        storage[Int(offsets[id])..<Int(offsets[id + 1])]
    }

    /// Whether `id` may ever be part of generated text (false for control and special tokens and EOS).
    public func isUsableInText(_ id: Int) -> Bool { id >= 0 && id < count && isUsable[id] }

    /// The most bytes of token text a model file may hold (real vocabularies hold a few MB).
    static let maximumTextBytes = 256 << 20

    /// Loads the vocabulary of a GGUF model file.
    ///
    /// Reads `tokenizer.ggml.model`, `tokenizer.ggml.tokens`, `tokenizer.ggml.token_type`, and the EOS/EOT ids.
    /// GPT-2 style tokenizers have their text mapped back through the byte↔unicode table; SentencePiece
    /// tokenizers map `▁` to a space and `<0xNN>` byte tokens to their byte.
    ///
    /// - Parameter path: The `.gguf` file.
    /// - Throws: ``VocabularyError``.
    public convenience init(ggufAt path: String) throws(VocabularyError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw VocabularyError(.fileNotFound, "no model file at \(path)")
        }
        let metadata = try GGUFMetadataReader(contentsOf: URL(fileURLWithPath: path))
        guard let texts = metadata.strings(for: "tokenizer.ggml.tokens") else {
            throw VocabularyError(.missingTokenizer, "\(path) has no tokenizer.ggml.tokens")
        }
        let model = metadata.string(for: "tokenizer.ggml.model") ?? "llama"
        let types = metadata.integers(for: "tokenizer.ggml.token_type") ?? []
        let decoder = TokenTextDecoder(model: model)
        var tokens: [[UInt8]] = []
        tokens.reserveCapacity(texts.count)
        var excluded = Set<Int>()
        var totalBytes = 0
        for (id, text) in texts.enumerated() {
            let type = id < types.count ? types[id] : 1
            // 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte.
            if type != 1 && type != 6 { excluded.insert(id) }
            tokens.append(decoder.bytes(of: text, isByteToken: type == 6))
            totalBytes += tokens[id].count
            // The tables index token bytes with 32-bit offsets; real vocabularies hold a few MB of text.
            guard totalBytes <= Self.maximumTextBytes else {
                throw VocabularyError(
                    .malformedFile, "\(path): its tokens' text exceeds \(Self.maximumTextBytes >> 20) MiB, far beyond any real vocabulary")
            }
        }
        var eos: [Int] = []
        for key in ["tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id"] {
            if let id = metadata.integer(for: key), !eos.contains(Int(id)) { eos.append(Int(id)) }
        }
        self.init(tokens: tokens, eosTokenIDs: eos, excludedTokenIDs: excluded, tokenizerModel: model)
    }
}
