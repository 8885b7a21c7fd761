@testable import FMServer
import FoundationModels
import Testing

/// A chat completion's run on the real model (`FM_MODEL`): when it gives back what the generation held.
@Suite("Chat completion runs")
struct ChatCompletionRunTests {
    /// Repeats of a greedy answer carry the same events, but each answer's tool calls have ids of their own.
    @Test func repeatedAnswersGiveTheirToolCallsIDsOfTheirOwn() {
        let call = ChatCompletionEvent.toolCall(id: "call_1", name: "f", arguments: "{}")
        guard case .toolCall(let first, _, _) = call.copy(0), case .toolCall(let second, let name, let arguments) = call.copy(2) else {
            Issue.record("a tool call stays a tool call")
            return
        }
        #expect(first == "call_1" && second == "call_1_2" && name == "f" && arguments == "{}")
        guard case .text(let text) = ChatCompletionEvent.text("hi").copy(3) else { Issue.record("text stays text"); return }
        #expect(text == "hi")
    }

    /// A streamed answer is buffered, so the generation's turn is given back when the generation stops, not when a
    /// slow client has read the last event: nothing reads the stream here until `whenDone` has run, and every
    /// event is there afterwards.
    @Test func theTurnIsGivenBackBeforeTheClientHasRead() async throws {
        let body = #"{"messages":[{"role":"user","content":"Say hello to Ada."}],"max_tokens":12,"temperature":0,"stream":true}"#
        let request = try ChatCompletionRequest(body: JSONField.body(body), maximumTokensCap: 64)
        let (signal, continuation) = AsyncStream<Void>.makeStream()
        let events = ChatCompletionRun.events(for: request, backend: ModelBackend(SystemLanguageModel.default), deadline: RequestDeadline(limit: .seconds(300)),
                                              whenDone: { continuation.yield(); continuation.finish() })
        let stopped = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in signal { return true }
                return false
            }
            group.addTask {
                try await Task.sleep(for: .seconds(300))
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(stopped, "whenDone did not run while nothing read the stream")
        var text = ""
        var usage: Int?
        for try await (choice, event) in events {
            #expect(choice == 0)
            switch event {
            case .text(let fragment): text += fragment
            case .usage(_, _, let completion): usage = completion
            default: break
            }
        }
        #expect(!text.isEmpty)
        #expect((usage ?? 0) > 0)
    }
}
