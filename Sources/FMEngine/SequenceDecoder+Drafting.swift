import FMDecoding
import FMLlama

extension SequenceDecoder {
    /// The most tokens proposed at once: verifying them costs one evaluation of that many more tokens.
    static let maximumDraftLength = 4

    /// Tokens the response will likely continue with, copied from `source` (the prompt), for the model to
    /// verify in one evaluation (prompt-lookup drafting).
    ///
    /// Tags and extracted values often repeat the input word for word, so where the response's last bytes
    /// occur in the prompt, what follows there is a good guess. A guess is only proposed as far as the
    /// response would be decided token by token anyway: each drafted token must be allowed by the grammar and
    /// leave it where the next token is again the model's free pick — no forced text, no complete value, no
    /// whole-value choice — so verifying a draft makes exactly the decisions single steps would.
    ///
    /// - Parameters:
    ///   - source: The prompt's tokens; the latest occurrence of the response's tail is used.
    ///   - maximum: The most tokens to propose.
    ///   - choicePoints: The schema's whole-value choices, where drafting stops.
    func draft(from source: [Int32], maximum: Int, choicePoints: ChoicePoints?) -> [Int32] {
        guard maximum > 0 else { return [] }
        // The tail to look up: the response's last bytes within the current string or word, compared as text
        // because a word opening a string is tokenized differently from the same word mid-sentence.
        let bytes = outcome.bytes
        var tailStart = bytes.count
        while tailStart > 0, bytes.count - tailStart < 24, bytes[tailStart - 1] != UInt8(ascii: "\"") { tailStart -= 1 }
        guard Self.isWordPiece(Array(bytes[tailStart...])) else { return [] }
        // The latest place in the source where a tail ends at a token boundary: the longest tail first, then
        // shorter ones from each space on, so a response that began differently can still copy its last words.
        var ends: [Int] = []
        ends.reserveCapacity(source.count)
        var text: [UInt8] = []
        for token in source {
            text += tokenBytes[Int(token)]
            ends.append(text.count)
        }
        var candidate: ArraySlice<Int32> = []
        search: for start in tailStart..<bytes.count where start == tailStart || bytes[start] == UInt8(ascii: " ") {
            let tail = bytes[start...]
            guard Self.isWordPiece(Array(tail)) else { break }
            for (index, end) in ends.enumerated().reversed() where index + 1 < source.count && end >= tail.count {
                if text[(end - tail.count)..<end].elementsEqual(tail) {
                    candidate = source[(index + 1)..<min(index + 1 + maximum, source.count)]
                    break search
                }
            }
        }
        guard !candidate.isEmpty else { return [] }
        var trial = matcher
        var written = bytes
        var drafted: [Int32] = []
        for token in candidate {
            guard !model.llama.isEndOfGeneration(token) else { break }
            if var active = trial {
                guard active.accept(token: Int(token)) else { break }
                written += tokenBytes[Int(token)]
                guard active.forcedBytes().isEmpty, !active.isComplete, choicePoints?.remainders(after: written) == nil else { break }
                trial = active
            }
            drafted.append(token)
        }
        return drafted
    }

    /// Whether text has two or more letters or digits: a tail worth looking up. A lone quote, comma or space
    /// occurs everywhere in a prompt and predicts nothing.
    static func isWordPiece(_ bytes: [UInt8]) -> Bool {
        bytes.lazy.filter { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 >= 0x80 }.count >= 2
    }
}
