import Foundation
import FoundationModels
import Synchronization
import Testing

// Cancelling a request, with executors that stop in either of the ways a real one may: by throwing
// `CancellationError`, or by returning early with what they had written.

/// Counts the requests whose executor has sent its first words, so a test cancels one mid-response.
final class StartSignal: Sendable {
    private let state = Mutex<(started: Int, waiters: [UUID: (count: Int, continuation: CheckedContinuation<Void, Never>)])>((0, [:]))

    /// Counts one more start; returns how many there have been.
    @discardableResult
    func fire() -> Int {
        let (started, ready) = state.withLock { state -> (Int, [CheckedContinuation<Void, Never>]) in
            state.started += 1
            let started = state.started
            let ready = state.waiters.filter { $0.value.count <= started }
            for id in ready.keys { state.waiters[id] = nil }
            return (started, ready.values.map(\.continuation))
        }
        ready.forEach { $0.resume() }
        return started
    }

    /// Waits until `count` requests have started, or until the test's time limit cancels it (a request that
    /// never starts then fails the test instead of hanging the run).
    func wait(count: Int = 1) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.started >= count || Task.isCancelled { return true }
                    state.waiters[id] = (count, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}

struct HaltingModel: LanguageModel {
    typealias Executor = HaltingExecutor
    let name: String
    /// Whether the executor throws when cancelled, rather than returning what it wrote.
    let throwsOnCancel: Bool
    /// Whether only the first request halts; later ones answer at once.
    var haltsFirstOnly = false
    let started = StartSignal()
    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities(capabilities: []) }
    var executorConfiguration: String { name }
}

struct HaltingExecutor: LanguageModelExecutor {
    typealias Model = HaltingModel
    init(configuration: String) {}

    func respond(
        to request: LanguageModelExecutorGenerationRequest,
        model: HaltingModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        await channel.send(.response(action: .appendText("Once upon", tokenCount: 2)))
        if model.started.fire() > 1, model.haltsFirstOnly {
            await channel.send(.response(action: .appendText(" a time.", tokenCount: 3)))
            return
        }
        if model.throwsOnCancel {
            try await Task.sleep(for: .seconds(600))
        } else {
            try? await Task.sleep(for: .seconds(600))
        }
        await channel.send(.response(action: .appendText(" a time.", tokenCount: 3)))
    }
}

@Suite struct SessionCancellationTests {
    @Test(arguments: [true, false])
    func aCancelledRequestThrowsAndLeavesTheTranscriptAsItWas(throwsOnCancel: Bool) async throws {
        let model = HaltingModel(name: "halting-\(throwsOnCancel)", throwsOnCancel: throwsOnCancel)
        let session = LanguageModelSession(model: model)
        let before = session.transcript
        let task = Task { try await session.respond(to: "Tell me a story.").content }
        await model.started.wait()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(session.transcript == before, "half an answer is not an answer")
        #expect(session.isResponding == false)
    }

    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func aStreamLeftEarlyDoesNotRecordHalfAnAnswer(throwsOnCancel: Bool) async throws {
        let model = HaltingModel(name: "halting-stream-\(throwsOnCancel)", throwsOnCancel: throwsOnCancel)
        let session = LanguageModelSession(model: model)
        let before = session.transcript
        for try await snapshot in session.streamResponse(to: "Tell me a story.") where !snapshot.content.isEmpty {
            break
        }
        // The next request waits for the dropped stream's generation to wind down instead of finding the session
        // still responding (its cancellation is seen asynchronously).
        let task = Task { try await session.respond(to: "Another story.").content }
        // The second request reaches the model (its first words are out), then is cancelled mid-response.
        await model.started.wait(count: 2)
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(session.transcript == before)
        #expect(session.isResponding == false)
    }

    /// A stream requested right after another was dropped starts once that one's generation has wound down, and
    /// answers; the dropped one leaves nothing in the transcript.
    @Test(.timeLimit(.minutes(1))) func aStreamAfterADroppedOneAnswers() async throws {
        var model = HaltingModel(name: "halting-then-answering", throwsOnCancel: false)
        model.haltsFirstOnly = true
        let session = LanguageModelSession(model: model)
        for try await snapshot in session.streamResponse(to: "Tell me a story.") where !snapshot.content.isEmpty {
            break
        }
        let answer = try await session.streamResponse(to: "Tell me another.").collect()
        #expect(answer.content == "Once upon a time.")
        #expect(session.transcript.count == 2, "the second prompt and its answer only")
        #expect(session.isResponding == false)
    }

    /// A cancelled task reading a stream gets `CancellationError` from its loop (and from `collect()`), not a
    /// loop that ends as if the half response were whole.
    @Test(.timeLimit(.minutes(1))) func cancellingTheReaderOfAStreamThrowsCancellationError() async throws {
        let model = HaltingModel(name: "halting-reader", throwsOnCancel: true)
        let session = LanguageModelSession(model: model)
        let before = session.transcript
        let reader = Task {
            var last = ""
            for try await snapshot in session.streamResponse(to: "Tell me a story.") { last = snapshot.content }
            return last
        }
        await model.started.wait()
        reader.cancel()
        await #expect(throws: CancellationError.self) { _ = try await reader.value }
        let collector = Task { try await session.streamResponse(to: "Tell me another.").collect().content }
        await model.started.wait(count: 2)
        collector.cancel()
        await #expect(throws: CancellationError.self) { _ = try await collector.value }
        #expect(session.transcript == before)
    }

    @Test func cancellingWhileAToolRunsThrowsCancellationError() async throws {
        let tool = WaitingWeather()
        let session = LanguageModelSession(model: ScriptedModel(name: "cancel-in-tool"), tools: [tool])
        let before = session.transcript
        let task = Task { try await session.respond(to: "Weather in Paris?").content }
        await tool.started.wait()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(session.transcript == before)
    }
}

/// A weather tool that waits until its task is cancelled.
struct WaitingWeather: Tool {
    let name = "cityWeather"
    let description = "The weather in a city."
    let started = StartSignal()

    @Generable
    struct Arguments {
        var city: String
    }

    func call(arguments: Arguments) async throws -> String {
        started.fire()
        try await Task.sleep(for: .seconds(600))
        return "sunny in \(arguments.city)"
    }
}
