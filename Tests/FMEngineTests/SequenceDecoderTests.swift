@testable import FMEngine
import FMDecoding
import FMLlama
import Foundation
import Synchronization
import Testing

/// One response's decoding step by step on the real tiny model: forced text, masks, guards, limits and the
/// errors each way a response can go wrong.
@Suite(.serialized) struct SequenceDecoderTests {
    /// The tiny model, as the rest of the suite installs it.
    static let path: String = {
        if let path = ProcessInfo.processInfo.environment["FM_MODEL_PATH"] { return path }
        return CacheDirectory.root.appendingPathComponent("models/SmolLM2-135M-Instruct.Q4_1.gguf").path
    }()

    static func model() throws -> LoadedModel {
        do { return try ModelRegistry.shared.model(at: path) } catch {
            throw TestModelMissing(description: "The tiny model is missing at \(path) (\(error)); run `fm model install tiny`.")
        }
    }

    struct TestModelMissing: Error, CustomStringConvertible { var description: String }

    static func decoder(_ root: SchemaNode?, maximumTokens: Int? = nil, pending: [Int32] = [1, 2, 3]) throws -> SequenceDecoder {
        let model = try model()
        let constraint = try root.map { try model.constraint(for: SchemaDocument(root: $0)) }
        let job = GenerationJob(messages: [], sampling: .greedy, maximumTokens: maximumTokens, constraint: constraint)
        return SequenceDecoder(job: job, model: model, promptTokens: pending.count, reusedTokens: 0, pending: pending)
    }

    /// The token `decoder` picks from logits that put all the weight on `favourite`.
    static func pick(_ decoder: inout SequenceDecoder, favouring favourite: Int32, model: LoadedModel) -> Int32? {
        var logits = [Float](repeating: 0, count: model.llama.vocabularySize)
        logits[Int(favourite)] = 100
        return logits.withUnsafeBufferPointer { decoder.pickToken(from: $0) }
    }

    static func token(_ text: String, model: LoadedModel) throws -> Int32 {
        let tokens = try model.llama.tokenize(text, addSpecial: false, parseSpecial: false)
        try #require(tokens.count == 1, "\(text) is one token")
        return tokens[0]
    }

    @Test func textTheGrammarForcesIsQueuedAndCounted() throws {
        var decoder = try Self.decoder(.object(properties: [SchemaProperty(name: "kind", schema: .literal(#""note""#))]))
        let stop = try decoder.prepareStep(cached: 0)
        #expect(stop == .finished, "a constant value is complete without sampling")
        #expect(decoder.outcome.text == #"{"kind":"note"}"#)
        #expect(decoder.outcome.sampledTokens == 0)
        #expect(decoder.outcome.forcedTokens == decoder.pending.count - 3, "forced tokens wait behind the prompt")
        #expect(decoder.outcome.forcedTokens > 0)
    }

    @Test func theMaskOverridesTheModelsFavourite() throws {
        let model = try Self.model()
        var decoder = try Self.decoder(.boolean)
        #expect(try decoder.prepareStep(cached: 0) == nil)
        let picked = try #require(Self.pick(&decoder, favouring: try Self.token("hello", model: model), model: model))
        let text = String(decoding: model.llama.tokenBytes[Int(picked)], as: UTF8.self)
        #expect("true".hasPrefix(text) || "false".hasPrefix(text), "picked \(text)")
        #expect(try decoder.accept(picked) == false)
        #expect(decoder.outcome.sampledTokens == 1)
    }

    @Test func withoutAGrammarTheModelsFavouriteWins() throws {
        let model = try Self.model()
        var decoder = try Self.decoder(nil)
        let hello = try Self.token("hello", model: model)
        #expect(Self.pick(&decoder, favouring: hello, model: model) == hello)
    }

    @Test func theRepetitionGuardClosesAThirdIdenticalElement() throws {
        let model = try Self.model()
        var decoder = try Self.decoder(.array(items: .string(.any), minimumCount: 0, maximumCount: nil, uniqueItems: false))
        for token in try model.llama.tokenize(#"["ab","ab""#, addSpecial: false, parseSpecial: false) {
            #expect(try decoder.accept(token) == false)
        }
        #expect(try decoder.prepareStep(cached: 0) == nil)
        let comma = try Self.token(",", model: model)
        let picked = try #require(Self.pick(&decoder, favouring: comma, model: model))
        let text = String(decoding: model.llama.tokenBytes[Int(picked)], as: UTF8.self)
        #expect(!text.hasPrefix(","), "the third member does not start (picked \(text))")
    }

    @Test func theTokenLimitEndsTheResponse() throws {
        let model = try Self.model()
        var decoder = try Self.decoder(nil, maximumTokens: 2)
        let hello = try Self.token("hello", model: model)
        _ = try decoder.accept(hello)
        #expect(try decoder.prepareStep(cached: 0) == nil)
        _ = try decoder.accept(hello)
        #expect(try decoder.prepareStep(cached: 0) == .maximumTokens)
    }

    @Test func theEndOfTheContextWindowIsAnError() throws {
        let model = try Self.model()
        var text = try Self.decoder(nil)
        do {
            _ = try text.prepareStep(cached: model.contextSize - 3)
            Issue.record("text that reaches the window end is an error")
        } catch {
            guard case .contextOverflow = error else { Issue.record("text overflows the context: \(error)"); return }
        }
        var value = try Self.decoder(.string(.any))
        do {
            _ = try value.prepareStep(cached: model.contextSize)
            Issue.record("a value cut off by the window end is an error")
        } catch {
            guard case .truncated = error else { Issue.record("an unfinished value is truncated: \(error)"); return }
        }
        var roomy = try Self.decoder(nil)
        #expect(try roomy.prepareStep(cached: model.contextSize - 4) == nil)
    }

    @Test func endingTheTurnMidValueIsTruncationAndNoTokenIsAnError() throws {
        let model = try Self.model()
        let end = try #require(model.llama.endOfGenerationTokens.first)
        var value = try Self.decoder(.string(.any))
        for token in try model.llama.tokenize(#""ab"#, addSpecial: false, parseSpecial: false) { _ = try value.accept(token) }
        do {
            _ = try value.accept(end)
            Issue.record("an unfinished value cannot end")
        } catch {
            guard case .truncated = error else { Issue.record("truncated, not \(error)"); return }
        }
        var free = try Self.decoder(nil)
        #expect(try free.accept(end) == true, "free text may end anywhere")
        do {
            _ = try free.accept(nil)
            Issue.record("no allowed token is an error")
        } catch {
            guard case .runtime = error else { Issue.record("runtime, not \(error)"); return }
        }
    }
}

/// Prompt-lookup drafting: what a response's tail proposes from the prompt, and where the grammar stops it.
@Suite(.serialized) struct DraftingTests {
    static func tokens(_ text: String, _ model: LoadedModel) throws -> [Int32] {
        try model.llama.tokenize(text, addSpecial: false, parseSpecial: false)
    }

    @Test func aPhraseOfThePromptProposesWhatFollowsIt() throws {
        let model = try SequenceDecoderTests.model()
        let list = SchemaNode.array(items: .string(.any), minimumCount: 0, maximumCount: 3, uniqueItems: false)
        var decoder = try SequenceDecoderTests.decoder(list)
        let source = try Self.tokens("Note: the meeting rooms open between one and three pm.", model)
        for token in try Self.tokens(#"["the meeting rooms"#, model) { _ = try decoder.accept(token) }
        let draft = decoder.draft(from: source, maximum: 6, choicePoints: nil)
        let text = String(decoding: draft.flatMap { model.llama.tokenBytes[Int($0)] }, as: UTF8.self)
        #expect(text.hasPrefix(" open between"), "drafted \(text)")
        #expect(draft.count <= 6)
        #expect(decoder.draft(from: source, maximum: 2, choicePoints: nil).count <= 2)
        #expect(decoder.draft(from: source, maximum: 0, choicePoints: nil).isEmpty)
    }

    @Test func aWordProposesTheRestOfItselfButNotTheNextWord() throws {
        let model = try SequenceDecoderTests.model()
        let list = SchemaNode.array(items: .string(.any), minimumCount: 0, maximumCount: 3, uniqueItems: false)
        let sentence = "We fed the sourdough starter before the holidays."
        let source = try Self.tokens(sentence, model)
        let pieces = source.map { String(decoding: model.llama.tokenBytes[Int($0)], as: UTF8.self) }
        // The tokenizer splits "sourdough" after its first piece; a tag that has begun the word gets the rest.
        let first = try #require(pieces.firstIndex { $0.hasPrefix(" s") && " sourdough".hasPrefix($0) && $0 != " sourdough" },
                                 "\(pieces)")
        var decoder = try SequenceDecoderTests.decoder(list)
        for token in try Self.tokens("[\"" + pieces[first].dropFirst(), model) { _ = try decoder.accept(token) }
        let draft = decoder.draft(from: source, maximum: 4, choicePoints: nil)
        let text = String(decoding: draft.flatMap { model.llama.tokenBytes[Int($0)] }, as: UTF8.self)
        #expect(text == pieces[(first + 1)...].prefix { !$0.hasPrefix(" ") }.joined(), "drafted \(text) from \(pieces)")
        #expect(" sourdough".hasPrefix(pieces[first] + text))

        // A whole word does not propose the one after it: a tag seldom goes on as its sentence does.
        var whole = try SequenceDecoderTests.decoder(list)
        for token in try Self.tokens(#"["sourdough"#, model) { _ = try whole.accept(token) }
        #expect(whole.draft(from: source, maximum: 4, choicePoints: nil).isEmpty)
    }

    @Test func whichCopiedTokensADraftTakes() {
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        // First in a draft: anything but the source's next word.
        #expect(SequenceDecoder.isDraftable(bytes("\":[\""), after: nil, copyingPhrase: false))
        #expect(SequenceDecoder.isDraftable(bytes("dough"), after: nil, copyingPhrase: false))
        #expect(!SequenceDecoder.isDraftable(bytes(" starter"), after: nil, copyingPhrase: false))
        // Later: the rest of a word only, and nothing after a quote.
        #expect(SequenceDecoder.isDraftable(bytes("ation"), after: bytes("ustr"), copyingPhrase: false))
        #expect(!SequenceDecoder.isDraftable(bytes("\",\""), after: bytes("ation"), copyingPhrase: false))
        #expect(!SequenceDecoder.isDraftable(bytes("hiking"), after: bytes("\":[\""), copyingPhrase: false))
        // A response copying a phrase takes the next words too, up to a quote.
        #expect(SequenceDecoder.isDraftable(bytes(" open"), after: nil, copyingPhrase: true))
        #expect(SequenceDecoder.isDraftable(bytes(" between"), after: bytes(" open"), copyingPhrase: true))
        #expect(!SequenceDecoder.isDraftable(bytes(" next"), after: bytes("end\""), copyingPhrase: true))
        #expect(!SequenceDecoder.isDraftable([], after: nil, copyingPhrase: true))
    }

    @Test func theGrammarCutsADraft() throws {
        let model = try SequenceDecoderTests.model()
        // A pattern of lowercase letters and spaces: the draft ends before the period.
        let word = SchemaNode.string(.pattern("[a-z ]+"))
        var decoder = try SequenceDecoderTests.decoder(word)
        for token in try Self.tokens(#""one and three"#, model) { _ = try decoder.accept(token) }
        let source = try Self.tokens("open between one and three pm. Then closed.", model)
        let draft = decoder.draft(from: source, maximum: 6, choicePoints: nil)
        let text = String(decoding: draft.flatMap { model.llama.tokenBytes[Int($0)] }, as: UTF8.self)
        #expect(text == " pm", "drafted \(text)")
    }

    @Test func punctuationAloneProposesNothing() throws {
        let model = try SequenceDecoderTests.model()
        var decoder = try SequenceDecoderTests.decoder(nil)
        _ = try decoder.accept(try SequenceDecoderTests.token(",", model: model))
        #expect(decoder.draft(from: try Self.tokens("a, b, c, d", model), maximum: 6, choicePoints: nil).isEmpty)
    }

    @Test func draftedTokensAreNotEvaluatedAgain() throws {
        let model = try SequenceDecoderTests.model()
        var decoder = try SequenceDecoderTests.decoder(nil, pending: [])
        let hello = try SequenceDecoderTests.token("hello", model: model)
        #expect(try decoder.accept(hello, evaluated: true) == false)
        #expect(decoder.pending.isEmpty && decoder.generated == [hello] && decoder.outcome.sampledTokens == 1)
    }
}

/// Drafting through the engine: drafted tokens are verified against the model's own picks.
@Suite(.serialized) struct DraftVerificationTests {
    @Test func copiedTextIsVerifiedAndGivesTheSingleStepResponse() async throws {
        let model = try SequenceDecoderTests.model()
        let engine = try await ModelRegistry.shared.engine(at: SequenceDecoderTests.path)
        let schema = SchemaDocument(root: .object(properties: [
            SchemaProperty(name: "quote", schema: .string(.any)),
        ]))
        let constraint = try model.constraint(for: schema)
        let text = "the meeting rooms open between one and three pm on weekdays"
        var job = GenerationJob(messages: [ChatMessage(role: "user", content: "Repeat this sentence exactly: \(text)")],
                                sampling: .greedy, maximumTokens: 64, constraint: constraint)
        job.levers.draftsFromPrompt = true
        let drafted = try await engine.generate(job)
        job.levers.draftsFromPrompt = false
        let single = try await engine.generate(job)

        #expect(single.draftedTokens == 0)
        #expect(drafted.draftedTokens > 0, "the copy was drafted: \(drafted.text)")
        // Verification keeps a drafted token only where the model picks it, so the response is the one single
        // steps give (this prompt has no near-tie that batched arithmetic could break).
        #expect(drafted.text == single.text)
        #expect(drafted.stop == single.stop && drafted.sampledTokens == single.sampledTokens)
    }
}

/// Logits for the grammar's tokens only (`QualityLevers.restrictsLogits`): the same responses, fewer logits.
@Suite(.serialized) struct RestrictedLogitsEngineTests {
    static let schema = SchemaDocument(root: .object(properties: [
        SchemaProperty(name: "topics", schema: .array(items: .string(.pattern("[a-z]{1,12}( [a-z]{1,12})?")), minimumCount: 1,
                                                      maximumCount: 3, uniqueItems: true)),
        SchemaProperty(name: "mood", schema: .string(.choices(["calm", "cheerful", "tense"]))),
    ]))

    static func job(_ text: String, restricted: Bool, constraint: TokenConstraint) -> GenerationJob {
        var job = GenerationJob(messages: [ChatMessage(role: "user", content: "Tag this text: \(text)")], sampling: .greedy,
                                maximumTokens: 64, constraint: constraint, choicePoints: ChoicePoints(document: schema))
        job.levers.restrictsLogits = restricted
        return job
    }

    @Test func aLoneJobGivesTheSameResponseWithFewerLogits() async throws {
        let model = try SequenceDecoderTests.model()
        let engine = try await ModelRegistry.shared.engine(at: SequenceDecoderTests.path)
        let constraint = try model.constraint(for: Self.schema)
        for text in ["We had a lovely picnic at the beach.", "The train was late again and nobody told us why."] {
            let restricted = try await engine.generate(Self.job(text, restricted: true, constraint: constraint))
            let full = try await engine.generate(Self.job(text, restricted: false, constraint: constraint))
            #expect(restricted.text == full.text)
            #expect(restricted.sampledTokens == full.sampledTokens && restricted.forcedTokens == full.forcedTokens)
            #expect(full.restrictedSteps == 0)
            // Every sampled tag token is picked from restricted logits; the mood is a choice, scored in full.
            #expect(restricted.restrictedSteps > 0 && restricted.restrictedSteps < restricted.sampledTokens + 1,
                    "\(restricted.restrictedSteps) restricted of \(restricted.sampledTokens) sampled: \(restricted.text)")
        }
    }

    @Test func jobsDecodedTogetherAreRestrictedInTheBatch() async throws {
        let model = try SequenceDecoderTests.model()
        let engine = try await ModelRegistry.shared.engine(at: SequenceDecoderTests.path)
        let constraint = try model.constraint(for: Self.schema)
        let texts = ["Fresh bread from the bakery.", "A storm closed the mountain pass.", "Our team won the final."]
        let outcomes = try await withThrowingTaskGroup(of: GenerationOutcome.self) { group in
            for text in texts { group.addTask { try await engine.generate(Self.job(text, restricted: true, constraint: constraint)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 3)
        #expect(outcomes.allSatisfy { $0.restrictedSteps > 0 }, "\(outcomes.map(\.restrictedSteps))")
        for outcome in outcomes {
            let value = try JSONSerialization.jsonObject(with: Data(outcome.bytes)) as? [String: Any]
            #expect((value?["topics"] as? [String])?.isEmpty == false && value?["mood"] is String, "\(outcome.text)")
        }
    }
}


/// A long prompt is evaluated a chunk per engine step, so other jobs keep stepping and cancellations are seen.
@Suite(.serialized) struct ChunkedPrefillTests {
    @Test func aShortJobFinishesWhileALongPromptIsStillBeingEvaluated() async throws {
        let engine = try await ModelRegistry.shared.engine(at: SequenceDecoderTests.path)
        let model = try SequenceDecoderTests.model()
        // About 2,600 tokens: five chunks of 512.
        let long = String(repeating: "The river runs past the old mill and the bakery on the corner. ", count: 200)
        #expect(try model.llama.tokenize(long, addSpecial: false, parseSpecial: false).count > 4 * 512)
        let events = EventLog()
        let longJob = GenerationJob(messages: [ChatMessage(role: "user", content: long + "\nSummarise.")], sampling: .greedy,
                                    maximumTokens: 4, constraint: nil)
        let shortJob = GenerationJob(messages: [ChatMessage(role: "user", content: "Say hi.")], sampling: .greedy,
                                     maximumTokens: 2, constraint: nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                _ = try await engine.generate(longJob) { _, _ in events.append("long wrote") }
                events.append("long done")
            }
            // Submitted while the long prompt's first chunk is evaluated.
            try await Task.sleep(for: .milliseconds(50))
            group.addTask {
                _ = try await engine.generate(shortJob)
                events.append("short done")
            }
            try await group.waitForAll()
        }
        let order = events.entries
        let shortDone = try #require(order.firstIndex(of: "short done"))
        let longWrote = try #require(order.firstIndex(of: "long wrote"))
        #expect(shortDone < longWrote, "\(order)")
    }

    @Test func cancellingALongPromptEndsItBeforeItsPrefillCompletes() async throws {
        let engine = try await ModelRegistry.shared.engine(at: SequenceDecoderTests.path)
        // A prompt no cache holds yet, so its whole prefill is ahead.
        let long = String(repeating: "A ferry crosses the bay twice an hour while gulls follow it. ", count: 200)
        let job = GenerationJob(messages: [ChatMessage(role: "user", content: long + "\nSummarise.")], sampling: .greedy,
                                maximumTokens: 4, constraint: nil)
        let events = EventLog()
        let task = Task { try await engine.generate(job) { _, _ in events.append("wrote") } }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result, case .cancelled? = error as? GenerationFailure else {
            Issue.record("the job was cancelled: \(result)")
            return
        }
        #expect(events.entries.isEmpty, "no token was written after the cancellation")
    }

    /// What happened, in order, across tasks.
    final class EventLog: Sendable {
        private let list = Mutex<[String]>([])
        func append(_ event: String) { list.withLock { $0.append(event) } }
        var entries: [String] { list.withLock { $0 } }
    }
}

/// Calibration tables that requests stop waiting for, on the real tiny model.
@Suite(.serialized) struct OrphanedCalibrationTests {
    static let schema = SchemaDocument(root: .object(properties: [
        SchemaProperty(name: "mood", schema: .string(.choices(["calm", "cheerful", "tense"]))),
    ]))

    /// A job under instructions of its own, so it needs a calibration table no other job computes.
    static func job(_ instructions: String, constraint: TokenConstraint) -> GenerationJob {
        GenerationJob(messages: [ChatMessage(role: "system", content: instructions),
                                 ChatMessage(role: "user", content: "The train was late again and nobody told us why.")],
                      sampling: .greedy, maximumTokens: 32, constraint: constraint, choicePoints: ChoicePoints(document: schema))
    }

    @Test func onlyOneCalibrationGoesOnOnceItsRequestsAreCancelled() async throws {
        let model = try SequenceDecoderTests.model()
        // An engine of its own on the shared model: the counts of calibrations in flight are an engine's, and
        // tests running beside this one calibrate on the shared engine.
        let engine = Engine(model: try await ModelRegistry.shared.engine(at: SequenceDecoderTests.path).model)
        let constraint = try model.constraint(for: Self.schema)
        let jobs = (1...3).map { Self.job("Label the mood of the text. (\($0), \(UUID()))", constraint: constraint) }
        // Each needs its own table, of one run per reference text: three computations, none of them cached.
        // What each request's calibration tells its follower: the runs left after each report.
        let reports = ChunkedPrefillTests.EventLog()
        let requests = jobs.indices.map { index in
            Task {
                let progress = CalibrationSample.Progress { done, total in reports.append("\(index) \(total - done)") }
                return try await CalibrationSample.$progress.withValue(progress) { try await engine.generate(jobs[index]) }
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while engine.calibrationsInFlight.running < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try #require(engine.calibrationsInFlight.running == 3)

        for request in requests { request.cancel() }
        for request in requests {
            let result = await request.result
            guard case .failure(let error) = result, case .cancelled? = error as? GenerationFailure else {
                Issue.record("a cancelled request ended with \(result)")
                continue
            }
        }
        // One goes on, for a client that retries; the others are dropped at once.
        #expect(engine.calibrationsInFlight.running == 1 && engine.calibrationsInFlight.orphaned == 1)
        let end = ContinuousClock.now + .seconds(120)
        while engine.calibrationsInFlight.running > 0, ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(20)) }
        try #require(engine.calibrationsInFlight.running == 0)
        // Only the one that went on left a table; the cancelled ones stopped before finishing theirs.
        let cached = jobs.filter { job in
            model.calibration(for: constraint, key: Engine.calibrationKey(for: job, texts: CalibrationSample.reference, context: nil)) != nil
        }
        #expect(cached.count == 1)
        // Each computation told its follower that it ended, the dropped ones too (a server's gauge of running
        // calibrations goes back to zero).
        let lastReports = Dictionary(reports.entries.map { ($0.split(separator: " ")[0], $0.split(separator: " ")[1]) }) { $1 }
        #expect(lastReports.count == 3 && lastReports.values.allSatisfy { $0 == "0" }, "\(reports.entries)")
    }
}

/// A batch context that runs out of cells while a job scores its choices, on the real tiny model.
@Suite(.serialized) struct BatchRoomForChoicesTests {
    /// Eight values of twenty-odd tokens each, none sharing a first word: scoring them takes almost 200 cells.
    static let values = ["apples", "bicycles", "castles", "dolphins", "engines", "forests", "glaciers", "harbours"].map { word in
        ([word] + Array(repeating: "and more \(word)", count: 8)).joined(separator: " ")
    }

    /// A job that writes `characters` lowercase letters and spaces: it cannot stop early.
    static func writing(_ characters: Int, after prompt: String, model: LoadedModel) throws -> GenerationJob {
        let schema = SchemaDocument(root: .object(properties: [SchemaProperty(name: "text", schema: .string(.pattern("[a-z ]{\(characters)}")))]))
        return GenerationJob(messages: [ChatMessage(role: "user", content: prompt)], sampling: .greedy, maximumTokens: 200,
                             constraint: try model.constraint(for: schema))
    }

    /// Runs `job` on `engine` in a task, and returns once the job has written its first token.
    static func start(_ job: GenerationJob, on engine: Engine) async -> Task<GenerationOutcome, any Error> {
        let (started, continuation) = AsyncStream.makeStream(of: Void.self)
        let task = Task { try await engine.generate(job) { _, _ in continuation.yield() } }
        for await _ in started { break }
        return task
    }

    @Test func aJobScoringChoicesWithoutRoomWaitsForAnotherInsteadOfFailing() async throws {
        // Half a window of 512 cells for the batch context, so a few jobs fill it.
        let model = LoadedModel(llama: try SequenceDecoderTests.model().llama, contextSize: 256)
        let engine = Engine(model: model)
        #expect(try Self.values.map { try model.llama.tokenize($0, addSpecial: false, parseSpecial: false).count }.reduce(0, +) > 160)
        // A job in a lone context, so the next ones share the batch context.
        let holder = await Self.start(try Self.writing(240, after: "Write about the sea.", model: model), on: engine)
        // Two jobs of 170-token prompts that write for a while: beside them the choosing job's candidates do not fit.
        var fillers: [Task<GenerationOutcome, any Error>] = []
        for place in ["harbour", "meadow"] {
            var prompt = "Tell me about the \(place)."
            while try model.llama.tokenize(prompt, addSpecial: false, parseSpecial: false).count < 170 {
                prompt += " The light moves slowly over the \(place) while the birds circle overhead."
            }
            fillers.append(await Self.start(try Self.writing(120, after: prompt, model: model), on: engine))
        }
        let chooser = SchemaDocument(root: .object(properties: [SchemaProperty(name: "kind", schema: .string(.choices(Self.values)))]))
        var choice = GenerationJob(messages: [ChatMessage(role: "user", content: "Which kind of thing is a sailing boat?")],
                                   sampling: .greedy, maximumTokens: 100, constraint: try model.constraint(for: chooser),
                                   choicePoints: ChoicePoints(document: chooser))
        choice.levers.calibratesChoices = false
        let chosen = try await engine.generate(choice)
        for filler in fillers { _ = try await filler.value }
        _ = try await holder.value

        let value = try JSONSerialization.jsonObject(with: Data(chosen.bytes)) as? [String: Any]
        #expect((value?["kind"] as? String).map(Self.values.contains) == true, "\(chosen.text)")
        #expect(engine.jobsSentBack >= 1, "the batch context was expected to run out of cells")
    }
}
