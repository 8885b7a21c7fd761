import ArgumentParser
import Foundation
import FoundationModels

extension FM {
    /// `fm chat`: an interactive session with a demo weather tool.
    struct Chat: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Chat with the model in an interactive session that can call a demo weather tool.",
            discussion: """
                Type a message and press return; an empty line or /quit ends the chat. Ask about the weather \
                in a city to see a tool call. /transcript prints the conversation, /tokens its token count. \
                --save writes the transcript as JSON after every reply; --resume continues a saved one. A chat that \
                outgrows the context window goes on without its earliest turns (--save still keeps them). A failed \
                message is shown and the chat goes on; read from a pipe or a file, the chat then exits 1 at its end.
                """
        )

        @Option(name: .long, help: "Instructions that define the model's behaviour (default: a helpful assistant that uses the tools for the weather; with --no-tools, a helpful assistant).")
        var instructions: String?

        @Flag(name: .customLong("no-tools"), help: "Chat without the demo weather tool.")
        var noTools = false

        @Option(name: .long, help: "Continue the conversation saved in this transcript JSON file.")
        var resume: String?

        @Option(name: .long, help: "Save the transcript as JSON to this file after every reply.")
        var save: String?

        @OptionGroup var modelOptions: ModelOptions
        @OptionGroup var sampling: SamplingOptions

        func validate() throws {
            // A saved chat keeps its own instructions; new ones would be silently ignored.
            if resume != nil, instructions != nil { throw ValidationError("--resume continues a chat with its saved instructions; drop --instructions.") }
            // Checked now, not after the whole conversation has been typed.
            if let save { try ReportFile.validate(save, option: "--save") }
        }

        /// What a saved transcript lacks, in words rather than a decoder's dump.
        static func reason(_ error: any Error) -> String {
            switch error {
            case DecodingError.keyNotFound(let key, _): "it has no \"\(key.stringValue)\""
            case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
                // A mismatch at the top (a list where the transcript's object belongs) has no path to name.
                context.codingPath.isEmpty ? context.debugDescription
                    : "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
            case DecodingError.dataCorrupted(let context): context.underlyingError?.localizedDescription ?? context.debugDescription
            default: "\(error)"
            }
        }

        func run() async throws {
            let model = modelOptions.systemModel()
            // Checked once: otherwise every message would fail alike and the chat would still exit 0.
            guard model.isReady else { throw CommandFailure(model.missingModelMessage) }
            let tools: [any Tool] = noTools ? [] : [DemoWeatherTool()]
            var session: LanguageModelSession
            if let resume {
                let data = try InputFile.read(resume)
                let transcript: Transcript
                do { transcript = try JSONDecoder().decode(Transcript.self, from: data) } catch {
                    throw CommandFailure("\(resume) is not a chat saved with --save: \(Self.reason(error))")
                }
                session = LanguageModelSession(model: model, tools: tools, transcript: Self.describing(tools, in: transcript))
            } else {
                // Without tools, instructions that mention them would have the model talk about the weather.
                let standard = tools.isEmpty
                    ? "You are a helpful assistant." : "You are a helpful assistant. Use the tools to answer questions about the weather."
                session = LanguageModelSession(model: model, tools: tools, instructions: instructions ?? standard)
            }
            // Instructions that fill the window on their own would fail every message alike, each blamed on the
            // message (tool definitions count: they are part of the system prompt). Only the user's or a saved
            // chat's can: counting the default ones would load the model before the prompt, where prewarming
            // loads it while the user types. A template that cannot count them leaves the check to the messages.
            let opening = Array(session.transcript)
            let instructionEntries = opening.prefix(Self.instructionCount(opening))
            if instructions != nil || resume != nil,
               let needed = try? await model.tokenCount(for: Array(instructionEntries)), needed >= model.contextSize {
                let what = tools.isEmpty ? "" : " with the getWeather tool's definition"
                if let resume {
                    throw CommandFailure("The instructions saved in \(resume) take \(needed) tokens\(what), and the model's context window holds \(model.contextSize); the chat cannot go on.")
                }
                throw ValidationError("--instructions take \(needed) tokens\(what), and the model's context window holds \(model.contextSize); shorten them.")
            }
            session.prewarm()
            try Console.write("Chatting with \(model.modelURL.lastPathComponent)\(tools.isEmpty ? "" : " (tool: getWeather)"). Empty line or /quit to end.\n")
            // A chat fed from a pipe or a file is a script: one of its messages failing must show in the exit status.
            var failures = 0
            // Turns dropped to fit the context window: the model no longer reads them, but --save keeps them.
            var earlier: [Transcript.Entry] = []
            while true {
                try Console.write("> ")
                guard let read = Self.readMessage() else { break }
                let text: String
                switch read {
                case .success(let message):
                    text = message
                case .failure(let failure):
                    // `readLine` would have put U+FFFD in place of the bytes and sent the message on.
                    try Console.write("Error: \(failure) It was not sent.\n")
                    failures += 1
                    continue
                }
                let line = text.trimmingCharacters(in: .whitespaces)
                guard !line.isEmpty, line != "/quit" else { break }
                switch line {
                case "/transcript":
                    for entry in session.transcript { try Console.write("\(entry)\n") }
                case "/tokens":
                    // A failure to count is reported like a failed reply; it does not end the chat or lose --save.
                    do { try Console.write("\(try await model.tokenCount(for: session.transcript)) of \(model.contextSize) tokens\n") } catch {
                        try Console.write("Error: \(Self.message(error))\n")
                        failures += 1
                    }
                default:
                    let (next, replied, dropped) = try await reply(to: line, in: session, model: model, tools: tools)
                    session = next
                    earlier += dropped
                    if !replied { failures += 1 }
                    // Saved after every reply, so an interrupted chat keeps what was said.
                    if let save { try write(Self.whole(session.transcript, after: earlier), to: save) }
                }
            }
            if let save {
                try write(Self.whole(session.transcript, after: earlier), to: save)
                try Console.write("Saved the transcript to \(save).\n")
            }
            if failures > 0, isatty(STDIN_FILENO) == 0 {
                throw CommandFailure("\(failures) message\(failures == 1 ? "" : "s") of the chat failed (each error is shown above).")
            }
        }

        /// The next line of standard input without its line ending (`\n` or `\r\n`): its text, a failure when it
        /// is not valid UTF-8, or nil at the end of the input.
        static func readMessage() -> Result<String, CommandFailure>? {
            // A byte at a time from the descriptor: a message is short, and nothing is read past its line.
            var bytes: [UInt8] = []
            var byte: UInt8 = 0
            while true {
                let count = read(STDIN_FILENO, &byte, 1)
                if count < 0, errno == EINTR { continue }
                guard count == 1 else {
                    if bytes.isEmpty { return nil }
                    break
                }
                if byte == UInt8(ascii: "\n") { break }
                bytes.append(byte)
            }
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return .failure(CommandFailure("The message is not valid UTF-8."))
            }
            return .success(text)
        }

        /// Streams the reply to `line`, and returns the session to go on with: `session`, or, when the
        /// conversation no longer fits the context window, a new one that keeps the instructions and the most
        /// recent turns (what Apple suggests for `exceededContextWindowSize`), in which the line is asked again;
        /// whether the reply came (an error is shown, and the chat goes on); and the entries of the turns dropped.
        private func reply(to line: String, in session: LanguageModelSession, model: SystemLanguageModel, tools: [any Tool])
            async throws -> (session: LanguageModelSession, replied: Bool, dropped: [Transcript.Entry]) {
            var printed = false
            do {
                try await stream(line, in: session, printed: &printed)
                return (session, true, [])
            } catch LanguageModelSession.GenerationError.exceededContextWindowSize {
                let shortened: (transcript: Transcript, dropped: Int)
                do {
                    switch try await Self.condensed(session.transcript, adding: line, model: model) {
                    case .shorter(let transcript, let dropped): shortened = (transcript, dropped)
                    case .messageTooLong:
                        try Console.write("\nError: the message does not fit the model's context window even without earlier turns.\n")
                        return (session, false, [])
                    case .replyTooLong:
                        // The message fit: it was the reply that ran out of room, and there is no turn to drop for it.
                        let above = printed ? "; the text above is what was written before that" : ""
                        try Console.write("\nError: the reply did not fit the model's context window after the message\(above).\n")
                        return (session, false, [])
                    }
                } catch {
                    try Console.write("\nError: \(Self.message(error))\n")
                    return (session, false, [])
                }
                let dropped = shortened.dropped
                let turns = "the \(dropped) earliest turn\(dropped == 1 ? "" : "s")"
                // A reply cut off mid-stream stays on screen: it is ended and marked, so the retry reads as a new one.
                let cut = printed
                if cut {
                    try Console.write("\n[the reply was cut off: the conversation no longer fit the context window; answering again without \(turns)]\n")
                }
                let shorter = LanguageModelSession(model: model, tools: tools, transcript: shortened.transcript)
                do {
                    try await stream(line, in: shorter, printed: &printed)
                } catch LanguageModelSession.GenerationError.exceededContextWindowSize {
                    // The reply itself outgrew what was left: the conversation stays as it was.
                    try Console.write("\nError: the reply did not fit the model's context window after the message, even without \(turns).\n")
                    return (session, false, [])
                } catch let failure as CommandFailure {
                    throw failure
                } catch {
                    try Console.write("\nError: \(Self.message(error))\n")
                    return (session, false, [])
                }
                if !cut { try Console.write("[the conversation no longer fit the context window: dropped \(turns)]\n") }
                // The shorter transcript is the instructions and the latest turns, so what it lacks sits between them.
                let old = Array(session.transcript)
                let instructionCount = Self.instructionCount(old)
                let keptTurns = Array(shortened.transcript).count - instructionCount
                return (shorter, true, Array(old[instructionCount ..< old.count - keptTurns]))
            } catch let failure as CommandFailure {
                throw failure
            } catch LanguageModelSession.GenerationError.assetsUnavailable(let context) {
                // A model that does not load fails every message alike: the chat ends with that one error.
                throw CommandFailure(context.debugDescription)
            } catch {
                try Console.write("\nError: \(Self.message(error))\n")
                return (session, false, [])
            }
        }

        /// Streams one reply as it is written, then the tools it called. A failed reply leaves the transcript
        /// as it was (the session rolls it back), so the chat goes on. `printed` says whether any of its text was
        /// written, which a failure leaves on screen.
        private func stream(_ line: String, in session: LanguageModelSession, printed wrote: inout Bool) async throws {
            let start = session.transcript.count
            let tokensBefore = session.usage.output.totalTokenCount
            var shown = ""
            for try await snapshot in session.streamResponse(to: line, options: sampling.generationOptions) {
                let text = snapshot.content
                if text.hasPrefix(shown), text.count > shown.count {
                    try Console.write(String(text.dropFirst(shown.count)))
                    wrote = true
                }
                shown = text
            }
            try Console.write("\n")
            var calledTools = false
            for case .toolCalls(let calls) in session.transcript.dropFirst(start) {
                calledTools = true
                try Console.write("  [called \(calls.map(\.description).joined(separator: ", "))]\n")
            }
            // A reply cut at the limit comes back as a whole one; with tool calls, several generations add up.
            if !calledTools, let limit = sampling.generationOptions.maximumResponseTokens,
               session.usage.output.totalTokenCount - tokensBefore >= limit {
                try Console.write("  [the reply reached the --max-tokens limit of \(limit) tokens, so it may be cut short]\n")
            }
        }

        /// What dropping earlier turns can do for a message whose reply overflowed the context window.
        enum Condensing {
            /// The conversation without its `dropped` earliest turns, in which the message is to be asked again.
            case shorter(Transcript, dropped: Int)
            /// The instructions and the message alone do not fit.
            case messageTooLong
            /// The instructions and the message fit, with no earlier turn to drop: the reply ran out of room.
            case replyTooLong
        }

        /// `transcript` without its earliest turns (a turn starts at a prompt), keeping the instructions, until it
        /// and the `next` message take at most half the context window (leaving the other half for replies), or
        /// without all of them when only that makes the message fit. No turn is dropped for nothing: when the
        /// instructions and the message alone do not fit, or there is no turn to drop, it says which.
        static func condensed(_ transcript: Transcript, adding next: String, model: SystemLanguageModel) async throws -> Condensing {
            let entries = Array(transcript)
            let instructions = entries.prefix(instructionCount(entries))
            var turns: [[Transcript.Entry]] = []
            for entry in entries.dropFirst(instructions.count) {
                if case .prompt = entry { turns.append([entry]) } else if turns.isEmpty { turns.append([entry]) } else { turns[turns.count - 1].append(entry) }
            }
            let message = Transcript.Entry.prompt(Transcript.Prompt(segments: [.text(.init(content: next))]))
            if turns.isEmpty {
                let needed = try await model.tokenCount(for: Array(instructions) + [message])
                return needed < model.contextSize ? .replyTooLong : .messageTooLong
            }
            // The fewest earliest turns to drop, found by halving: a saved chat keeps every turn, so counting the
            // tokens once per dropped turn would take time with the square of its length. Dropping more never
            // needs more tokens, so whether a count fits only turns from no to yes as more are dropped.
            func kept(dropping count: Int) -> [Transcript.Entry] { Array(instructions) + turns.dropFirst(count).joined() }
            func fits(dropping count: Int) async throws -> Bool {
                let needed = try await model.tokenCount(for: Transcript(entries: kept(dropping: count) + [message]))
                return needed <= model.contextSize / 2 || (count == turns.count && needed < model.contextSize)
            }
            guard try await fits(dropping: turns.count) else { return .messageTooLong }
            var low = 1, high = turns.count
            while low < high {
                let middle = (low + high) / 2
                if try await fits(dropping: middle) { high = middle } else { low = middle + 1 }
            }
            return .shorter(Transcript(entries: kept(dropping: low)), dropped: low)
        }

        /// How many entries at the start of `entries` are instructions.
        static func instructionCount(_ entries: [Transcript.Entry]) -> Int {
            entries.prefix { if case .instructions = $0 { true } else { false } }.count
        }

        /// The whole conversation to save: `transcript`'s instructions, the `earlier` turns dropped to fit the
        /// context window, then the turns the model still reads.
        static func whole(_ transcript: Transcript, after earlier: [Transcript.Entry]) -> Transcript {
            guard !earlier.isEmpty else { return transcript }
            let entries = Array(transcript)
            let instructionCount = instructionCount(entries)
            return Transcript(entries: entries.prefix(instructionCount) + earlier + entries.dropFirst(instructionCount))
        }

        /// `transcript` with instructions that describe `tools`: the model reads the tool definitions from the
        /// instructions entry, and a saved chat's are those of the chat that saved it, not this one's.
        static func describing(_ tools: [any Tool], in transcript: Transcript) -> Transcript {
            let definitions = tools.filter(\.includesSchemaInInstructions).map { Transcript.ToolDefinition(tool: $0) }
            var entries = Array(transcript)
            var described = false
            for index in entries.indices {
                guard case .instructions(var instructions) = entries[index] else { continue }
                // Once: the model reads every instructions entry's definitions.
                instructions.toolDefinitions = described ? [] : definitions
                entries[index] = .instructions(instructions)
                described = true
            }
            if !described, !definitions.isEmpty {
                entries.insert(.instructions(Transcript.Instructions(segments: [], toolDefinitions: definitions)), at: 0)
            }
            return Transcript(entries: entries)
        }

        private static func message(_ error: any Error) -> String {
            (error as? any LocalizedError)?.errorDescription ?? "\(error)"
        }

        private func write(_ transcript: Transcript, to path: String) throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try ReportFile.save(try encoder.encode(transcript), to: path)
        }
    }
}
