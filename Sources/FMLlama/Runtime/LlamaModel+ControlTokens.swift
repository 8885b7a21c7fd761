import CLlama
import Foundation
import Synchronization

/// Message contents as plain text inside a rendered chat.
extension LlamaModel {
    /// `text` with every spelling of a control token (`<|im_start|>`, `<end_of_turn>` …) broken by an invisible
    /// word joiner after its first character.
    ///
    /// A rendered chat is tokenized with special tokens parsed, since its template needs them; a message that
    /// spelled one would otherwise close its own turn and open another (a prompt or a tool's output posing as
    /// system instructions). Text without such a spelling is returned unchanged.
    public func plainText(_ text: String) -> String {
        let spellings = controlTokenSpellings
        guard !spellings.isEmpty else { return text }
        // Bytes, as the tokenizer matches them: a combining mark after a spelling must not hide it.
        var bytes = Array(text.utf8)
        var changed = false
        for first in Set(text.unicodeScalars) {
            for spelling in spellings[first] ?? [] {
                let needle = Array(spelling.utf8)
                guard bytes.firstRange(of: needle) != nil else { continue }
                let lead = Array(String(first).utf8)
                var result: [UInt8] = []
                var index = 0
                while index < bytes.count {
                    if bytes[index] == needle[0], index + needle.count <= bytes.count,
                       bytes[index..<(index + needle.count)].elementsEqual(needle) {
                        result += lead + Self.wordJoiner + needle[lead.count...]
                        index += needle.count
                        changed = true
                    } else {
                        result.append(bytes[index])
                        index += 1
                    }
                }
                bytes = result
            }
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : text
    }

    /// U+2060, which joins without a visible mark.
    private static let wordJoiner: [UInt8] = Array("\u{2060}".utf8)

    /// The spellings of the vocabulary's control (and unknown) tokens, the ones tokenizing with special tokens
    /// parsed reads as tokens, by their first scalar.
    var controlTokenSpellings: [Unicode.Scalar: [String]] {
        if let spellings = controlSpellings.withLock({ $0 }) { return spellings }
        var spellings: [Unicode.Scalar: [String]] = [:]
        let parsedSpecially = LLAMA_TOKEN_ATTR_CONTROL.rawValue | LLAMA_TOKEN_ATTR_UNKNOWN.rawValue
        for token in 0..<Int32(vocabularySize) where llama_vocab_get_attr(vocab, token).rawValue & parsedSpecially != 0 {
            let spelling = String(decoding: piece(of: token, special: true), as: UTF8.self)
            // A one-character spelling cannot be broken up, and is ordinary text in any template.
            guard spelling.unicodeScalars.count > 1, let first = spelling.unicodeScalars.first else { continue }
            spellings[first, default: []].append(spelling)
        }
        // Longer spellings first, so one that contains another is broken as a whole.
        for key in spellings.keys { spellings[key]?.sort { $0.count > $1.count } }
        controlSpellings.withLock { $0 = spellings }
        return spellings
    }
}
