package import FMEngine
import FMLlama
public import FoundationModels

/// Tags one text at a time under a ``TaggingConfiguration``, each in a fresh session so earlier texts never
/// leak into a result.
public struct Tagger: Sendable {
    /// The configuration.
    public let configuration: TaggingConfiguration

    /// Told how far the calibration of the configuration's choices has got, as `(done, total)` calibration
    /// texts: `(0, total)` when it starts, then after each text. It runs once, before the first answer of a job
    /// whose schema has fixed answers (one generation per calibration text), and not at all when its table is
    /// already cached. `nil` tells nobody.
    public var calibrationProgress: (@Sendable (_ done: Int, _ total: Int) -> Void)?

    /// Whether calibration tables are read from and written to the disk store (`FM_CALIBRATION_CACHE`, by default
    /// `${XDG_CACHE_HOME:-~/.cache}/foundation-models/calibration`), so a later process does not compute a table
    /// again. `false` computes them in every process, as a measurement of a job's whole cost needs.
    public var storesCalibration = true

    /// Creates a tagger.
    ///
    /// - Parameters:
    ///   - configuration: The configuration.
    ///   - calibrationProgress: Told how far the calibration of choices has got (``calibrationProgress``).
    public init(configuration: TaggingConfiguration, calibrationProgress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) {
        self.configuration = configuration
        self.calibrationProgress = calibrationProgress
        calibrationContext = Self.calibrationContext(for: configuration)
    }

    /// The transcript a session starts from: instructions (with the label glossary), then each example as a
    /// prompt and its response.
    public var startingTranscript: Transcript {
        var entries: [Transcript.Entry] = []
        if let instructions = configuration.sessionInstructions {
            entries.append(.instructions(.init(segments: [.text(.init(content: instructions))], toolDefinitions: [])))
        }
        // Examples carry no response format, so the schema is described once, in the real prompt.
        for example in configuration.examples {
            entries.append(.prompt(.init(segments: [.text(.init(content: example.text))])))
            entries.append(.response(.init(segments: [.structure(.init(schemaName: "example", content: example.result))])))
        }
        return Transcript(entries: entries)
    }

    /// The transcript a session for `text` starts from: ``startingTranscript`` and then the most similar
    /// examples of the configuration's example index.
    public func startingTranscript(for text: String) -> Transcript {
        startingTranscript(with: configuration.exampleIndex?.examples(for: text) ?? [])
    }

    /// ``startingTranscript`` and then `examples`, each as a prompt and its response.
    private func startingTranscript(with examples: some Collection<ExampleIndex.Example>) -> Transcript {
        guard !examples.isEmpty else { return startingTranscript }
        var entries = Array(startingTranscript)
        for example in examples {
            entries.append(.prompt(.init(segments: [.text(.init(content: example.text))])))
            entries.append(.response(.init(segments: [.structure(.init(schemaName: "example", content: example.result))])))
        }
        return Transcript(entries: entries)
    }

    /// The example turns before a calibration text, as a text of the job gets them, or `nil` without examples.
    ///
    /// Examples move the model's answers a long way, so a prior measured without them would divide out the
    /// wrong thing: each calibration text is read after the fixed examples and its own most similar ones.
    package let calibrationContext: CalibrationSample.Context?

    private static func calibrationContext(for configuration: TaggingConfiguration) -> CalibrationSample.Context? {
        let index = configuration.exampleIndex.flatMap { $0.shots > 0 && !$0.examples.isEmpty ? $0 : nil }
        guard index != nil || !configuration.examples.isEmpty else { return nil }
        let fixed = Self.turns(configuration.examples)
        let key = fixed.map { $0.role + "\u{1F}" + $0.content }.joined(separator: "\u{1E}") + "\u{1D}" + (index?.identity ?? "")
        return CalibrationSample.Context(key: key, fixedCount: fixed.count) { text in
            fixed + Self.turns(index?.examples(for: text).map { ($0.text, $0.result) } ?? [])
        }
    }

    /// Examples as the chat turns a session renders them: the text, then the result as compact JSON.
    private static func turns(_ examples: [(text: String, result: GeneratedContent)]) -> [ChatMessage] {
        examples.flatMap { [ChatMessage(role: "user", content: $0.text), ChatMessage(role: "assistant", content: $0.result.compactJSONString)] }
    }

    /// Tags one text. Examples from the example index that leave the text no room in the context window are
    /// left out, the least similar first (``fewerShots(after:)``): the text is answered with those that fit.
    public func tag(_ text: String) async -> Result<GeneratedContent, TaggingFailure> {
        if let unsupported = configuration.unsupportedVotes { return .failure(unsupported) }
        if let remote = configuration.remoteEngines { return await tagRemotely(text, on: remote) }
        return await withFittingExamples(for: text) { transcript in await tagLocally(text, from: transcript) }
    }

    /// How many examples to try after `shots` left no room: half as many, so a text tries a few counts at most.
    static func fewerShots(after shots: Int) -> Int { shots / 2 }

    /// `attempt` from the transcript with the examples `text` gets from the example index, then, while it fails
    /// with `context-overflow`, from ones with fewer (``fewerShots(after:)``), the least similar left out. The
    /// pool is ranked once; halving starts from the examples the text got, as a calibration text's do.
    private func withFittingExamples(
        for text: String, _ attempt: (Transcript) async -> Result<GeneratedContent, TaggingFailure>
    ) async -> Result<GeneratedContent, TaggingFailure> {
        let ranked = configuration.exampleIndex?.examples(for: text) ?? []
        var count = ranked.count
        while true {
            let result = await attempt(startingTranscript(with: ranked.suffix(count)))
            guard case .failure(let failure) = result, failure.code == "context-overflow", count > 0 else { return result }
            count = Self.fewerShots(after: count)
        }
    }

    private func tagLocally(_ text: String, from transcript: Transcript) async -> Result<GeneratedContent, TaggingFailure> {
        let session = LanguageModelSession(model: configuration.model, transcript: transcript)
        do {
            let response = try await QualityLevers.$current.withValue(configuration.levers) {
                try await CalibrationSample.$texts.withValue(configuration.effectiveCalibrationTexts) {
                    try await CalibrationSample.$context.withValue(calibrationContext) {
                        try await CalibrationSample.$progress.withValue(calibrationProgress.map(CalibrationSample.Progress.init)) {
                            try await CalibrationStore.$current.withValue(storesCalibration ? CalibrationStore.current : nil) {
                                try await ChoiceVotes.$current.withValue(configuration.exampleIndex?.choiceVotes(for: text)) {
                                    try await session.respond(to: text, schema: configuration.schema, options: configuration.effectiveOptions)
                                }
                            }
                        }
                    }
                }
            }
            return .success(response.content)
        } catch let error as LanguageModelSession.GenerationError {
            if case .decodingFailure(let context) = error, context.debugDescription.contains("maximumResponseTokens") {
                // The same runaway gets the same code whether the budget was the schema's default or set.
                if let limit = configuration.options.maximumResponseTokens {
                    return .failure(TaggingFailure(code: "response-budget", message:
                        "The response passed the budget of \(limit) tokens set with --max-tokens "
                        + "(GenerationOptions.maximumResponseTokens) before the value was complete."))
                }
                if let budget = configuration.responseTokenBudget {
                    return .failure(TaggingFailure(code: "response-budget", message:
                        "The response passed this schema's default budget of \(budget) tokens before the value was complete; "
                        + "set a larger one with --max-tokens (GenerationOptions.maximumResponseTokens)."))
                }
            }
            return .failure(Self.failure(for: error))
        } catch {
            return .failure(TaggingFailure(code: "generation-failed", message: "\(error)"))
        }
    }

    /// Tags one text on the first server of `remote` that takes it.
    ///
    /// The servers are taken in turn, skipping one that has as many of the job's requests as its throttle allows
    /// while another has room; when none has, the text waits for the first. A server that cannot be reached, or
    /// turns the text away after its retries, hands it to the next one. When none took it and some turned it away
    /// while the job had other requests in flight there, the job was crowding them: their throttles have lowered
    /// how many requests they are sent, and the text waits its turn there and tries them again. Only a text that
    /// no server takes even so is failed.
    ///
    /// The rounds end: each crowded turn-away halves its server's limit, or was sent before the last halving,
    /// while the limit grows back only with answers, and a request alone at a server is never crowded. So the
    /// text is answered, or turned away when it is the job's only request there (`server-busy`).
    private func tagRemotely(_ text: String, on remote: RemoteEngines) async -> Result<GeneratedContent, TaggingFailure> {
        // Before a server's place is taken: a text blocked here is no answer of the server's.
        if let reason = configuration.model.guardrails.violation(in: text, source: .prompt, isStringRequest: false) {
            return .failure(TaggingFailure(code: "guardrail-violation", message: "The prompt was blocked by the guardrails (\(reason))."))
        }
        var candidates = remote.serversInTurn()
        while true {
            var result: Result<GeneratedContent, TaggingFailure>?
            var crowded: [(model: ChatCompletionsLanguageModel, throttle: ServerThrottle)] = []
            var untried = candidates
            while !untried.isEmpty {
                guard let next = try? await Self.place(among: untried) else {
                    return .failure(TaggingFailure(code: "cancelled", message: "The job was cancelled before the text was sent."))
                }
                let server = untried.remove(at: next.index)
                var answer = await tagRemotely(text, model: server.model)
                var outcome: ServerThrottle.Outcome = switch answer {
                case .failure(let failure) where failure.code == TaggingFailure.serverBusy: .busy
                case .failure(let failure) where failure.passesToNextServer: .unavailable
                default: .answered
                }
                if case .failure(let failure) = answer, failure.code == Self.noAnswerInTime || failure.code == Self.gatewayTimeout {
                    (answer, outcome) = Self.judged(failure, answers: server.throttle.answers(since: next.permit))
                }
                result = answer
                if server.throttle.release(next.permit, outcome) { crowded.append(server) }
                guard case .failure(let failure) = answer, failure.passesToNextServer else { return answer }
            }
            if crowded.isEmpty {
                return result ?? .failure(TaggingFailure(code: TaggingFailure.serverUnreachable, message: "No server to send the text to."))
            }
            candidates = crowded
        }
    }

    /// Internal codes of a request that got no answer in time (the client's wait for the next bytes ran out, or
    /// the server answered 504), which ``judged(_:answers:)`` turns into a record's code.
    private static let noAnswerInTime = "no-answer-in-time"
    private static let gatewayTimeout = "gateway-timeout"

    /// What a request that got no answer in time means. Beside other requests of the job, it may have waited in
    /// the server's queue (behind an answer still streaming, or while others were answered): busy, so the text
    /// goes to the next server, or is tried again with fewer requests in flight. Alone at a server that never
    /// answered the job, it met one that hangs: unreachable, so the next server takes the text, or the job stops
    /// before its line. Alone at one that answered earlier requests, it met one that stopped answering, or is
    /// working through requests the job gave up on: busy, and the job stops when even a lone request gets no
    /// answer. A 504 alone at a server that has answered is about the text.
    private static func judged(_ failure: TaggingFailure, answers: (others: Bool, ever: Bool, crowded: Bool))
        -> (Result<GeneratedContent, TaggingFailure>, ServerThrottle.Outcome) {
        let slower = " (A slower server needs a longer --endpoint-timeout.)"
        if answers.others || answers.crowded {
            let meanwhile = answers.others ? " It answered other requests of the job meanwhile: it had more of them than it takes at once."
                : " Other requests of the job were waiting there with it."
            return (.failure(TaggingFailure(code: TaggingFailure.serverBusy, message: failure.message + meanwhile + slower)), .late)
        }
        if !answers.ever {
            return (.failure(TaggingFailure(code: TaggingFailure.serverUnreachable, message: failure.message
                + " It has answered no request of the job." + slower)), .unavailable)
        }
        if failure.code == noAnswerInTime {
            return (.failure(TaggingFailure(code: TaggingFailure.serverBusy, message: failure.message
                + " It answered earlier requests of the job, but none since this one was sent." + slower)), .late)
        }
        return (.failure(TaggingFailure(code: "server-error", message: failure.message)), .answered)
    }

    /// A place at the first of `servers` (not empty) that has room, or, when none has, the first one's place
    /// once it frees; with the server's index.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    private static func place(
        among servers: [(model: ChatCompletionsLanguageModel, throttle: ServerThrottle)]
    ) async throws -> (index: Int, permit: ServerThrottle.Permit) {
        for (index, server) in servers.enumerated() {
            if let permit = server.throttle.tryAcquire() { return (index, permit) }
        }
        return (0, try await servers[0].throttle.acquire())
    }

    /// Tags one text on an OpenAI-compatible server: the same transcript, schema and options, without the
    /// in-process engine's use-case prompting and quality levers. The job's guardrails check the text before
    /// it is sent and the answer after, as the local model's do.
    private func tagRemotely(_ text: String, model: ChatCompletionsLanguageModel) async -> Result<GeneratedContent, TaggingFailure> {
        await withFittingExamples(for: text) { transcript in await tagRemotely(text, model: model, from: transcript) }
    }

    private func tagRemotely(_ text: String, model: ChatCompletionsLanguageModel, from transcript: Transcript) async
        -> Result<GeneratedContent, TaggingFailure> {
        let guardrails = configuration.model.guardrails
        let session = LanguageModelSession(model: model, transcript: transcript)
        let started = ContinuousClock.now
        do {
            let response = try await session.respond(to: text, schema: configuration.schema, options: configuration.effectiveOptions)
            configuration.remoteEngines?.noteAnswered(by: model.configuration.endpoint)
            for case .response(let answer) in response.transcriptEntries {
                if let name = answer.metadata["model"] as? String {
                    configuration.remoteEngines?.noteAnswer(from: model.configuration.endpoint, model: name)
                }
            }
            if let reason = guardrails.violation(in: response.content.jsonString, source: .response, isStringRequest: false) {
                return .failure(TaggingFailure(code: "refusal", message: "The response was blocked by the guardrails (\(reason))."))
            }
            return .success(response.content)
        } catch let error as LanguageModelError {
            let message = error.errorDescription ?? "\(error)"
            switch error {
            case .contextSizeExceeded: return .failure(TaggingFailure(code: "context-overflow", message: message))
            case .unsupportedGenerationGuide: return .failure(TaggingFailure(code: "unsupported-schema", message: message))
            case .rateLimited: return .failure(TaggingFailure(code: TaggingFailure.serverBusy, message: message))
            case .timeout:
                // The limit on a whole answer, unlike the wait for its next bytes, says nothing of a silent server.
                let whole = model.configuration.resourceTimeout
                if whole > model.configuration.requestTimeout, started.duration(to: .now) >= .seconds(whole) {
                    return .failure(TaggingFailure(code: "server-error", message: "The answer took longer than the \(Int(whole)) seconds one answer may take."))
                }
                return .failure(TaggingFailure(code: Self.noAnswerInTime, message: message))
            default: return .failure(TaggingFailure(code: "generation-failed", message: message))
            }
        } catch let error as GeneratedContent.ParsingError where error.underlyingError is ResponseLimit {
            // Cut off by the token budget, as a local answer can be: the same code, so a job reads both alike.
            return .failure(TaggingFailure(code: "response-budget", message: error.debugDescription))
        } catch let error as ChatCompletionsError {
            if case .unreachable = error {
                return .failure(TaggingFailure(code: TaggingFailure.serverUnreachable, message: error.debugDescription))
            }
            if case .httpError(status: 503, _) = error {
                return .failure(TaggingFailure(code: TaggingFailure.serverBusy, message: error.debugDescription))
            }
            if case .httpError(status: 504, _) = error {
                return .failure(TaggingFailure(code: Self.gatewayTimeout, message: error.debugDescription))
            }
            // A wrong key, or a model name or route the server does not have: every text would get the same answer.
            // Once the server has answered a text of the job, a refusal is about this text (a proxy's filter).
            if case .httpError(status: let status, _) = error, [401, 403, 404].contains(status),
               configuration.remoteEngines?.hasAnswered(model.configuration.endpoint) != true {
                return .failure(TaggingFailure(code: TaggingFailure.serverRefused, message: error.debugDescription))
            }
            return .failure(TaggingFailure(code: "server-error", message: error.debugDescription))
        } catch {
            return .failure(TaggingFailure(code: "generation-failed", message: "\(error)"))
        }
    }

    /// The record error for a generation error.
    public static func failure(for error: LanguageModelSession.GenerationError) -> TaggingFailure {
        let message = error.errorDescription ?? "\(error)"
        switch error {
        case .exceededContextWindowSize: return TaggingFailure(code: "context-overflow", message: message)
        case .assetsUnavailable: return TaggingFailure(code: TaggingFailure.modelUnavailable, message: message)
        case .guardrailViolation: return TaggingFailure(code: "guardrail-violation", message: message)
        case .unsupportedGuide: return TaggingFailure(code: "unsupported-schema", message: message)
        case .refusal: return TaggingFailure(code: "refusal", message: message)
        default: return TaggingFailure(code: "generation-failed", message: message)
        }
    }
}

extension Tagger {
    /// Tags several texts, each in its own session (with its own examples, when the configuration has an
    /// example index), keeping up to `parallel` requests in flight: the model's engine decodes concurrent
    /// requests together in one llama.cpp batch (and evaluates their shared instructions once). Results are in
    /// input order.
    public func tag(_ texts: [String], parallel: Int) async -> [Result<GeneratedContent, TaggingFailure>] {
        let width = max(1, parallel)
        guard width > 1, texts.count > 1 else {
            var results: [Result<GeneratedContent, TaggingFailure>] = []
            for text in texts { results.append(await tag(text)) }
            return results
        }
        return await withTaskGroup(of: (Int, Result<GeneratedContent, TaggingFailure>).self) { group in
            var results = [Result<GeneratedContent, TaggingFailure>?](repeating: nil, count: texts.count)
            var next = 0
            while next < min(width, texts.count) {
                let index = next
                group.addTask { (index, await self.tag(texts[index])) }
                next += 1
            }
            while let (index, result) = await group.next() {
                results[index] = result
                if next < texts.count {
                    let index = next
                    group.addTask { (index, await self.tag(texts[index])) }
                    next += 1
                }
            }
            return results.map { $0! }
        }
    }
}
