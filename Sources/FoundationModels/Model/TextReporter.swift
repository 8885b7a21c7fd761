import Synchronization

/// Sends a growing text to the channel as deltas: appended text while the new text extends what was sent, a
/// replacement when it does not (a use case's rendering can change earlier text).
///
/// With a `blocks` check (the response guardrails), text is sent a word at a time, each after the check has passed
/// the text that ends with it (its last ``checkedLength`` characters, so a long answer is not read again for every
/// word); a run longer than ``longestHeldWord`` is sent as it grows. From the first blocked text on nothing more is
/// streamed, so a stream shows no more than the words before the one that completes a blocked phrase.
final class TextReporter: Sendable {
    private struct State {
        var text = ""
        var tokens = 0
        /// Why the check blocked the text, once it has.
        var blocked: String?
        /// The whole text so far and its tokens, held back or not.
        var latest = ""
        var latestTokens = 0
    }

    private let channel: LanguageModelExecutorGenerationChannel
    private let text: @Sendable ([UInt8]) -> String?
    private let blocks: (@Sendable (String) -> String?)?
    private let state = Mutex(State())

    /// How much of the text's end a check reads: far more than any phrase a deny list holds.
    static let checkedLength = 512
    /// Most characters held back waiting for the end of a word: scripts written without spaces (Chinese, Thai)
    /// would otherwise show nothing until punctuation.
    static let longestHeldWord = 32

    /// - Parameter blocks: Why a text is blocked, or `nil`; given, text is checked before it is sent.
    init(channel: LanguageModelExecutorGenerationChannel, text: @escaping @Sendable ([UInt8]) -> String?,
         blocks: (@Sendable (String) -> String?)? = nil) {
        self.channel = channel
        self.text = text
        self.blocks = blocks
    }

    /// Called by the engine as the output grows.
    ///
    /// A generation the engine started over (sent back for lack of cache space) grows from nothing again: while
    /// its text is still a beginning of what was sent, nothing is sent, so a stream that writes the same again
    /// goes on where it was instead of showing its text twice.
    func update(bytes: [UInt8], tokens: Int) {
        guard let current = text(bytes) else { return }
        guard blocks != nil else { return send(current, tokens: tokens, holdingRepeats: true) }
        state.withLock { $0.latest = current; $0.latestTokens = tokens }
        // A word cut short can read as a blocked term ("bomb" of "bombastic"): the check sees whole words. The
        // deny list drops invisible characters inside a word, so they do not end one here either.
        let end = current.lastIndex { !Self.isWordCharacter($0) }.map(current.index(after:)) ?? current.startIndex
        let whole = current.distance(from: end, to: current.endIndex) > Self.longestHeldWord ? current : String(current[..<end])
        if !whole.isEmpty, check(whole) { send(whole, tokens: tokens, holdingRepeats: true) }
    }

    /// Sends what the stream has held back when the generation stops without finishing (the end of the context
    /// window), once the check has passed it.
    ///
    /// - Returns: Why the text is blocked, or `nil` when it is not (and all of it has been sent).
    func releaseHeldText() -> String? {
        let (latest, tokens) = state.withLock { ($0.latest, $0.latestTokens) }
        guard blocks != nil, !latest.isEmpty else { return state.withLock { $0.blocked } }
        if check(latest) { send(latest, tokens: tokens) }
        return state.withLock { $0.blocked }
    }

    /// Whether `text` may be sent: nothing has been blocked and the check passes its end.
    private func check(_ text: String) -> Bool {
        guard let blocks else { return true }
        return state.withLock { state in
            if state.blocked != nil || text == state.text { return false }
            if let reason = blocks(Self.tail(of: text)) {
                state.blocked = reason
                return false
            }
            return true
        }
    }

    /// Brings the channel's text up to `current`; with `holdingRepeats`, a `current` that is a beginning of the
    /// text sent sends nothing (a restarted generation catching up).
    func send(_ current: String, tokens: Int, holdingRepeats: Bool = false) {
        let event: LanguageModelExecutorGenerationChannel.Response? = state.withLock { state in
            if current == state.text { return nil }
            // Compared by scalars, not characters: a combining mark or joiner that arrives with the next token
            // changes the last character sent, yet the text still only grows.
            let sent = state.text.unicodeScalars
            if holdingRepeats, sent.starts(with: current.unicodeScalars) { return nil }
            defer { state.text = current; state.tokens = tokens }
            if current.unicodeScalars.starts(with: sent) {
                let added = String(String.UnicodeScalarView(current.unicodeScalars.dropFirst(sent.count)))
                return .response(action: .appendText(added, tokenCount: max(0, tokens - state.tokens)))
            }
            return .response(action: .replaceTextSegment(current, tokenCount: tokens))
        }
        if let event { channel.yield(event) }
    }

    /// Whether `character` belongs to a word: a letter, a digit, or an invisible character the deny list drops.
    static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character.unicodeScalars.allSatisfy(\.properties.isDefaultIgnorableCodePoint)
    }

    /// The last ``checkedLength`` characters of `text`, from the first word that starts inside them (a word cut
    /// at its front can read as another: "remake a bomb" as "make a bomb").
    static func tail(of text: String) -> String {
        // No more bytes than characters allowed: the whole text, without counting its characters.
        guard text.utf8.count > checkedLength,
              let start = text.index(text.endIndex, offsetBy: -checkedLength, limitedBy: text.startIndex),
              start > text.startIndex
        else { return text }
        let window = text[start...]
        guard let boundary = window.firstIndex(where: { !isWordCharacter($0) }) else { return String(window) }
        return String(window[boundary...])
    }
}
