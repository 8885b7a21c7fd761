import FMEngine
import Foundation
import FoundationModels
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// `fm serve`'s limits with the real tiny model: a full queue answers 429, a slow request 504, a missing API key
/// 401, and SIGTERM lets the request in flight finish before the process exits.
@Suite("fm serve limits", .serialized, .timeLimit(.minutes(10)))
struct ServeLimitsTests {
    /// A request that generates until its token limit (greedy text on a tiny model repeats itself).
    static let long = #"{"model":"default","messages":[{"role":"user","content":"Write a long story about a dragon."}],"temperature":0,"max_tokens":400}"#

    @Test func aFullQueueIsAnswered429WithAJSONError() async throws {
        try await FMServe.with(arguments: ["--concurrency", "1", "--queue", "1"]) { server in
            let replies = try await withThrowingTaskGroup(of: FMServe.Reply.self) { group in
                for _ in 0..<4 { group.addTask { try await server.request("v1/chat/completions", body: Self.long) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let statuses = replies.map(\.status).sorted()
            // One runs, one waits for it, the other two are turned away at once.
            #expect(statuses == [200, 200, 429, 429], "\(statuses)")
            for reply in replies where reply.status == 429 {
                #expect(try reply.error["code"] as? String == "queue_full")
                #expect(reply.headers["retry-after"] == "1")
            }
        }
    }

    /// A request with `n` sampled answers decodes n sequences at once, so it holds n of `--concurrency`'s turns;
    /// greedy answers are one decode and hold one.
    @Test func aRequestWithSeveralAnswersHoldsATurnForEach() async throws {
        try await FMServe.with(arguments: ["--concurrency", "2", "--queue", "0"]) { server in
            let pair = Self.long.replacingOccurrences(of: #""temperature":0"#, with: #""temperature":0.7,"seed":5,"n":2"#)
            async let first = server.request("v1/chat/completions", body: pair)
            // Wait until the pair holds its turn, then ask for one more answer.
            try #require(try await server.waitUntilRunning(1), "the request with two answers never started")
            let second = try await server.request("v1/chat/completions", body: #"{"messages":[{"role":"user","content":"Hi"}],"max_tokens":3}"#)
            #expect(second.status == 429, "\(second.text)")
            #expect(try second.error["code"] as? String == "queue_full")
            #expect(try await first.status == 200)
            // Its turns are given back.
            let third = try await server.request("v1/chat/completions", body: #"{"messages":[{"role":"user","content":"Hi"}],"max_tokens":3}"#)
            #expect(third.status == 200, "\(third.text)")

            // Greedy answers are one decode: the pair leaves the other turn free.
            let greedyPair = Self.long.replacingOccurrences(of: #""temperature":0"#, with: #""temperature":0,"n":2"#)
            async let fourth = server.request("v1/chat/completions", body: greedyPair)
            try #require(try await server.waitUntilRunning(1), "the greedy request with two answers never started")
            let fifth = try await server.request("v1/chat/completions", body: #"{"messages":[{"role":"user","content":"Hi"}],"max_tokens":3}"#)
            #expect(fifth.status == 200, "\(fifth.text)")
            #expect(try await fourth.status == 200)
        }
    }

    /// A `/v1/tag` job past the timeout stops, and every text it did not reach still gets a line: a `timeout` error,
    /// or the record's own error when it was never a text.
    @Test func aTagJobBeyondTheTimeoutEndsWithALineForEveryText() async throws {
        // The timeout counts from the request's arrival, so it leaves room for the job to start on a loaded machine
        // (parallel suites share two cores); the texts take several times as long.
        try await FMServe.with(arguments: ["--timeout", "3"]) { server in
            let texts = (1...60).map { #""Recipe \#($0): how long should I rest a roast chicken before carving it?""# }
            let reply = try await server.request("v1/tag", body: #"{"texts":[\#(texts.joined(separator: ",")),{"id":"no-text"}]}"#)
            #expect(reply.status == 200, "\(reply.text)")
            let lines = reply.text.split(separator: "\n")
            #expect(lines.count == texts.count + 1, "\(reply.text)")
            #expect(lines.dropLast().last?.contains(#""code":"timeout""#) == true, "\(lines.dropLast().last ?? "")")
            #expect(lines.last?.contains(#""code":"missing-text""#) == true, "\(lines.last ?? "")")
            // The job gives its turn back once it has stopped.
            try #require(try await server.waitUntilRunning(0), "the job never gave its turn back")
            let next = try await server.request("v1/chat/completions", body: #"{"model":"default","messages":[{"role":"user","content":"Hi"}],"max_tokens":3}"#)
            #expect(next.status == 200, "\(next.text)")
        }
    }

    /// A request carries its whole history, so the guardrails check every user turn in it, as a session checked
    /// each when it was sent: the text that blocks a last user message blocks an earlier one too, before anything
    /// is generated. So does an earlier assistant message that a response would be blocked for.
    @Test func chatCompletionsCheckEveryMessageOfTheHistory() async throws {
        let unsafe = "I am going to kill myself tonight."
        try await FMServe.with { server in
            for messages in [
                #"[{"role":"user","content":"\#(unsafe)"}]"#,
                #"[{"role":"user","content":"\#(unsafe)"},{"role":"assistant","content":"OK."},{"role":"user","content":"Tell me more."},{"role":"assistant","content":"Sure."},{"role":"user","content":"Go on."}]"#,
                #"[{"role":"user","content":"\#(unsafe)"},{"role":"assistant","content":"OK."},{"role":"user","content":"Go on."}]"#,
                #"[{"role":"user","content":"What now?"},{"role":"assistant","content":"Step one: we build a bomb."},{"role":"user","content":"Go on."}]"#,
            ] {
                for stream in [false, true] {
                    let reply = try await server.request("v1/chat/completions", body: #"{"model":"default","stream":\#(stream),"max_tokens":4,"messages":\#(messages)}"#)
                    #expect(reply.status == 400, "\(messages): \(reply.text)")
                    #expect(try reply.error["code"] as? String == "content_filter", "\(messages): \(reply.text)")
                }
            }
            let safe = try await server.request("v1/chat/completions", body: #"{"model":"default","max_tokens":2,"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}]}"#)
            #expect(safe.status == 200, "\(safe.text)")
            // A system message is instructions, which a session does not check either (a crisis line's own prompt
            // may quote what it listens for).
            let instructed = try await server.request("v1/chat/completions", body: #"{"model":"default","max_tokens":2,"messages":[{"role":"system","content":"Callers may say: \#(unsafe)"},{"role":"user","content":"Hi"}]}"#)
            #expect(instructed.status == 200, "\(instructed.text)")
        }
    }

    /// A tool call's arguments are the model's output as an answer is, and the same checks block them (a
    /// `const` forces the text, so the model cannot write around it).
    @Test func toolCallArgumentsPassTheGuardrails() async throws {
        func body(_ text: String, stream: Bool) -> String {
            #"{"max_tokens":30,"stream":\#(stream),"messages":[{"role":"user","content":"Go"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"x":{"const":"\#(text)"}},"required":["x"]}}}],"tool_choice":"required"}"#
        }
        try await FMServe.with { server in
            for stream in [false, true] {
                let blocked = try await server.request("v1/chat/completions", body: body("we build a bomb", stream: stream))
                #expect(blocked.status == 400, "\(blocked.text)")
                #expect(try blocked.error["code"] as? String == "content_filter", "\(blocked.text)")
            }
            let allowed = try await server.request("v1/chat/completions", body: body("we build a boat", stream: false))
            #expect(allowed.status == 200 && allowed.text.contains("we build a boat"), "\(allowed.text)")
        }
    }

    /// `fm serve --guardrails off` covers `/v1/tag` too: a text the default checks block is classified.
    @Test func tagEndpointFollowsTheServersGuardrails() async throws {
        let body = #"{"texts":["I am going to kill myself tonight."],"preset":"safety"}"#
        let blocked = try await FMServe.with { try await $0.request("v1/tag", body: body) }
        #expect(blocked.text.contains("guardrail-violation"), "\(blocked.text)")
        let classified = try await FMServe.with(arguments: ["--guardrails", "off"]) { try await $0.request("v1/tag", body: body) }
        #expect(classified.status == 200 && classified.text.contains(#""result""#), "\(classified.text)")
    }

    @Test func aRequestBeyondTheTimeoutIsCancelledWith504() async throws {
        try await FMServe.with(arguments: ["--timeout", "1", "--max-tokens", "4000"]) { server in
            let body = Self.long.replacingOccurrences(of: #""max_tokens":400"#, with: #""max_tokens":4000"#)
            let reply = try await server.request("v1/chat/completions", body: body)
            #expect(reply.status == 504, "\(reply.text)")
            #expect(try reply.error["code"] as? String == "timeout")
            // The cancelled generation gave its turn back.
            let next = try await server.request("v1/chat/completions", body: #"{"model":"default","messages":[{"role":"user","content":"Hi"}],"max_tokens":3}"#)
            #expect(next.status == 200, "\(next.text)")
        }
    }

    /// `--timeout` counts from a request's arrival: one that waits for a turn as long as the limit is answered 504
    /// about one limit after it was sent, not after waiting for its turn and then a whole limit more.
    @Test func aRequestThatWaitsForItsTurnSpendsItsTimeWaiting() async throws {
        try await FMServe.with(arguments: ["--timeout", "3", "--concurrency", "1", "--max-tokens", "4000"]) { server in
            let body = Self.long.replacingOccurrences(of: #""max_tokens":400"#, with: #""max_tokens":4000"#)
            async let first = server.request("v1/chat/completions", body: body)
            try #require(try await server.waitUntilRunning(1), "the first request never started")
            let sent = ContinuousClock.now
            let second = try await server.request("v1/chat/completions", body: body)
            let waited = ContinuousClock.now - sent
            #expect(second.status == 504, "\(second.text)")
            #expect(try second.error["code"] as? String == "timeout")
            // Counted from its turn, its time would run out about 6 s after it was sent.
            #expect(waited < .milliseconds(4_500), "\(waited)")
            #expect(try await first.status == 504)
        }
    }

    /// A stream past the timeout has sent its 200 already: it ends with an error event and `[DONE]`, as OpenAI's
    /// streams do, and the metrics count it under the error's 504, not the 200 its status line said.
    @Test func aStreamPastTheTimeoutEndsWithAnErrorEventAndCountsAs504() async throws {
        // Five seconds: the first text has come by then on a slow machine, and a 4,000-token story has not ended.
        try await FMServe.with(arguments: ["--timeout", "5", "--max-tokens", "4000"]) { server in
            let body = Self.long.replacingOccurrences(of: #""max_tokens":400"#, with: #""max_tokens":4000,"stream":true"#)
            let reply = try await server.request("v1/chat/completions", body: body)
            #expect(reply.status == 200, "the first text came within the timeout: \(reply.text.prefix(300))")
            #expect(reply.text.contains(#""content":""#) && reply.text.contains(#""code":"timeout""#), "\(reply.text.suffix(300))")
            #expect(reply.text.hasSuffix("data: [DONE]\n\n"))
            #expect(try await server.metric(#"fm_requests_total{route="/v1/chat/completions",status="504"}"#, appearingWithin: 5) == 1)
            #expect(try await server.metric(#"fm_requests_total{route="/v1/chat/completions",status="200"}"#) == nil)
        }
    }

    /// A request that waits for the calibration of its schema's choices still ends at the timeout: its 504 comes
    /// while the calibration runs, and the calibration goes on to the end, for the cache and the next request.
    @Test func aRequestWaitingForACalibrationTimesOutWhileTheCalibrationGoesOn() async throws {
        // Tables are computed, not read from a store an earlier run wrote.
        try await FMServe.with(arguments: ["--timeout", "1"], environment: ["FM_CALIBRATION_CACHE": "off"]) { server in
            let names = ["tone", "topic", "urgency", "channel"]
            let properties = names.map { #""\#($0)":{"type":"string","enum":["low","medium","high","none"]}"# }.joined(separator: ",")
            let required = names.map { #""\#($0)""# }.joined(separator: ",")
            let schema = #"{"type":"object","properties":{\#(properties)},"required":[\#(required)],"additionalProperties":false}"#
            let body = #"{"messages":[{"role":"user","content":"The invoice is wrong again."}],"temperature":0,"response_format":{"type":"json_schema","json_schema":{"name":"Ticket","schema":\#(schema)}}}"#
            let reply = try await server.request("v1/chat/completions", body: body)
            #expect(reply.status == 504, "\(reply.text)")
            #expect(try reply.error["code"] as? String == "timeout")
            #expect(try await server.metric("fm_calibrations_running") == 1, "the answer came before the calibration ended")
            var running = 1
            for _ in 0..<1_200 where running != 0 {
                try await Task.sleep(for: .milliseconds(100))
                running = try await server.metric("fm_calibrations_running") ?? -1
            }
            #expect(running == 0)
            #expect(try await server.metric("fm_calibration_runs_total") == CalibrationSample.reference.count, "every calibration text was run")
        }
    }

    /// A client that hangs up before its non-streamed answer is complete cancels the generation: the turn is
    /// given back and no completion is counted, where the answer would have run to its 1,500 tokens.
    @Test func aClientThatHangsUpCancelsItsGeneration() async throws {
        try await FMServe.with { server in
            let body = Self.long.replacingOccurrences(of: #""max_tokens":400"#, with: #""max_tokens":1500"#)
            let open = try LoopbackHTTPClient.open(port: try #require(server.url.port), path: "/v1/chat/completions", body: Data(body.utf8))
            var running = 0
            for _ in 0..<600 where running != 1 {
                try await Task.sleep(for: .milliseconds(50))
                running = try await server.metric("fm_requests_running") ?? -1
            }
            try #require(running == 1, "the request never started")
            open.hangUp()
            for _ in 0..<1_200 where running != 0 {
                try await Task.sleep(for: .milliseconds(100))
                running = try await server.metric("fm_requests_running") ?? -1
            }
            #expect(running == 0)
            #expect(try await server.metric("fm_completion_tokens_total") == 0, "the generation was cancelled, not finished")
            // Counted as the client's doing (nginx's 499), not as a server error. The count is taken once the
            // response is written off, a moment after the turn is given back.
            #expect(try await server.metric(#"fm_requests_total{route="/v1/chat/completions",status="499"}"#, appearingWithin: 10) == 1)
            #expect(try await server.metric(#"fm_requests_total{route="/v1/chat/completions",status="503"}"#) == nil)
            let next = try await server.request("v1/chat/completions", body: #"{"messages":[{"role":"user","content":"Hi"}],"max_tokens":3}"#)
            #expect(next.status == 200, "\(next.text)")
            #expect(next.headers["connection"]?.lowercased() == "close", "the connection ends with the response, and says so")

            // A stream whose client hangs up halfway is counted the same way, not as the 200 its status line said.
            let streamed = body.replacingOccurrences(of: #""temperature":0"#, with: #""temperature":0,"stream":true"#)
            let stream = try LoopbackHTTPClient.open(port: try #require(server.url.port), path: "/v1/chat/completions", body: Data(streamed.utf8))
            try #require(stream.read(until: #""content":""#), "the stream never carried text")
            stream.hangUp()
            var streamHungUp: Int?
            for _ in 0..<1_200 where streamHungUp != 2 {
                streamHungUp = try await server.metric(#"fm_requests_total{route="/v1/chat/completions",status="499"}"#)
                if streamHungUp != 2 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(streamHungUp == 2)
        }
    }

    @Test func anAPIKeyGuardsEveryRouteButHealth() async throws {
        try await FMServe.with(arguments: ["--api-key-env", "FM_TEST_KEY"], environment: ["FM_TEST_KEY": "s3cret"]) { server in
            let body = #"{"model":"default","messages":[{"role":"user","content":"Hi"}],"max_tokens":3}"#
            let missing = try await server.request("v1/chat/completions", body: body)
            #expect(missing.status == 401)
            #expect(try missing.error["code"] as? String == "invalid_api_key")
            #expect(missing.headers["www-authenticate"] == "Bearer")
            let wrong = try await server.request("v1/models", headers: ["Authorization": "Bearer nope"])
            #expect(wrong.status == 401)
            #expect(try await server.request("v1/models", headers: ["Authorization": "bearer s3cret"]).status == 200)
            let right = try await server.request("v1/chat/completions", body: body, headers: ["Authorization": "Bearer s3cret"])
            #expect(right.status == 200, "\(right.text)")
            #expect(try await server.request("health").status == 200)
            // The router finds `/health/` too, and it is the same route.
            #expect(try await server.request("health/").status == 200)
        }
    }

    /// A client that stops sending partway through its body does not hold the connection (and shutdown) for ever.
    @Test func aStalledRequestBodyIsClosedAfterTheIdleTimeout() async throws {
        try await FMServe.with(arguments: ["--idle-timeout", "1"]) { server in
            let closed = try await LoopbackHTTPClient.stall(
                port: server.port, path: "/v1/chat/completions", sent: Data(#"{"mes"#.utf8), declaredLength: 100, limit: .seconds(30))
            #expect(closed)
        }
    }

    /// Chat completions and tag jobs end their connection after the response (their watch for a hang-up reads
    /// ahead). A request pipelined after one, or bytes that are not HTTP, must not hold the connection — and a
    /// shutdown — open until the client leaves; such bytes cancel the request with a 400, not a 503 to retry.
    @Test func aConnectionEndsAfterAChatCompletionWhateverFollowsIt() async throws {
        try await FMServe.with { server in
            let chat = LoopbackHTTPClient.post(port: server.port, path: "/v1/chat/completions",
                                               body: Data(#"{"model":"default","max_tokens":2,"messages":[{"role":"user","content":"Hi"}]}"#.utf8))
            for (name, after) in [("a pipelined request", "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"), ("nothing", "")] {
                let exchange = try await LoopbackHTTPClient.raw(port: server.port, chat + Data(after.utf8), limit: .seconds(30))
                #expect(exchange.closed, "after \(name): \(exchange.received)")
                #expect(exchange.responses == 1 && exchange.received.hasPrefix("HTTP/1.1 200"), "after \(name): \(exchange.received)")
            }
            let long = LoopbackHTTPClient.post(port: server.port, path: "/v1/chat/completions",
                                               body: Data(#"{"model":"default","max_tokens":300,"messages":[{"role":"user","content":"Tell a long story."}]}"#.utf8))
            let garbage = try await LoopbackHTTPClient.raw(port: server.port, long + Data("garbage\r\n\r\n".utf8), limit: .seconds(60))
            #expect(garbage.closed && garbage.received.hasPrefix("HTTP/1.1 400") && garbage.received.contains(#""code":"cancelled""#),
                    "\(garbage.received)")
            #expect(!garbage.received.lowercased().contains("retry-after"), "\(garbage.received)")
        }
    }

    /// Bytes that are not an HTTP/1.1 request get OpenAI's error object, as every other refusal does, whether they
    /// open the connection or follow a request on it; then the connection closes.
    @Test func requestsThatAreNotHTTPGetAJSONError() async throws {
        try await FMServe.with { server in
            let health = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
            let cases: [(String, Data, String, String)] = [
                ("not HTTP", Data("GARBAGE\r\n\r\n".utf8), "400", "invalid_http"),
                ("two lengths", Data("POST /v1/tag HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}".utf8), "400", "invalid_http"),
                ("an HTTP/2 preface", Data("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8), "400", "invalid_http"),
                ("huge headers", Data("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n".utf8),
                 "431", "headers_too_large"),
            ]
            for (name, bytes, status, code) in cases {
                let exchange = try await LoopbackHTTPClient.raw(port: server.port, bytes, limit: .seconds(30))
                #expect(exchange.closed && exchange.responses == 1, "\(name): \(exchange.received)")
                #expect(exchange.received.hasPrefix("HTTP/1.1 \(status)") && exchange.received.contains("application/json")
                        && exchange.received.contains(#""code":"\#(code)""#), "\(name): \(exchange.received)")
            }
            let after = try await LoopbackHTTPClient.raw(port: server.port, Data((health + "GARBAGE\r\n\r\n").utf8), limit: .seconds(30))
            #expect(after.closed && after.responses == 2 && after.received.hasPrefix("HTTP/1.1 200"), "\(after.received)")
            #expect(after.received.contains(#""code":"invalid_http""#), "\(after.received)")
            // The metrics count them, though no route saw them: four 400s and a 431, under `other`.
            let metrics = try await server.request("metrics").text
            #expect(metrics.contains(#"fm_requests_total{route="other",status="400"} 4\#n"#), "\(metrics)")
            #expect(metrics.contains(#"fm_requests_total{route="other",status="431"} 1\#n"#), "\(metrics)")
        }
    }

    /// A request that does not keep its connection alive (any HTTP/1.0 request, `Connection: close` in any
    /// spelling) gets its answer and then the end of the connection, well before the idle timeout: a client that
    /// reads until the end does not hang. HTTP/1.0 is answered in HTTP/1.0, and a streamed answer is not chunked.
    @Test func aConnectionThatIsNotKeptAliveEndsAfterItsAnswer() async throws {
        try await FMServe.with(arguments: ["--idle-timeout", "120"]) { server in
            let cases = [("HTTP/1.0", "GET /health HTTP/1.0\r\n\r\n", "HTTP/1.0 200"),
                         ("HTTP/1.0 keep-alive", "GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "HTTP/1.0 200"),
                         ("Connection: Close", "GET /health HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n", "HTTP/1.1 200")]
            for (name, request, answer) in cases {
                let exchange = try await LoopbackHTTPClient.raw(port: server.port, Data(request.utf8), limit: .seconds(30))
                #expect(exchange.closed && exchange.received.hasPrefix(answer), "\(name): \(exchange.received)")
                #expect(exchange.received.lowercased().contains("connection: close"), "\(name): \(exchange.received)")
            }
            let body = Data(#"{"model":"default","stream":true,"max_tokens":4,"messages":[{"role":"user","content":"Hi"}]}"#.utf8)
            var request = Data("POST /v1/chat/completions HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
            request.append(body)
            let streamed = try await LoopbackHTTPClient.raw(port: server.port, request, limit: .seconds(60))
            #expect(streamed.closed && streamed.received.hasPrefix("HTTP/1.0 200"), "\(streamed.received)")
            #expect(!streamed.received.lowercased().contains("transfer-encoding"), "\(streamed.received)")
            #expect(streamed.received.hasSuffix("data: [DONE]\n\n"), "\(streamed.received)")
            // A connection kept alive still serves a second request; each answer is in its own request's version.
            let health = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
            let kept = try await LoopbackHTTPClient.raw(port: server.port, Data((health + health).utf8), limit: .seconds(3))
            #expect(!kept.closed && kept.responses == 2, "\(kept.received)")
            let pipelined = try await LoopbackHTTPClient.raw(port: server.port, Data((health + "GET /health HTTP/1.0\r\n\r\n").utf8),
                                                             limit: .seconds(30))
            // Each answer's head, in order (no body here holds "HTTP/1.").
            func answerHeads(_ received: String) -> [String] {
                received.components(separatedBy: "HTTP/1.").dropFirst().map { "HTTP/1." + ($0.components(separatedBy: "\r\n\r\n").first ?? "") }
            }
            let heads = answerHeads(pipelined.received)
            #expect(pipelined.closed && heads.map { $0.prefix(12) } == ["HTTP/1.1 200", "HTTP/1.0 200"], "\(pipelined.received)")
            #expect(heads.count == 2 && !heads[0].lowercased().contains("connection: close")
                    && heads[1].lowercased().contains("connection: close"), "\(pipelined.received)")
            // `100 Continue` is not the request's answer: the close goes with the final one. An HTTP/1.0 client,
            // which would read a 100 as its answer, gets none.
            let expecting = "GET /health HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: CLOSE\r\n\r\n"
            let continued = try await LoopbackHTTPClient.raw(port: server.port, Data(expecting.utf8), limit: .seconds(30))
            let finalHead = answerHeads(continued.received).last { $0.hasPrefix("HTTP/1.1 200") } ?? ""
            #expect(continued.closed && continued.received.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200"), "\(continued.received)")
            #expect(finalHead.lowercased().contains("connection: close"), "\(continued.received)")
            let old = try await LoopbackHTTPClient.raw(port: server.port, Data("GET /health HTTP/1.0\r\nExpect: 100-continue\r\n\r\n".utf8),
                                                       limit: .seconds(30))
            #expect(old.closed && old.received.hasPrefix("HTTP/1.0 200"), "\(old.received)")
        }
    }

    /// A body refused for its size or encoding is read to its end before the refusal, so a client that writes its
    /// whole body before reading gets the 413 or 415 at once, not a stalled send until the idle timeout.
    @Test func aRefusedBodyIsReadThroughAndAnsweredAtOnce() async throws {
        try await FMServe.with(arguments: ["--max-body-bytes", "1024"]) { server in
            let body = Data(#"{"model":"default","messages":[{"role":"user","content":""#.utf8) + Data(repeating: UInt8(ascii: "a"), count: 24 << 20)
                + Data(#""}]}"#.utf8)
            for (path, headers, status) in [("/v1/chat/completions", "", "413"), ("/v1/tag", "", "413"),
                                            ("/v1/chat/completions", "Content-Encoding: gzip\r\n", "415")] {
                let request = LoopbackHTTPClient.post(port: server.port, path: path, body: body, headers: headers)
                let exchange = try await LoopbackHTTPClient.raw(port: server.port, request, limit: .seconds(30))
                #expect(exchange.sentAll && exchange.closed, "\(path) \(headers): \(exchange.received)")
                #expect(exchange.received.hasPrefix("HTTP/1.1 \(status)"), "\(path) \(headers): \(exchange.received)")
            }
            // A transfer coding before `chunked` that the server does not implement is a 501, not bytes taken for
            // the body; `chunked` alone is read.
            let small = #"{"model":"default","max_tokens":2,"messages":[{"role":"user","content":"Hi"}]}"#
            for (codings, status) in [("gzip, chunked", "501"), ("chunked", "200")] {
                let request = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: \(codings)\r\nConnection: close\r\n\r\n"
                    + String(small.utf8.count, radix: 16) + "\r\n" + small + "\r\n0\r\n\r\n"
                let exchange = try await LoopbackHTTPClient.raw(port: server.port, Data(request.utf8), limit: .seconds(30))
                #expect(exchange.received.hasPrefix("HTTP/1.1 \(status)"), "\(codings): \(exchange.received)")
                if status == "501" { #expect(exchange.received.contains("unsupported_transfer_encoding"), "\(exchange.received)") }
            }
        }
    }

    /// A client that asks `Expect: 100-continue` (curl, for any body over 1 MiB) is told to go on at once, rather
    /// than waiting for its own timeout before it sends the body.
    @Test func aClientThatExpectsContinueIsAnsweredAtOnce() async throws {
        try await FMServe.with(arguments: ["--idle-timeout", "2"]) { server in
            let body = Data(#"{"model":"default","max_tokens":2,"messages":[{"role":"user","content":"Hi"}]}"#.utf8)
            let request = LoopbackHTTPClient.post(port: server.port, path: "/v1/chat/completions", body: body, headers: "Expect: 100-continue\r\n")
            // The head alone: the server says to go on, and the connection ends at the idle timeout for want of the body.
            let head = request.prefix(request.count - body.count)
            let waiting = try await LoopbackHTTPClient.raw(port: server.port, head, limit: .seconds(30))
            #expect(waiting.received.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(waiting.received)")
            let whole = try await LoopbackHTTPClient.raw(port: server.port, request, limit: .seconds(30))
            #expect(whole.received.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200"), "\(whole.received)")
        }
    }

    /// A file with a GGUF header that llama.cpp cannot load stops the server before it listens, rather than a
    /// server that reports itself healthy and answers every request 503 (and every `/v1/tag` text with an
    /// error line, which a resumed `fm tag --endpoint` job would keep as finished).
    @Test func aModelThatCannotLoadStopsTheServerBeforeItListens() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-serve-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cut = try DefaultModel.cutCopy(in: directory)
        let process = Process()
        process.executableURL = TagCommandTests.fm
        process.arguments = ["serve", "--port", "0", "--model", cut.path]
        let output = directory.appendingPathComponent("stdout"), errors = directory.appendingPathComponent("stderr")
        try Data().write(to: output)
        try Data().write(to: errors)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            Issue.record("fm serve kept running with a model it cannot load")
        }
        let said = try String(contentsOf: errors, encoding: .utf8)
        #expect(process.terminationStatus == 1 && said.contains("could not be loaded"), "\(process.terminationStatus) \(said)")
        #expect(try String(contentsOf: output, encoding: .utf8).isEmpty, "it never said it was listening")
    }

    @Test func sigtermFinishesTheRequestInFlightThenExits() async throws {
        let server = try await FMServe.start()
        defer { server.stop() }
        async let reply = server.request("v1/chat/completions", body: Self.long)
        // Let the request reach the engine, then ask the server to stop.
        try await Task.sleep(for: .milliseconds(500))
        kill(server.process.processIdentifier, SIGTERM)
        let finished = try await reply
        #expect(finished.status == 200, "\(finished.text)")
        // The whole answer: its 400 tokens, or no more than that where the model ended it itself.
        let usage = try #require(try finished.json["usage"] as? [String: Any])
        let finish = ((try finished.json["choices"] as? [[String: Any]])?.first?["finish_reason"]) as? String
        let written = usage["completion_tokens"] as? Int ?? 0
        #expect(finish == "length" ? written == 400 : finish == "stop" && (1...400).contains(written), "\(finished.text)")
        let deadline = Date().addingTimeInterval(30)
        while server.process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(!server.process.isRunning)
        #expect(server.process.terminationStatus == 0)
    }
}
