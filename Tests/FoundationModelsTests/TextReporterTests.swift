@testable import FoundationModels
import Testing

/// What a streamed response shows while the guardrails check it as it grows.
@Suite("Text reporter")
struct TextReporterTests {
    /// The text a reporter has sent, read back from its channel.
    private static func sent(_ channel: LanguageModelExecutorGenerationChannel) async throws -> String {
        channel.finish()
        var text = ""
        for try await event in channel {
            guard let response = event as? LanguageModelExecutorGenerationChannel.Response else { continue }
            switch response.action {
            case .appendText(let fragment): text += fragment.content
            case .replaceTextSegment(let fragment): text = fragment.content
            default: break
            }
        }
        return text
    }

    /// The text a reporter has sent, which must be appends only (a chat completion stream cannot carry a
    /// replacement).
    private static func appended(_ channel: LanguageModelExecutorGenerationChannel) async throws -> String {
        channel.finish()
        var text = ""
        for try await event in channel {
            guard let response = event as? LanguageModelExecutorGenerationChannel.Response else { continue }
            guard case .appendText(let fragment) = response.action else {
                Issue.record("not an append: \(response.action)")
                continue
            }
            text += fragment.content
        }
        return text
    }

    private static func reporter(_ channel: LanguageModelExecutorGenerationChannel, blocking term: String) -> TextReporter {
        TextReporter(channel: channel, text: { String(decoding: $0, as: UTF8.self) }, blocks: { text in
            DenyListChecker(terms: ["test": [term]]).violation(in: text, source: .response)
        })
    }

    /// A long text is checked by its end, from the first word that starts inside the window, so a word cut at its
    /// front is never read as another ("remake" as "make").
    @Test func theCheckedTailStartsAtAWord() {
        let short = "make a bomb"
        #expect(TextReporter.tail(of: short) == short)
        let filler = String(repeating: "x", count: TextReporter.checkedLength - 13)
        let text = "re" + "make a bomb " + filler
        #expect(text.count == TextReporter.checkedLength + 1)
        let tail = TextReporter.tail(of: text)
        #expect(tail == " a bomb " + filler)
        #expect(DenyListChecker.builtIn.violation(in: tail, source: .response) == nil)
        #expect(text.hasSuffix(tail))
    }

    /// Words are sent once they end and the check passes them; a word still being written waits, unless it is
    /// longer than a word would be (a script written without spaces).
    @Test func wordsAreSentWhenTheyEnd() async throws {
        let channel = LanguageModelExecutorGenerationChannel()
        let reporter = Self.reporter(channel, blocking: "bomb")
        reporter.update(bytes: Array("Hello wor".utf8), tokens: 3)
        reporter.update(bytes: Array("Hello world. ".utf8), tokens: 4)
        reporter.update(bytes: Array("Hello world. bombastic".utf8), tokens: 6)
        #expect(try await Self.sent(channel) == "Hello world. ")

        let unspaced = LanguageModelExecutorGenerationChannel()
        let text = String(repeating: "天", count: TextReporter.longestHeldWord + 1)
        Self.reporter(unspaced, blocking: "bomb").update(bytes: Array(text.utf8), tokens: 9)
        #expect(try await Self.sent(unspaced) == text)
    }

    /// From the blocked words on nothing more is sent, and a generation cut at the end of the window reports the
    /// block; one that is not blocked sends the word it held back.
    @Test func heldTextIsReleasedOrBlockedWhenTheGenerationStops() async throws {
        let blocked = LanguageModelExecutorGenerationChannel()
        let reporter = Self.reporter(blocked, blocking: "pipe bomb")
        reporter.update(bytes: Array("Build a pipe".utf8), tokens: 3)
        reporter.update(bytes: Array("Build a pipe bomb now".utf8), tokens: 5)
        reporter.update(bytes: Array("Build a pipe bomb now and then ".utf8), tokens: 7)
        #expect(reporter.releaseHeldText() == "test")
        #expect(try await Self.sent(blocked) == "Build a ")

        let plain = LanguageModelExecutorGenerationChannel()
        let released = Self.reporter(plain, blocking: "pipe bomb")
        released.update(bytes: Array("A quiet evening".utf8), tokens: 3)
        #expect(released.releaseHeldText() == nil)
        #expect(try await Self.sent(plain) == "A quiet evening")
    }

    /// A combining mark that arrives with the next token changes the last character sent, yet the text only grows:
    /// it is appended, never a replacement (which a chat completion stream cannot carry).
    @Test func aCombiningMarkIsAppended() async throws {
        let channel = LanguageModelExecutorGenerationChannel()
        let reporter = TextReporter(channel: channel, text: { String(decoding: $0, as: UTF8.self) })
        reporter.update(bytes: Array("cafe".utf8), tokens: 1)
        reporter.update(bytes: Array("cafe\u{301} au lait".utf8), tokens: 3)
        #expect(try await Self.appended(channel) == "cafe\u{301} au lait")
    }

    /// A generation started over (the engine sent it back for lack of cache space) grows from nothing again. While
    /// it writes what was already sent, nothing is sent; then only the new text, all as appends, so the stream reads
    /// as one answer. A final text that differs is still sent as a replacement.
    @Test func aRestartedGenerationGoesOnWhereTheStreamWas() async throws {
        for blocking in [false, true] {
            let channel = LanguageModelExecutorGenerationChannel()
            let reporter = blocking
                ? Self.reporter(channel, blocking: "bomb")
                : TextReporter(channel: channel, text: { String(decoding: $0, as: UTF8.self) })
            reporter.update(bytes: Array("One two three ".utf8), tokens: 3)
            reporter.update(bytes: Array("One ".utf8), tokens: 1)
            reporter.update(bytes: Array("One two three four ".utf8), tokens: 4)
            #expect(try await Self.appended(channel) == "One two three four ")
        }
        let channel = LanguageModelExecutorGenerationChannel()
        let reporter = TextReporter(channel: channel, text: { String(decoding: $0, as: UTF8.self) })
        reporter.update(bytes: Array("Hello there".utf8), tokens: 2)
        reporter.send("Hello", tokens: 1)
        #expect(try await Self.sent(channel) == "Hello")
    }

    /// An invisible character inside a word (which the deny list drops) does not end the word, so the stream does
    /// not show the first half of a blocked term.
    @Test func anInvisibleCharacterDoesNotEndAWord() async throws {
        let channel = LanguageModelExecutorGenerationChannel()
        let reporter = Self.reporter(channel, blocking: "bomb")
        reporter.update(bytes: Array("make a bo\u{200B}".utf8), tokens: 4)
        reporter.update(bytes: Array("make a bo\u{200B}mb now".utf8), tokens: 6)
        #expect(try await Self.sent(channel) == "make a ")
    }
}
