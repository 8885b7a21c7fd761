import ArgumentParser
import FMCache
import FMTagging
import Foundation
import FoundationModels
import Synchronization

/// Options that choose what `fm tag` and `fm eval` generate: the schema, instructions, sampling, batching, cache.
struct TaggingOptions: ParsableArguments {
    @Option(name: .long, help: "A built-in schema: \(TaggingPreset.allCases.map(\.rawValue).joined(separator: ", ")).")
    var preset: String?

    @Option(name: .long, help: "A JSON Schema file describing each result.")
    var schema: String?

    @Option(name: .long, help: "Instructions for the tagging session.")
    var instructions: String?

    @Flag(name: .long, help: "Always pick the most likely token (the default).")
    var greedy = false

    @Option(name: .long, parsing: .unconditional, help: "Sample at this temperature instead of decoding greedily (results are not cached).")
    var temperature: Double?

    @Option(name: .long, parsing: .unconditional, help: "Seed for reproducible sampling with --temperature.")
    var seed: UInt64?

    @Option(name: .customLong("max-tokens"), parsing: .unconditional, help: "The most tokens one result may have (default: a budget from the schema's size, 256 to 2048).")
    var maximumTokens: Int?

    @Option(name: .long, parsing: .unconditional, help: "Texts decoded together in one batch, 1 to 64 (default 1).")
    var parallel: Int?

    @Flag(name: .customLong("no-cache"), help: "Neither read nor write the result cache.")
    var noCache = false

    @Option(name: .long, help: "Labelled JSONL (label/labels, or a result object per line) to draw few-shot examples from.")
    var examples: String?

    @Option(name: .long, parsing: .unconditional, help: "How many of the most similar --examples each text gets, 1 to 32 (default 4, or none with --votes).")
    var shots: Int?

    @Option(name: .long, parsing: .unconditional, help: "How many of the most similar --examples vote on each choice field's answer beside the model, 1 to 32; their weight is measured on the examples themselves.")
    var votes: Int?

    @Option(name: .long, help: "Send the texts to OpenAI-compatible servers instead of the local engine: base URLs, comma-separated, used in turn (e.g. http://127.0.0.1:8080). The servers must enforce response_format JSON schemas.")
    var endpoint: String?
    @Option(name: .customLong("endpoint-model"), help: "The model name sent to --endpoint servers (default: default).")
    var endpointModel: String?
    @Option(name: .customLong("api-key-env"), help: "The environment variable holding the --endpoint servers' API key.")
    var apiKeyEnv: String?
    @Option(name: .long, parsing: .unconditional, help: "Requests in flight at once across the --endpoint servers, 1 to 1024 (default 4).")
    var concurrency: Int?
    @Option(name: .customLong("endpoint-timeout"), parsing: .unconditional, help: "Seconds an --endpoint server may send nothing before a request counts as unanswered, 1 to 300 (default 60; one answer may take 600 s in all).")
    var endpointTimeout: Double?

    func validate() throws {
        if endpoint != nil {
            // Every part must be a server: one dropped for a typo would leave the job on fewer servers, unsaid.
            if let bad = endpointParts.first(where: { Self.endpointURL($0) == nil }) {
                if let port = URLComponents(string: bad)?.port, !Self.ports.contains(port) {
                    throw ValidationError("--endpoint: '\(bad)' names port \(port); a port is 1 to 65535.")
                }
                throw ValidationError("--endpoint: '\(bad)' is not an http(s) URL with a host (e.g. http://127.0.0.1:8080).")
            }
            // A user and password in the URL would be dropped: requests carry a bearer token, not Basic auth.
            if let withCredentials = endpointURLs.first(where: { $0.user != nil || $0.password != nil }) {
                throw ValidationError("""
                    --endpoint: \(withCredentials.host ?? "the URL") is given with a user or password, which requests do not send; \
                    give the server's key in an environment variable named by --api-key-env.
                    """)
            }
            if let concurrency, concurrency < 1 || concurrency > 1_024 { throw ValidationError("--concurrency must be between 1 and 1024.") }
            // Below the 600 s one answer may take in all, so a silent server is told from a slow answer.
            if let endpointTimeout, !(1...300).contains(endpointTimeout) { throw ValidationError("--endpoint-timeout must be between 1 and 300 seconds.") }
            if let apiKeyEnv {
                // An empty key is no key: every request would fail alike, each record with an error line.
                guard let key = ProcessInfo.processInfo.environment[apiKeyEnv] else {
                    throw ValidationError("The environment variable \(apiKeyEnv) (--api-key-env) is not set.")
                }
                if key.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    throw ValidationError("The environment variable \(apiKeyEnv) (--api-key-env) is empty.")
                }
            }
            // The servers' requests in flight are --concurrency; a batch width would be silently ignored.
            if parallel != nil { throw ValidationError("--parallel batches texts in the local engine; with --endpoint, set --concurrency.") }
        } else {
            let serverOnly = [("--concurrency", concurrency != nil), ("--endpoint-model", endpointModel != nil), ("--api-key-env", apiKeyEnv != nil),
                              ("--endpoint-timeout", endpointTimeout != nil)]
            if let (option, _) = serverOnly.first(where: \.1) { throw ValidationError("\(option) applies to --endpoint servers; give --endpoint too.") }
        }
        if preset != nil, schema != nil { throw ValidationError("--preset and --schema exclude each other.") }
        if let preset, TaggingPreset(rawValue: preset) == nil {
            throw ValidationError("Unknown preset \(preset); choose one of \(TaggingPreset.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if let schema, !FileManager.default.fileExists(atPath: schema) { throw ValidationError("No schema file at \(schema).") }
        // `inf` and `nan` parse as Doubles; no sampler or report can use them (and `nan < 0` is false).
        if let temperature, !temperature.isFinite { throw ValidationError("--temperature must be a finite number.") }
        if let temperature, temperature < 0 { throw ValidationError("--temperature must not be negative.") }
        if greedy, temperature != nil { throw ValidationError("--greedy and --temperature exclude each other.") }
        if let maximumTokens, maximumTokens <= 0 { throw ValidationError("--max-tokens must be positive.") }
        if let parallel, parallel < 1 || parallel > 64 { throw ValidationError("--parallel must be between 1 and 64.") }
        if examples == "-", !FileManager.default.fileExists(atPath: "-") {
            throw ValidationError("--examples reads a file; `-` (standard input) is not accepted there.")
        }
        if let examples, !FileManager.default.fileExists(atPath: examples) { throw ValidationError("No examples file at \(examples).") }
        if let shots {
            // 0 would leave --examples with no effect.
            if shots < 1 || shots > 32 { throw ValidationError("--shots must be between 1 and 32.") }
            if examples == nil { throw ValidationError("--shots chooses among --examples; give --examples too.") }
        }
        if let votes {
            if votes < 1 || votes > 32 { throw ValidationError("--votes must be between 1 and 32.") }
            if examples == nil { throw ValidationError("--votes chooses among --examples; give --examples too.") }
            // Sampled answers are drawn token by token; votes join the greedy choice among whole values.
            if let temperature, temperature > 0 { throw ValidationError("--votes joins greedy choices; drop --temperature.") }
        }
    }

    /// With --endpoint the servers run their own model, so --model would be silently ignored.
    func validateEndpoint(_ modelOptions: ModelOptions) throws {
        if endpoint != nil, modelOptions.model != nil {
            throw ValidationError("--model chooses the local model; --endpoint servers run their own (name it with --endpoint-model).")
        }
        // A server decides its answers token by token; the votes join the local engine's choice scoring.
        if endpoint != nil, votes != nil { throw ValidationError("--votes joins the local engine's choices; --endpoint servers decide their own.") }
    }

    /// Checks that --seed has a sampled run to seed; `seedsRuns` says the command samples without --temperature.
    func validateSeed(seedsRuns: Bool = false) throws {
        if seed != nil, (temperature ?? 0) <= 0, !seedsRuns {
            throw ValidationError("--seed seeds sampling, which needs a positive --temperature; greedy decoding has no seed.")
        }
    }

    /// The comma-separated parts of --endpoint, trimmed (an empty part is one a validation refuses).
    private var endpointParts: [String] {
        (endpoint ?? "").split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// `text` as a server's base URL in one spelling, or `nil` when it is not an http(s) URL with a host and a
    /// usable port.
    ///
    /// The scheme and host are lowercased, the scheme's default port and slashes at the end of the path are
    /// dropped: `HTTP://Host:80/` is the server `http://host` is, and the endpoints name a job's results and its
    /// resumes.
    static func endpointURL(_ text: String) -> URL? {
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.percentEncodedHost, !host.isEmpty else { return nil }
        if let port = components.port, !ports.contains(port) { return nil }
        components.scheme = scheme
        components.percentEncodedHost = host.lowercased()
        if components.port == (scheme == "http" ? 80 : 443) { components.port = nil }
        // The encoded path, so an escaped `/` (`%2F`) stays part of its segment.
        while components.percentEncodedPath.hasSuffix("/") { components.percentEncodedPath.removeLast() }
        return components.url
    }

    /// The TCP ports a server can listen on.
    private static let ports = 1...65_535

    /// The URLs of --endpoint.
    var endpointURLs: [URL] { endpointParts.compactMap(Self.endpointURL) }

    /// The servers of --endpoint, or `nil` to tag locally.
    var remoteEngines: RemoteEngines? {
        guard endpoint != nil, !endpointURLs.isEmpty else { return nil }
        return RemoteEngines(models: endpointURLs.map {
            ChatCompletionsLanguageModel(endpoint: $0, model: endpointModel ?? "default", apiKeyEnvironmentVariable: apiKeyEnv, enforcesSchemas: true,
                                         requestTimeout: endpointTimeout ?? 60)
        })
    }

    /// Requests in flight at once: --concurrency for servers, --parallel for the local engine.
    var width: Int { endpoint != nil ? concurrency ?? 4 : parallel ?? 1 }

    /// The schema chosen by --preset or --schema, else `fallback`.
    func generationSchema(fallback: GenerationSchema = TaggingPreset.contentTagging.schema) throws -> GenerationSchema {
        if let preset, let value = TaggingPreset(rawValue: preset) { return value.schema }
        if let schema {
            // Decoding with replacement would turn "caf\xE9" into "caf\u{FFFD}", a value the model then writes.
            guard let text = String(validating: try InputFile.read(schema), as: UTF8.self) else {
                throw ValidationError("The schema file \(schema) is not UTF-8 text; convert it (for example `iconv -f LATIN1 -t UTF-8`).")
            }
            do {
                let imported = try GenerationSchema.importing(jsonSchema: text)
                for warning in imported.warnings {
                    Console.note("warning: \(schema): \(warning)\n")
                }
                return imported.schema
            } catch {
                throw ValidationError("The schema file \(schema) cannot be used: \(error)")
            }
        }
        return fallback
    }

    /// The content-tagging model to run, checked to be installed unless an endpoint does the work: without it
    /// every record would fail alike, so the command says so once instead of writing an error for each.
    func model(_ options: ModelOptions) async throws -> SystemLanguageModel {
        let model = options.systemModel(useCase: .contentTagging)
        if endpoint == nil, !model.isReady { throw CommandFailure(model.missingModelMessage) }
        // Instructions that fill the context window on their own would fail every record alike, each with an
        // error line that a resume keeps as done.
        if endpoint == nil, let instructions, let needed = try? await model.tokenCount(for: Instructions(instructions)),
           needed >= model.contextSize {
            throw ValidationError(
                "--instructions take \(needed) tokens, and the model's context window holds \(model.contextSize); shorten them.")
        }
        return model
    }

    /// What decides a job's answers, for the job record that keeps a resume from mixing two jobs' lines: the
    /// model file's identity (or the endpoints'), and every setting of `configuration` but its calibration
    /// sample, which is drawn from the input and so moves when a growing input is resumed.
    func jobIdentity(configuration: TaggingConfiguration, model: SystemLanguageModel) -> String {
        // The endpoints and model names only: what they serve is learned later, and may be learned differently.
        let engine = remoteEngines?.identity ?? ModelIdentity.of(model.modelURL)
        var settings = configuration
        settings.calibrationTexts = []
        return ResultCache.key([engine, settings.fingerprint])
    }

    var generationOptions: GenerationOptions {
        if let temperature, temperature > 0 {
            let nucleus = GenerationOptions.SamplingMode.defaultProbabilityThreshold
            return GenerationOptions(samplingMode: .random(probabilityThreshold: nucleus, seed: seed), temperature: temperature,
                                     maximumResponseTokens: maximumTokens)
        }
        return GenerationOptions(samplingMode: .greedy, maximumResponseTokens: maximumTokens)
    }

    /// The few-shot example index from --examples: each line's `result` object, or its gold labels (the field
    /// `labelKey` names, else `label` or `labels`) written in `schema`.
    func exampleIndex(schema: GenerationSchema, labelKey: String? = nil) throws -> ExampleIndex? {
        guard let examples else { return nil }
        let choices = ExampleIndex.choiceProperties(of: schema)
        if votes != nil, choices.isEmpty {
            throw ValidationError("--votes moves the answers of an object's enumeration and Bool fields (or lists of them), and this schema has no such field; use --shots to show the examples to the model.")
        }
        let (pool, unused) = ExampleIndex.Example.parseReportingUnused(input: Array(try InputFile.read(examples)), schema: schema,
                                                                        labelKey: labelKey)
        // A typo in one label ("feature-request", "Neutral") would otherwise shrink the pool without a word.
        let why = "no text, or no label or result whose values the schema allows"
        guard !pool.isEmpty else { throw ValidationError("\(examples) has no examples that fit the schema: every line has \(why).") }
        if !unused.isEmpty {
            let lines = unused.prefix(5).map(String.init).joined(separator: ", ") + (unused.count > 5 ? ", …" : "")
            Console.note("warning: \(unused.count) of \(unused.count + pool.count) lines of \(examples) are not used as examples: they have \(why) (line \(lines)).\n")
        }
        // Votes alone leave the prompt as it is: the examples decide beside the model, not through it.
        let shots = shots ?? (votes == nil ? 4 : 0)
        if let given = self.shots, given > pool.count {
            // A text never gets an example of itself, so a text of the pool gets one fewer.
            Console.note("warning: --shots \(given), but \(examples) has \(pool.count) usable example\(pool.count == 1 ? "" : "s"); each text gets at most \(pool.count) (one fewer for a text that is among them).\n")
        }
        let index = ExampleIndex(examples: pool, shots: shots, votes: votes ?? 0)
        if votes != nil, !index.voteWeights.contains(where: { choices.contains($0.key) && $0.value > 0 }) {
            Console.note("warning: --votes has no effect: the most similar of \(examples)'s examples predict each other's answers no better than the most common answer does.\n")
        }
        return index
    }

    /// The runner of a job: a tagger that draws its calibration's progress on `progress`, with this command's
    /// cache and width. `--no-cache` measures a job's whole cost, so its calibration tables are computed, not read.
    func runner(configuration: TaggingConfiguration, cache: ResultCache?, progress: ProgressLine) -> TaggingRunner {
        var tagger = Tagger(configuration: configuration, calibrationProgress: progress.calibration)
        tagger.storesCalibration = !noCache
        // Said once: a full disk fails every store after the first alike.
        let warned = Mutex(false)
        return TaggingRunner(tagger: tagger, cache: cache, parallel: width) { error in
            let alreadyWarned = warned.withLock { warned in
                defer { warned = true }
                return warned
            }
            guard !alreadyWarned else { return }
            // On its own line: on a terminal the progress line is drawn where this would otherwise continue it.
            let erase = isatty(STDERR_FILENO) != 0 ? "\r\u{1B}[2K" : ""
            Console.note(erase + "warning: results are not being stored in the cache (\(error)); a later run will compute them again\n")
        }
    }

    func cache() -> ResultCache? {
        if noCache { return nil }
        do { return try ResultCache(url: ResultCache.defaultURL) } catch {
            let remedy = ResultCache.isDamaged(error) ? " (`fm cache clear` removes the damaged file)" : ""
            Console.note("warning: the result cache \(ResultCache.defaultURL.path) is unavailable (\(error))\(remedy); continuing without it\n")
            return nil
        }
    }
}
