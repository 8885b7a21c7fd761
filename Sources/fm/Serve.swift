import ArgumentParser
import FMServer
import Foundation
import FoundationModels

extension FM {
    /// `fm serve`: an OpenAI-compatible HTTP server over the in-process model.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the model over HTTP: OpenAI-compatible chat completions, and batch tagging.",
            discussion: """
                Routes: POST /v1/chat/completions (stream or not; response_format json_schema and tools are \
                enforced by the constrained decoder), GET /v1/models, GET /health, GET /metrics (Prometheus), \
                POST /v1/tag (JSONL texts in, the lines `fm tag` writes out). Prints "listening on URL" once ready; \
                SIGINT or SIGTERM finishes the requests in flight, then exits.
                """
        )

        @Option(name: .long, help: "The address to listen on.")
        var host = "127.0.0.1"

        @Option(name: .long, parsing: .unconditional, help: "The port (0 picks a free one).")
        var port = 8080

        @Option(name: .customLong("max-body-bytes"), help: "The largest request body.")
        var maximumBodyBytes = 4 << 20

        @Option(name: .customLong("max-tokens"), help: "The most tokens one response may have.")
        var maximumTokens = 4_096

        @Option(name: .long, parsing: .unconditional, help: "Answers generating at once, decoded together; a request with n answers counts n.")
        var concurrency = 16

        @Option(name: .long, parsing: .unconditional, help: "Requests that may wait for a turn; beyond that the server answers 429.")
        var queue = 64

        @Option(name: .long, parsing: .unconditional, help: "Seconds one request may take from its arrival, waiting for a turn included, before it is cancelled (504).")
        var timeout = 300

        @Option(name: .customLong("idle-timeout"), parsing: .unconditional, help: "Seconds a connection may stay silent, idle between requests or partway through sending one, before the server closes it.")
        var idleTimeout = 60

        @Option(name: .customLong("api-key-env"), help: "An environment variable holding the API key clients must send as a Bearer token.")
        var apiKeyEnv: String?

        @OptionGroup var modelOptions: ModelOptions

        func validate() throws {
            if !(0...65_535).contains(port) { throw ValidationError("--port must be between 0 and 65535.") }
            if maximumBodyBytes < 1_024 { throw ValidationError("--max-body-bytes must be at least 1024.") }
            if maximumTokens < 1 { throw ValidationError("--max-tokens must be positive.") }
            if !(1...256).contains(concurrency) { throw ValidationError("--concurrency must be between 1 and 256.") }
            if !(0...100_000).contains(queue) { throw ValidationError("--queue must be between 0 and 100000.") }
            // A bound keeps the nanoseconds the server counts in within 64 bits (about 292 years); a week is more
            // than any request or silent connection should be given.
            if !(1...604_800).contains(timeout) { throw ValidationError("--timeout must be between 1 and 604800 seconds (a week).") }
            if !(1...604_800).contains(idleTimeout) { throw ValidationError("--idle-timeout must be between 1 and 604800 seconds (a week).") }
            if let apiKeyEnv, (ProcessInfo.processInfo.environment[apiKeyEnv] ?? "").isEmpty {
                throw ValidationError("The environment variable \(apiKeyEnv) (--api-key-env) is not set.")
            }
        }

        func run() async throws {
            let model = modelOptions.systemModel()
            guard model.isReady else { throw CommandFailure(model.missingModelMessage) }
            var configuration = ServerConfiguration(model: model, modelName: ModelCatalog.entry(at: model.modelURL)?.name
                ?? model.modelURL.deletingPathExtension().lastPathComponent)
            configuration.host = host
            configuration.port = port
            configuration.maximumBodyBytes = maximumBodyBytes
            configuration.maximumTokens = maximumTokens
            configuration.concurrentRequests = concurrency
            configuration.queuedRequests = queue
            configuration.requestTimeout = .seconds(timeout)
            configuration.idleTimeout = .seconds(idleTimeout)
            configuration.apiKey = apiKeyEnv.flatMap { ProcessInfo.processInfo.environment[$0] }
            do {
                try await serve(configuration)
            } catch let error as FoundationModelsServer.ListenError {
                if error.isInvalidAddress { throw ValidationError(error.description + " Give --host an address of this machine.") }
                throw CommandFailure(error.description)
            }
        }

        private func serve(_ configuration: ServerConfiguration) async throws {
            let host = host
            try await FoundationModelsServer(configuration: configuration).run { port in
                // Written unbuffered: scripts and tests wait for this line to learn the port. A server whose
                // address cannot be told (stdout full or closed) would serve where no client can find it.
                do { try Console.write("listening on http://\(host):\(port)\n") } catch {
                    Console.note("Error: \(error); the server on port \(port) stops, as nobody could learn where it listens.\n")
                    _exit(ExitCode.failure.rawValue)
                }
            }
        }
    }
}
