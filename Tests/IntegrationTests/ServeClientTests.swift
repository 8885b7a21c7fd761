import Foundation
import FoundationModels
import Synchronization
import Testing

/// Real clients against `fm serve` with the tiny model: the official `openai` Python package, our own
/// `ChatCompletionsLanguageModel` driving sessions, `fm tag --endpoint`, and a bounded load.
@Suite("fm serve with real clients", .serialized, .timeLimit(.minutes(15)))
struct ServeClientTests {
    @Generable
    struct Fruit {
        @Guide(description: "The fruit named in the text", .anyOf(["apple", "pear", "plum"]))
        var fruit: String
        @Guide(description: "How many were eaten", .range(1...9))
        var count: Int
    }

    @Test func theOfficialOpenAIPythonClientChatsStreamsFollowsSchemasAndCallsTools() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Clients/openai_client.py")
        try await FMServe.with(arguments: ["--api-key-env", "FM_TEST_KEY"], environment: ["FM_TEST_KEY": "k"]) { server in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script.path, server.url.absoluteString, "k"]
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let (stdout, stderr) = await Task.detached {
                (output.fileHandleForReading.readDataToEndOfFile(), errors.fileHandleForReading.readDataToEndOfFile())
            }.value
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(String(decoding: stderr, as: UTF8.self))")
            let summary = try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any], "\(String(decoding: stdout, as: UTF8.self))")
            #expect(summary["structured"] != nil)
        }
    }

    @Test func chatCompletionsLanguageModelRunsSessionsOnFMServeIncludingATool() async throws {
        try await FMServe.with { server in
            let model = ChatCompletionsLanguageModel(endpoint: server.url, model: "default", enforcesSchemas: true)
            let session = LanguageModelSession(model: model, instructions: "Answer briefly.")
            let text = try await session.respond(to: "Name a fruit.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 20))
            #expect(!text.content.isEmpty)

            let typed = try await LanguageModelSession(model: model)
                .respond(to: "I ate two pears.", generating: Fruit.self, options: GenerationOptions(samplingMode: .greedy))
            #expect(["apple", "pear", "plum"].contains(typed.content.fruit))
            #expect((1...9).contains(typed.content.count))

            // The tool round trip: the server returns the call, the session runs the tool and sends its output back.
            let weather = WeatherTool()
            let toolSession = LanguageModelSession(model: model, tools: [weather])
            // Its first round must call (the model's own choice is a near-tie that moves between machines); the
            // rounds after it may answer.
            let answer = try await toolSession.respond(to: "What is the weather in Paris?",
                                                       options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 60,
                                                                                  toolCallingMode: .required))
            #expect(!weather.calls.cities.withLock { $0 }.isEmpty, "the tool was not called")
            #expect(!answer.content.isEmpty)
            #expect(toolSession.transcript.contains { if case .toolOutput = $0 { true } else { false } })

            // The server's context_length_exceeded is the session's own context error, not a bare HTTP status.
            let words = String(repeating: "committee budget review ", count: 3_000)
            await #expect {
                _ = try await LanguageModelSession(model: model).respond(to: words, options: GenerationOptions(samplingMode: .greedy))
            } throws: { error in
                if case LanguageModelError.contextSizeExceeded = error { return true }
                if case LanguageModelSession.GenerationError.exceededContextWindowSize = error { return true }
                return false
            }
        }
    }

    @Test func fmTagWithAnEndpointMatchesTheLocalRun() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-serve-remote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appendingPathComponent("in.txt")
        try Data("I can't log in since the update.\nPlease cancel my subscription.\nThe invoice is wrong.\n".utf8).write(to: inputURL)
        try await FMServe.with { server in
            let remote = directory.appendingPathComponent("remote.jsonl")
            let run = try TagCommandTests.run(["tag", "--preset", "support-ticket", "--file", inputURL.path, "--output", remote.path,
                                               "--endpoint", server.url.absoluteString, "--concurrency", "3", "--no-cache"])
            #expect(run.status == 0, "\(run.stderr)")
            let records = try TagCommandTests.lines(remote)
            #expect(records.count == 3)
            for record in records {
                let result = try #require(record["result"] as? [String: Any], "\(record)")
                #expect(result["topic"] is String && result["urgency"] is String, "\(record)")
            }
        }
    }

    @Test func fmEvalWithAnEndpointScoresEveryExample() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-serve-eval-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("spam.jsonl")
        try Data("""
            {"id":"a","text":"WINNER! Claim your free prize now, call 0800 123 456.","label":"spam"}
            {"id":"b","text":"Are we still meeting for lunch tomorrow?","label":"ham"}
            {"id":"c","text":"URGENT: your account is suspended, send your PIN to reactivate.","label":"spam"}
            {"id":"d","text":"Thanks for the photos, they made my day.","label":"ham"}

            """.utf8).write(to: data)
        try await FMServe.with { server in
            let process = Process()
            process.executableURL = TagCommandTests.fm
            process.arguments = ["eval", data.path, "--json", "--no-cache", "--endpoint", server.url.absoluteString, "--concurrency", "2"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let stdout = await Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let report = try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any], "\(String(decoding: stdout, as: UTF8.self))")
            #expect(report["count"] as? Int == 4)
            // A failed request counts as a wrong answer: none may fail.
            #expect(report["failures"] as? Int == 0, "\(report)")
            // Every example went to the server: one chat completion each (plus calibration requests).
            let metrics = try await server.request("metrics").text
            let served = metrics.split(separator: "\n").first { $0.hasPrefix(#"fm_requests_total{route="/v1/chat/completions",status="200"}"#) }
            #expect(Int(served?.split(separator: " ").last ?? "") ?? 0 >= 4, "\(metrics)")
        }
    }

    @Test func boundedLoadOf200RequestsFrom16ClientsHasNoErrors() async throws {
        try await FMServe.with { server in
            let body = Data(#"{"model":"default","messages":[{"role":"user","content":"Give one word."}],"temperature":0,"max_tokens":6}"#.utf8)
            let url = server.url.appendingPathComponent("v1/chat/completions")
            let clock = ContinuousClock()
            let started = clock.now
            let results = try await withThrowingTaskGroup(of: [(Int, Duration)].self) { group in
                for client in 0..<16 {
                    group.addTask {
                        var mine: [(Int, Duration)] = []
                        for _ in stride(from: client, to: 200, by: 16) {
                            let start = clock.now
                            let reply = try await FMServe.request(url, body: body)
                            mine.append((reply.status, clock.now - start))
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let elapsed = clock.now - started
            #expect(results.count == 200)
            #expect(results.filter { $0.0 != 200 }.isEmpty, "statuses: \(Dictionary(grouping: results.map(\.0), by: { $0 }).mapValues(\.count))")
            let latencies = results.map { Double($0.1.components.attoseconds) / 1e18 + Double($0.1.components.seconds) }.sorted()
            let p50 = latencies[latencies.count / 2]
            let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
            print("fm serve load: 200 requests, 16 clients, \(String(format: "%.1f", 200 / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))) req/s, p50 \(String(format: "%.2f", p50)) s, p99 \(String(format: "%.2f", p99)) s")
            let metrics = try await server.request("metrics").text
            #expect(metrics.contains(#"fm_requests_total{route="/v1/chat/completions",status="200"} 200"#))
        }
    }
}
