import ArgumentParser
import FMEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `fm`: Foundation Models on the command line.
@main
struct FM: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fm",
        abstract: "Run an on-device language model: respond to prompts, describe the model.",
        discussion: """
            The model is a local GGUF file run in-process by llama.cpp: a catalogue model (`fm model list`; \
            install with `fm model install NAME`) or any GGUF file. Pass --model NAME|PATH, or set FM_MODEL \
            (a name) or FM_MODEL_PATH (a file), to use another than the default.

            Exit status: 0 on success, 64 for invalid arguments (or an FM_ variable fm cannot read), 1 when \
            generation fails, 2 when `fm tag` finished with error lines for some records, 131 after SIGQUIT.
            """,
        subcommands: [Respond.self, Chat.self, Tag.self, Eval.self, Stats.self, Cache.self, Info.self, Model.self, Serve.self]
    )

    /// Runs the command, then makes sure what it printed reached stdout: a lost write fails the command.
    static func main() async {
        // Swift's runtime catches SIGQUIT to print a crash report, then lets the process run on; a user who sends
        // it (Ctrl-backslash) asks the command to quit, as every Unix tool does. It ends with the status a shell
        // reports for the signal, without the core dump of the default action (a model's memory, on disk).
        signal(SIGQUIT) { _ in _exit(128 + SIGQUIT) }
        var parsed: (any ParsableCommand.Type)?
        do {
            // Before parsing: an option's validation would otherwise speak of the replaced text ("No file at caf�").
            try ArgumentEncoding.check()
            try HelpTopic.check(Array(CommandLine.arguments.dropFirst()))
            var command = try parseAsRoot()
            parsed = type(of: command)
            try RepeatedOptions.check(Array(CommandLine.arguments.dropFirst()))
            // The ablation switches are read from the environment; a misspelt one would change nothing in silence.
            let mistakes = QualityLevers.environmentMistakes()
            if !mistakes.isEmpty {
                // About the environment, not the command line: no usage line.
                Console.note(mistakes.map { "Error: \($0) Give a value it takes, or unset it.\n" }.joined())
                throw ExitCode.validationFailure
            }
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            try Console.flush()
            // Ended with `_exit`, as a failure is below: `fm chat` may return while its prewarm still runs on
            // llama.cpp's threads.
            _exit(0)
        } catch {
            // As `exit(withError:)`, but ending with `_exit`: a command that fails mid-generation (its stdout
            // closed under a stream) still has llama.cpp's threads decoding, and `exit` would run the library's
            // static destructors under them.
            let code = exitCode(for: error)
            var message = fullMessage(for: error)
            // A check that needs the command's input (an unknown model name, a schema file that cannot be used)
            // runs after parsing; its usage line is the subcommand's, as for the checks made while parsing.
            if let error = error as? ValidationError, let parsed, parsed != FM.self {
                let usage = usageString(for: parsed)
                let name = usage.split(separator: " ").prefix { !$0.hasPrefix("[") && !$0.hasPrefix("<") }.joined(separator: " ")
                message = "Error: \(error.message)\nUsage: \(usage)\n  See '\(name) --help' for more information."
            }
            if !message.isEmpty {
                // What the command printed before it failed goes out first, so that with `2>&1` the error follows it.
                if code == .success { print(message) } else { _ = try? Console.flush(); Console.note(message + "\n") }
            }
            // Help is the command's output: when it cannot be written, `fm --help` fails as any command does.
            do { try Console.flush() } catch where code == .success {
                Console.note("Error: \(error)\n")
                _exit(ExitCode.failure.rawValue)
            } catch {}
            _exit(code.rawValue)
        }
    }
}
