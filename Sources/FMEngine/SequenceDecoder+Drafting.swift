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
    /// whole-value choice — so verifying a draft makes exactly the decisions single steps would. Only tokens
    /// the model is likely to confirm are proposed (``isDraftable(_:after:copyingPhrase:)``): the rest of a word
    /// begun, a structural token the decoder left to the model, and the next words only once the response has
    /// copied a phrase.
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
        var copyingPhrase = false
        search: for start in tailStart..<bytes.count where start == tailStart || bytes[start] == UInt8(ascii: " ") {
            let tail = bytes[start...]
            guard Self.isWordPiece(Array(tail)) else { break }
            for (index, end) in ends.enumerated().reversed() where index + 1 < source.count && end >= tail.count {
                if text[(end - tail.count)..<end].elementsEqual(tail) {
                    candidate = source[(index + 1)..<min(index + 1 + maximum, source.count)]
                    copyingPhrase = start == tailStart && tail.count { $0 == UInt8(ascii: " ") } >= Self.phraseSpaces
                    break search
                }
            }
        }
        guard !candidate.isEmpty else { return [] }
        var trial = matcher
        var written = bytes
        var drafted: [Int32] = []
        for token in candidate {
            guard !model.llama.isEndOfGeneration(token),
                  Self.isDraftable(tokenBytes[Int(token)], after: drafted.last.map { tokenBytes[Int($0)] }, copyingPhrase: copyingPhrase)
            else { break }
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

    /// The grammar's mask after each token of `draft` in turn: with ``nextAllowedWords()`` (the mask before it),
    /// every logit that verifying the draft can read, one mask per output row. `nil` for an unconstrained
    /// response or a draft the grammar rejects.
    func allowedWords(after draft: [Int32]) -> [[UInt64]]? {
        guard var trial = matcher, var currentMask = mask else { return nil }
        var rows: [[UInt64]] = []
        for token in draft {
            guard trial.accept(token: Int(token)) else { return nil }
            trial.fillMask(into: &currentMask)
            rows.append(currentMask.words)
        }
        return rows
    }

    /// Spaces in a string that matches the prompt from its first byte, from which the response is taken to be
    /// copying a phrase (three words or more: longer than most tags) and the prompt's next words are proposed too.
    static let phraseSpaces = 2

    /// Whether a copied token is worth verifying after `previous` (the draft's last token, `nil` for its first).
    ///
    /// A tag rarely goes on the way its source sentence does, so unless the response is copying a phrase, the
    /// source's next word — a token that opens with a space — is mostly rejected, and each rejected token costs
    /// more than half a step on two cores. What the model nearly always confirms is the rest of the word it has
    /// begun, and, first in a draft, a structural token such as `":["` that the decoder left for the model to
    /// pick. A draft stops after a token with a quote: what follows a string's end in the source is another
    /// value, not this one.
    static func isDraftable(_ bytes: [UInt8], after previous: [UInt8]?, copyingPhrase: Bool) -> Bool {
        guard let first = bytes.first else { return false }
        if let previous, previous.contains(UInt8(ascii: "\"")) { return false }
        if copyingPhrase { return true }
        guard first != UInt8(ascii: " ") else { return false }
        return previous == nil || isWordByte(first)
    }

    /// An ASCII letter or digit, or a byte of a multi-byte UTF-8 character.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte >= 0x80
    }

    /// Whether text has two or more letters or digits: a tail worth looking up. A lone quote, comma or space
    /// occurs everywhere in a prompt and predicts nothing.
    static func isWordPiece(_ bytes: [UInt8]) -> Bool {
        bytes.lazy.filter(isWordByte).count >= 2
    }
}
