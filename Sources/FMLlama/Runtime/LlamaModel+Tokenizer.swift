import CLlama
import Synchronization

/// Tokenization with the model's own tokenizer.
extension LlamaModel {
    /// The token IDs for `text`.
    ///
    /// - Parameters:
    ///   - addSpecial: Adds BOS/EOS when the model is configured to.
    ///   - parseSpecial: Reads special-token spellings such as `<|im_start|>` as those tokens, as chat templates need.
    public func tokenize(_ text: String, addSpecial: Bool = false, parseSpecial: Bool = true) throws(LlamaError) -> [Int32] {
        var utf8 = Array(text.utf8)
        if utf8.isEmpty { return addSpecial && llama_vocab_get_add_bos(vocab) ? [llama_vocab_bos(vocab)] : [] }
        var tokens = [Int32](repeating: 0, count: utf8.count + 8)
        var count = utf8.withUnsafeMutableBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                llama_tokenize(vocab, chars.baseAddress, Int32(chars.count), &tokens, Int32(tokens.count), addSpecial, parseSpecial)
            }
        }
        if count < 0, count != Int32.min {
            tokens = [Int32](repeating: 0, count: Int(-count))
            count = utf8.withUnsafeMutableBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    llama_tokenize(vocab, chars.baseAddress, Int32(chars.count), &tokens, Int32(tokens.count), addSpecial, parseSpecial)
                }
            }
        }
        guard count >= 0 else {
            throw LlamaError(.tokenization, "could not tokenize \(utf8.count) bytes of text")
        }
        return Array(tokens.prefix(Int(count)))
    }

    /// The bytes a token stands for (possibly part of a UTF-8 character).
    ///
    /// - Parameter special: Renders control tokens such as `<|im_end|>` as text instead of nothing.
    public func piece(of token: Int32, special: Bool = false) -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: 64)
        var count = llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, special)
        if count < 0 {
            buffer = [CChar](repeating: 0, count: Int(-count))
            count = llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, special)
        }
        return count > 0 ? buffer.prefix(Int(count)).map { UInt8(bitPattern: $0) } : []
    }

    /// The bytes of every token, indexed by token ID, computed once per model.
    ///
    /// Control tokens map to an empty array: they never stand for text.
    public var tokenBytes: [[UInt8]] {
        if let table = tokenTable.withLock({ $0 }) { return table }
        let table = (0..<Int32(vocabularySize)).map { token in
            llama_vocab_is_control(vocab, token) ? [] : piece(of: token)
        }
        tokenTable.withLock { $0 = table }
        return table
    }

    /// Whether `token` ends a turn (EOS, EOT, `<|im_end|>`, `<end_of_turn>` …).
    public func isEndOfGeneration(_ token: Int32) -> Bool {
        llama_vocab_is_eog(vocab, token)
    }

    /// Whether `token` is a control token (never part of generated text).
    public func isControl(_ token: Int32) -> Bool {
        llama_vocab_is_control(vocab, token)
    }

    /// Every token ID that ends a turn.
    public var endOfGenerationTokens: [Int32] {
        (0..<Int32(vocabularySize)).filter { llama_vocab_is_eog(vocab, $0) }
    }

    /// The preferred token to end a turn: end-of-turn if the model has one, else end-of-sequence.
    public var endOfTurnToken: Int32 {
        let eot = llama_vocab_eot(vocab)
        return eot >= 0 ? eot : llama_vocab_eos(vocab)
    }

    /// Whether the tokenizer adds a BOS token at the start of a sequence.
    public var addsBeginningOfSequence: Bool { llama_vocab_get_add_bos(vocab) }
}
