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
                --save writes the transcript as JSON at the end; --resume continues a saved one.
                """
        )

        @Option(name: .long, help: "Instructions that define the model's behaviour (default: a helpful assistant that uses the tools for the weather).")
        var instructions: String?

        @Flag(name: .customLong("no-tools"), help: "Chat without the demo weather tool.")
        var noTools = false

        @Option(name: .long, help: "Continue the conversation saved in this transcript JSON file.")
        var resume: String?

        @Option(name: .long, help: "Save the transcript as JSON to this file when the chat ends.")
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
                "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
            case DecodingError.dataCorrupted(let context): context.underlyingError?.localizedDescription ?? context.debugDescription
            default: "\(error)"
            }
        }

        func run() async throws {
            let model = modelOptions.systemModel()
            let tools: [any Tool] = noTools ? [] : [DemoWeatherTool()]
            let session: LanguageModelSession
            if let resume {
                let data = try InputFile.read(resume)
                let transcript: Transcript
                do { transcript = try JSONDecoder().decode(Transcript.self, from: data) } catch {
                    throw CommandFailure("\(resume) is not a chat saved with --save: \(Self.reason(error))")
                }
                session = LanguageModelSession(model: model, tools: tools, transcript: transcript)
            } else {
                session = LanguageModelSession(model: model, tools: tools, instructions: instructions
                    ?? "You are a helpful assistant. Use the tools to answer questions about the weather.")
            }
            session.prewarm()
            write("Chatting with \(model.modelURL.lastPathComponent)\(tools.isEmpty ? "" : " (tool: getWeather)"). Empty line or /quit to end.\n")
            while true {
                write("> ")
                guard let line = readLine()?.trimmingCharacters(in: .whitespaces), !line.isEmpty, line != "/quit" else { break }
                switch line {
                case "/transcript":
                    session.transcript.forEach { write("\($0)\n") }
                case "/tokens":
                    // A failure to count is reported like a failed reply; it does not end the chat or lose --save.
                    do { write("\(try await model.tokenCount(for: session.transcript)) of \(model.contextSize) tokens\n") } catch {
                        write("Error: \((error as? any LocalizedError)?.errorDescription ?? "\(error)")\n")
                    }
                default:
                    await reply(to: line, in: session)
                }
            }
            if let save {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(session.transcript).write(to: URL(fileURLWithPath: save))
                write("Saved the transcript to \(save).\n")
            }
        }

        private func reply(to line: String, in session: LanguageModelSession) async {
            let start = session.transcript.count
            var printed = ""
            do {
                for try await snapshot in session.streamResponse(to: line, options: sampling.generationOptions) {
                    let text = snapshot.content
                    if text.hasPrefix(printed) { write(String(text.dropFirst(printed.count))) }
                    printed = text
                }
                write("\n")
                for case .toolCalls(let calls) in session.transcript.dropFirst(start) {
                    write("  [called \(calls.map(\.description).joined(separator: ", "))]\n")
                }
            } catch {
                write("\nError: \((error as? any LocalizedError)?.errorDescription ?? "\(error)")\n")
            }
        }

        /// Writes to standard output at once (unbuffered), so streamed text and prompts appear in order.
        private func write(_ text: String) {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}
