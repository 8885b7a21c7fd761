import ArgumentParser
import Foundation
import FoundationModels

extension FM {
    /// `fm respond "prompt"`: one text response.
    struct Respond: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Respond to a prompt with text.")

        @Argument(help: "The prompt.")
        var prompt: String

        @Option(name: .long, help: "Instructions that define the model's behaviour.")
        var instructions: String?

        @Flag(name: .long, help: "Print the response as it is generated.")
        var stream = false

        @OptionGroup var modelOptions: ModelOptions
        @OptionGroup var sampling: SamplingOptions

        func validate() throws {
            if prompt.allSatisfy(\.isWhitespace) { throw ValidationError("The prompt is empty: give the text to respond to.") }
        }

        func run() async throws {
            let session = LanguageModelSession(model: modelOptions.systemModel(), instructions: instructions.map { Instructions($0) })
            // Streamed either way, so that an answer that ran into the end of the context window is still printed
            // before the error, as `--stream` has printed it. Text a guardrail stopped is not.
            var text = ""
            do {
                for try await snapshot in session.streamResponse(to: prompt, options: sampling.generationOptions) {
                    if stream, snapshot.content.hasPrefix(text) {
                        try Console.write(String(snapshot.content.dropFirst(text.count)))
                    }
                    text = snapshot.content
                }
                print(stream ? "" : text)
                // Apple's API returns a text cut at the limit as a whole response; the command says so.
                if let limit = sampling.generationOptions.maximumResponseTokens, session.usage.output.totalTokenCount >= limit {
                    Console.note("note: the response reached the --max-tokens limit of \(limit) tokens, so it may be cut short.\n")
                }
            } catch let error as LanguageModelSession.GenerationError {
                var cut = ""
                if case .exceededContextWindowSize = error, !text.isEmpty {
                    print(stream ? "" : text)
                    cut = " The text above is what was generated before that."
                } else if stream, !text.isEmpty {
                    print()
                }
                throw CommandFailure((error.errorDescription ?? "\(error)") + cut)
            }
        }
    }
}

/// A domain error: its message is printed and the exit status is 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
