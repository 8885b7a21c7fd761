import FMDecoding
import Testing

/// Loading real GGUF vocabularies (these fail, never skip, when the model is missing).
struct TokenVocabularyTests {
    @Test func smolLM2ByteLevelTokens() throws {
        let vocabulary = try TestVocabularies.smol()
        #expect(vocabulary.count == 49_152)
        #expect(vocabulary.tokenizerModel == "gpt2")
        #expect(!vocabulary.eosTokenIDs.isEmpty)
        let texts = (0..<vocabulary.count).map { vocabulary.bytes(of: $0) }
        // `Ġ` decodes to a space; some token starts with a space and some is exactly `{"`.
        #expect(texts.contains { $0.first == 0x20 && $0.count > 1 })
        #expect(texts.contains { Array($0) == Array("{\"".utf8) })
        #expect(texts.contains { Array($0) == [0x0A] })
        for id in vocabulary.eosTokenIDs { #expect(!vocabulary.isUsableInText(id)) }
        let special = (0..<vocabulary.count).filter { !vocabulary.isUsableInText($0) }
        #expect(!special.isEmpty && special.count < 200)
    }

    @Test func gemma3SentencePieceTokens() throws {
        let vocabulary = try TestVocabularies.gemma()
        #expect(vocabulary.count > 260_000)
        #expect(vocabulary.tokenizerModel == "llama")
        #expect(!vocabulary.eosTokenIDs.isEmpty)
        // Every byte has a byte-fallback token, and `▁` is a space.
        var singleBytes = Set<UInt8>()
        var spaced = false
        for id in 0..<vocabulary.count where vocabulary.isUsableInText(id) {
            let bytes = vocabulary.bytes(of: id)
            if bytes.count == 1 { singleBytes.insert(bytes.first!) }
            if bytes.first == 0x20 && bytes.count > 1 { spaced = true }
        }
        #expect(singleBytes.count == 256)
        #expect(spaced)
    }

    @Test func missingModelFailsWithInstallHint() {
        do {
            _ = try TestVocabularies.load("/nonexistent/model.gguf", setup: "fm model install gemma")
            Issue.record("expected a failure")
        } catch {
            #expect("\(error)".contains("fm model install gemma"))
        }
    }
}
