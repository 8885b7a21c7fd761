import Synchronization

/// Sends a growing text to the channel as deltas: appended text while the new text extends what was sent, a
/// replacement when it does not (a use case's rendering can change earlier text).
final class TextReporter: Sendable {
    private let channel: LanguageModelExecutorGenerationChannel
    private let text: @Sendable ([UInt8]) -> String?
    private let sent = Mutex<(text: String, tokens: Int)>(("", 0))

    init(channel: LanguageModelExecutorGenerationChannel, text: @escaping @Sendable ([UInt8]) -> String?) {
        self.channel = channel
        self.text = text
    }

    /// Called by the engine as the output grows.
    func update(bytes: [UInt8], tokens: Int) {
        guard let current = text(bytes) else { return }
        send(current, tokens: tokens)
    }

    /// Brings the channel's text up to `current`.
    func send(_ current: String, tokens: Int) {
        let event: LanguageModelExecutorGenerationChannel.Response? = sent.withLock { sent in
            defer { sent = (current, tokens) }
            if current == sent.text { return nil }
            if current.hasPrefix(sent.text) {
                return .response(action: .appendText(String(current.dropFirst(sent.text.count)), tokenCount: max(0, tokens - sent.tokens)))
            }
            return .response(action: .replaceTextSegment(current, tokenCount: tokens))
        }
        if let event { channel.yield(event) }
    }
}
