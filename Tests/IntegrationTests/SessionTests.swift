@testable import FoundationModels
import Foundation
import Synchronization
import Testing

@Suite("LanguageModelSession with the real default model", .serialized, .timeLimit(.minutes(10)))
struct SessionTests {
    @Test func greedyResponsesAreDeterministic() async throws {
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 24)
        let first = try await LanguageModelSession(model: DefaultModel.model).respond(to: "Name three colors.", options: options)
        let second = try await LanguageModelSession(model: DefaultModel.model).respond(to: "Name three colors.", options: options)
        #expect(!first.content.isEmpty)
        #expect(first.content == second.content)
    }

    @Test func seededSamplingIsReproducible() async throws {
        func run(seed: UInt64) async throws -> String {
            let options = GenerationOptions(samplingMode: .random(top: 40, seed: seed), temperature: 1.0, maximumResponseTokens: 24)
            return try await LanguageModelSession(model: DefaultModel.model).respond(to: "Write a short poem about rain.", options: options).content
        }
        let a = try await run(seed: 11)
        let b = try await run(seed: 11)
        #expect(a == b)
        let others = try await [run(seed: 12), run(seed: 13)]
        #expect(others.contains { $0 != a }, "different seeds explore different outputs")
    }

    @Test func maximumResponseTokensEndsTextEarlyWithoutError() async throws {
        let session = LanguageModelSession(model: DefaultModel.model)
        let response = try await session.respond(to: "Tell me a long story about a dragon.",
                                                 options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 5))
        #expect(!response.content.isEmpty)
        #expect(session.lastStatistics?.sampledTokens == 5)
        guard case .response(let entry)? = session.transcript.last else { Issue.record("no response entry"); return }
        #expect(entry.metadata["finishReason"] as? String == "length", "the limit, not the model, ended the response")

        let fresh = LanguageModelSession(model: DefaultModel.model)
        let short = try await fresh.respond(to: "What is the capital of France?", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 200))
        try #require((fresh.lastStatistics?.sampledTokens ?? 200) < 200, "the model must end this answer itself: \(short.content)")
        guard case .response(let ended)? = fresh.transcript.last else { Issue.record("no response entry"); return }
        #expect(ended.metadata["finishReason"] as? String == "stop")
    }

    @Test func streamingSnapshotsGrowAndNeverSplitCharacters() async throws {
        let session = LanguageModelSession(model: DefaultModel.model)
        var snapshots: [String] = []
        let stream = session.streamResponse(
            to: "Write one sentence in French about coffee, with accents like é and è, and end with an emoji.",
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 48))
        var ids: Set<GenerationID?> = []
        for try await snapshot in stream {
            snapshots.append(snapshot.content)
            ids.insert(snapshot.rawContent.id)
        }
        #expect(snapshots.count > 3)
        for (earlier, later) in zip(snapshots, snapshots.dropFirst()) {
            #expect(later.hasPrefix(earlier), "each snapshot extends the previous one")
        }
        #expect(snapshots.allSatisfy { !$0.contains("\u{FFFD}") }, "no snapshot ends inside a UTF-8 character")
        #expect(snapshots.last!.unicodeScalars.contains { !$0.isASCII }, "the response has non-ASCII text")
        #expect(ids.count == 1 && ids.first! != nil, "one GenerationID for the whole stream")
        let response = try await stream.collect()
        #expect(response.content == snapshots.last)
        #expect(session.transcript.count == 2)
    }

    @Test func laterTurnsSeeEarlierOnesAndReuseTheirKVCache() async throws {
        // Recalling the word is a question of answer quality, so the catalogue's default model answers it: the
        // tiny model said "piney" on an AVX-512 machine, where its kernels round differently.
        let entry = ModelCatalog.defaultEntry
        #expect(entry.installState == .installed, "Run `fm model install \(entry.name)` (or `make test`).")
        let model = SystemLanguageModel(modelURL: entry.fileURL)
        let session = LanguageModelSession(model: model, instructions: "You are a helpful assistant. Answer briefly.")
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 24)
        try await session.respond(to: "Remember this code word: pineapple.", options: options)
        let first = try #require(session.lastStatistics)
        let answer = try await session.respond(to: "What was the code word I asked you to remember?", options: options)
        let second = try #require(session.lastStatistics)
        #expect(answer.content.lowercased().contains("pineapple"))
        #expect(second.reusedTokens >= first.promptTokens, "the first turn's tokens come from the KV cache")
        #expect(session.transcript.count == 5) // instructions, prompt, response, prompt, response
        #expect(answer.transcriptEntries.count == 2)
    }

    @Test func promptsBeyondTheContextWindowThrow() async throws {
        let session = LanguageModelSession(model: DefaultModel.model)
        let huge = String(repeating: "This sentence fills the context window. ", count: 700)
        await #expect {
            try await session.respond(to: huge)
        } throws: { error in
            guard case .exceededContextWindowSize(let context) = error as? LanguageModelSession.GenerationError else { return false }
            return context.debugDescription.contains("4096")
        }
        #expect(session.transcript.isEmpty, "a failed request leaves the transcript as it was")
        #expect(!session.isResponding)
    }

    @Test func aSecondRequestWhileRespondingThrowsConcurrentRequests() async throws {
        let session = LanguageModelSession(model: DefaultModel.model)
        let stream = session.streamResponse(to: "Count from one to fifty in words.",
                                            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40))
        #expect(session.isResponding)
        await #expect {
            try await session.respond(to: "Hello")
        } throws: { error in
            if case .concurrentRequests = error as? LanguageModelSession.GenerationError { return true }
            return false
        }
        _ = try await stream.collect()
        #expect(!session.isResponding)
        #expect(session.transcript.count == 2, "only the first request is recorded")
    }

    @Test func aMissingModelIsUnavailableAndThrowsAssetsUnavailable() async throws {
        let model = SystemLanguageModel(modelURL: URL(fileURLWithPath: "/nonexistent/model.gguf"))
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(!model.isAvailable)
        await #expect {
            try await LanguageModelSession(model: model).respond(to: "Hi")
        } throws: { error in
            guard case .assetsUnavailable(let context) = error as? LanguageModelSession.GenerationError else { return false }
            return context.debugDescription.contains("fm model install")
        }
    }

    /// A stream hands its error to its first reader only; `collect()` afterwards throws that same error, not a
    /// made-up "ended without a response".
    @Test func collectAfterAFailedIterationThrowsTheStreamsError() async throws {
        let model = SystemLanguageModel(modelURL: URL(fileURLWithPath: "/nonexistent/model.gguf"))
        let session = LanguageModelSession(model: model)
        let stream = session.streamResponse(to: "Hi")
        // The failure is stored before the first read (the case where a stream hands it out only once).
        while session.isResponding { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        var iterationError: (any Error)?
        do { for try await _ in stream {} } catch { iterationError = error }
        #expect(iterationError is LanguageModelSession.GenerationError, "\(String(describing: iterationError))")
        await #expect {
            try await stream.collect()
        } throws: { error in
            guard case .assetsUnavailable(let context) = error as? LanguageModelSession.GenerationError else { return false }
            return context.debugDescription.contains("fm model install")
        }
    }

    /// GGUF files that are not models: well-formed metadata without tensors, and a header that promises a tensor the
    /// file does not hold. Neither may crash llama.cpp's loader; both fail the request with `assetsUnavailable`.
    @Test(arguments: [false, true])
    func aGGUFFileThatIsNotAModelThrowsAssetsUnavailable(claimsATensor: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-not-a-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var data = AdapterTests.minimalGGUF(["general.architecture": "none", "general.name": "metadata only"])
        if claimsATensor {
            withUnsafeBytes(of: UInt64(1).littleEndian) { data.replaceSubrange(8..<16, with: $0) }  // tensor count
        }
        let url = directory.appendingPathComponent("model.gguf")
        try data.write(to: url)
        let model = SystemLanguageModel(modelURL: url)
        if !claimsATensor {
            // The header alone shows there are no weights.
            #expect(model.availability == .unavailable(.modelNotReady))
        }
        await #expect {
            try await LanguageModelSession(model: model).respond(to: "Hi")
        } throws: { error in
            guard case .assetsUnavailable(let context) = error as? LanguageModelSession.GenerationError else { return false }
            // The file with a tensor count gets past the header check, so its error comes from llama.cpp's loader.
            return context.debugDescription.contains(url.path)
                && context.debugDescription.contains("could not be loaded") == claimsATensor
        }
    }

    @Test func prewarmFillsTheCacheForTheFirstRequest() async throws {
        let instructions = "You are a terse assistant that answers in exactly one word. " + String(repeating: "Be brief. ", count: 30)
        let session = LanguageModelSession(model: DefaultModel.model, instructions: instructions)
        session.prewarm(promptPrefix: Prompt("Question:"))
        // Prewarm returns at once; a request made straight after it still starts from its work.
        try await session.respond(to: "Question: what color is the sky?", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4))
        let statistics = try #require(session.lastStatistics)
        #expect(statistics.reusedTokens > 60, "the instructions were prefilled by prewarm")
    }

    @Test func aCancelledRequestStopsWaitingForAPrewarm() async throws {
        // About 1,000 tokens of instructions: seconds of prefill on two cores, even for the tiny model.
        let instructions = "You answer questions about the weather. " + String(repeating: "Say it in one short sentence. ", count: 140)
        let model = DefaultModel.model
        let session = LanguageModelSession(model: model, instructions: instructions)
        session.prewarm()
        let prewarm = try #require(SystemLanguageModel.Executor.latestPrewarms.withLock { $0[model.executorConfiguration] })
        let prewarmDone = Atomic(false)
        let watcher = Task {
            await prewarm.value
            prewarmDone.store(true, ordering: .sequentiallyConsistent)
        }
        let request = Task { _ = try await session.respond(to: "Weather in Paris?") }
        // Cancelled while it waits for the prewarm, not before it starts.
        try await Task.sleep(for: .milliseconds(200))
        let doneTooSoon = prewarmDone.load(ordering: .sequentiallyConsistent)
        try #require(!doneTooSoon, "the prewarm ended before the request could wait for it")
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.value }
        let satOutThePrewarm = prewarmDone.load(ordering: .sequentiallyConsistent)
        #expect(!satOutThePrewarm, "the cancelled request returned only once the prewarm was done")
        await watcher.value
    }

    @Test func prewarmFillsTheCacheOfAToolSession() async throws {
        let instructions = "You answer questions about the weather. " + String(repeating: "Be brief. ", count: 30)
        let model = DefaultModel.model
        let session = LanguageModelSession(model: model, tools: [WeatherTool()], instructions: instructions)
        session.prewarm()
        // One model request (no call), so the statistics are the first request's.
        var options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 24)
        options.toolCallingMode = .disallowed
        try await session.respond(to: "Weather in Paris?", options: options)
        let statistics = try #require(session.lastStatistics)
        // The system message came from the prewarm (a few tokens where messages join), all but the calling
        // instructions, which a turn that may not call tools replaces with words to answer without them.
        let system = try await model.tokenCount(for: Instructions(instructions)) + model.tokenCount(for: [WeatherTool()])
        let calling = try await model.tokenCount(for: Instructions(ToolCallFormat.usage(for: [Transcript.ToolDefinition(tool: WeatherTool())])))
        #expect(statistics.reusedTokens >= system - calling - 4, "\(statistics.reusedTokens) reused of a \(system)-token system message")
    }

    @Test func nonPositiveMaximumResponseTokensIsATypedError() async throws {
        await #expect(throws: LanguageModelSession.GenerationError.self) {
            try await LanguageModelSession(model: DefaultModel.model).respond(to: "Hi", options: GenerationOptions(maximumResponseTokens: 0))
        }
    }

    @Test func samplingValuesOutsideTheirRangesAreTypedErrors() async throws {
        let invalid: [GenerationOptions] = [
            GenerationOptions(temperature: .nan), GenerationOptions(temperature: .infinity),
            GenerationOptions(samplingMode: .random(top: 0)), GenerationOptions(samplingMode: .random(top: -3)),
            GenerationOptions(samplingMode: .random(probabilityThreshold: -0.1)), GenerationOptions(samplingMode: .random(probabilityThreshold: 1.5)),
            GenerationOptions(samplingMode: .random(probabilityThreshold: .nan)),
        ]
        for options in invalid {
            await #expect(throws: LanguageModelSession.GenerationError.self, "\(options)") {
                try await LanguageModelSession(model: DefaultModel.model).respond(to: "Hi", options: options)
            }
        }
        // The ends of each range are values, not errors (checked without generating anything).
        // A negative temperature is documented to act as 0.
        for options in [GenerationOptions(temperature: -1), GenerationOptions(temperature: 0), GenerationOptions(temperature: 2),
                        GenerationOptions(samplingMode: .random(top: 1)), GenerationOptions(samplingMode: .random(probabilityThreshold: 0)),
                        GenerationOptions(samplingMode: .random(probabilityThreshold: 1))] {
            #expect(throws: Never.self, "\(options)") { try LanguageModelSession.requireValidOptions(options) }
        }
    }
}
