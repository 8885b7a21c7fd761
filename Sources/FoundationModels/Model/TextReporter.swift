import Synchronization

/// Sends a growing text to the channel as deltas: appended text while the new text extends what was sent, a
/// replacement when it does not (a use case's rendering can change earlier text).
///
/// With a `blocks` check (the response guardrails), only whole words are sent, each after the check has passed
/// the text that ends with it (its last ``checkedLength`` characters, so a long answer is not read again for
/// every word); from the first blocked text on nothing more is streamed. The finished response's own check, over
/// the whole text, still decides whether it is blocked; this one keeps a stream from showing the blocked words.
final class TextReporter: Sendable {
    private let channel: LanguageModelExecutorGenerationChannel
    private let text: @Sendable ([UInt8]) -> String?
    private let blocks: (@Sendable (String) -> Bool)?
    private let sent = Mutex<(text: String, tokens: Int, blocked: Bool)>(("", 0, false))

    /// How much of the text's end a check reads: far more than any phrase a deny list holds.
    static let checkedLength = 512

    init(channel: LanguageModelExecutorGenerationChannel, text: @escaping @Sendable ([UInt8]) -> String?,
         blocks: (@Sendable (String) -> Bool)? = nil) {
        self.channel = channel
        self.text = text
        self.blocks = blocks
    }

    /// Called by the engine as the output grows.
    func update(bytes: [UInt8], tokens: Int) {
        guard var current = text(bytes) else { return }
        if let blocks {
            // A word cut short can read as a blocked term ("bomb" of "bombastic"): the check sees whole words.
            guard let end = current.lastIndex(where: { !($0.isLetter || $0.isNumber) }) else { return }
            current = String(current[...end])
            let checked = sent.withLock { sent -> Bool in
                if sent.blocked || current == sent.text { return false }
                if blocks(Self.tail(of: current)) { sent.blocked = true; return false }
                return true
            }
            guard checked else { return }
        }
        send(current, tokens: tokens)
    }

    /// Brings the channel's text up to `current`.
    func send(_ current: String, tokens: Int) {
        let event: LanguageModelExecutorGenerationChannel.Response? = sent.withLock { sent in
            defer { sent.text = current; sent.tokens = tokens }
            if current == sent.text { return nil }
            if current.hasPrefix(sent.text) {
                return .response(action: .appendText(String(current.dropFirst(sent.text.count)), tokenCount: max(0, tokens - sent.tokens)))
            }
            return .response(action: .replaceTextSegment(current, tokenCount: tokens))
        }
        if let event { channel.yield(event) }
    }

    /// The last ``checkedLength`` characters of `text`, from the first word that starts inside them (a word cut
    /// at its front can read as another: "remake a bomb" as "make a bomb").
    static func tail(of text: String) -> String {
        guard text.count > checkedLength else { return text }
        let window = text.suffix(checkedLength)
        guard let boundary = window.firstIndex(where: { !($0.isLetter || $0.isNumber) }) else { return String(window) }
        return String(window[boundary...])
    }
}
