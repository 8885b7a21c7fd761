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
            do {
                if stream {
                    var printed = ""
                    for try await snapshot in session.streamResponse(to: prompt, options: sampling.generationOptions) {
                        let text = snapshot.content
                        if text.hasPrefix(printed) {
                            try Console.write(String(text.dropFirst(printed.count)))
                        }
                        printed = text
                    }
                    print()
                } else {
                    print(try await session.respond(to: prompt, options: sampling.generationOptions).content)
                }
            } catch let error as LanguageModelSession.GenerationError {
                throw CommandFailure(error.errorDescription ?? "\(error)")
            }
        }
    }
}

/// A domain error: its message is printed and the exit status is 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
