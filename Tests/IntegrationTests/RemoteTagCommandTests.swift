import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FoundationModels
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `fm tag --endpoint` against a real llama-server running the tiny model: output in input order, endpoints
/// taken in turn, and cache keys that name the endpoints and the model.
@Suite("fm tag --endpoint against llama-server", .serialized, .timeLimit(.minutes(10)))
struct RemoteTagCommandTests {
    /// Runs `fm` with its result cache in `cacheHome`, returning its exit status and standard error.
    static func run(_ arguments: [String], cacheHome: URL, environment extra: [String: String] = [:]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = TagCommandTests.fm
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["XDG_CACHE_HOME"] = cacheHome.path
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stderr, as: UTF8.self))
    }

    /// A new directory for one test's files and result cache.
    static func scratchDirectory(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A schema of one string member, `topic`, as the scripted servers answer it.
    static func topicSchema(in directory: URL) throws -> URL {
        let schema = directory.appendingPathComponent("schema.json")
        try #"{"type":"object","properties":{"topic":{"type":"string"}},"required":["topic"]}"#.write(to: schema, atomically: true, encoding: .utf8)
        return schema
    }

    @Test func endpointsAreTakenInTurnAndCachedResultsNameEndpointAndModel() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: TagCommandTests.fm.path), "no fm binary at \(TagCommandTests.fm.path)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-remote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.jsonl")
        let output = directory.appendingPathComponent("out.jsonl")
        try [
            #"{"id":"a","text":"Today we had a lovely picnic with friends at the beach."}"#,
            #"{"id":"b","text":"My order arrived broken and nobody answers my emails."}"#,
            #"{"id":"c","text":"The new phone has a great camera."}"#,
            #"{"id":"d","text":"Traffic was terrible this morning."}"#,
        ].joined(separator: "\n").write(to: input, atomically: true, encoding: .utf8)
        let dead = "http://127.0.0.1:\(try LlamaServer.freePort())"

        let server = try await LlamaServer.start()
        defer { server.stop() }
        let live = server.url.absoluteString
        // Four requests at once over a live and a dead server, taken in turn: the texts the dead one cannot take
        // go to the live one (each request tries the servers from its own turn on), so every record has a result.
        let mixed = try Self.run(["tag", "--file", input.path, "--output", output.path, "--preset", "moderation",
                                  "--endpoint", "\(dead),\(live)", "--concurrency", "4", "--no-cache"], cacheHome: directory)
        #expect(mixed.status == 0, "\(mixed.status) \(mixed.stderr)")
        let records = try TagCommandTests.lines(output)
        #expect(records.map { $0["id"] as? String } == ["a", "b", "c", "d"], "input order")
        for record in records { #expect(record["result"] != nil, "\(record)") }
        // No server answers: the job stops before the first record's line, which a resume would keep as done.
        let none = try Self.run(["tag", "--file", input.path, "--output", output.path, "--preset", "moderation",
                                 "--endpoint", dead, "--no-cache"], cacheHome: directory)
        #expect(none.status == 1 && none.stderr.contains("could not be reached")
                && none.stderr.contains("The job stopped at record a, before its line"), "\(none.status) \(none.stderr)")
        #expect(try TagCommandTests.lines(output).isEmpty)

        // All through the live server, cached; then the server is gone.
        let cached = try Self.run(["tag", "--file", input.path, "--output", output.path, "--preset", "moderation",
                                   "--endpoint", live, "--concurrency", "2"], cacheHome: directory)
        #expect(cached.status == 0, "\(cached.stderr)")
        let results = try TagCommandTests.lines(output).map { $0["result"] as? [String: Any] }
        #expect(results.allSatisfy { $0 != nil }, "\(results)")
        server.stop()

        // The same endpoint and model, however the URL spells the server: every result comes from the cache,
        // though nothing answers.
        for endpoint in [live, live + "/", live.replacingOccurrences(of: "http://", with: "HTTP://")] {
            let again = try Self.run(["tag", "--file", input.path, "--output", output.path, "--preset", "moderation",
                                      "--endpoint", endpoint], cacheHome: directory)
            #expect(again.status == 0, "\(endpoint): \(again.stderr)")
            #expect(try TagCommandTests.lines(output).allSatisfy { $0["result"] != nil }, "\(endpoint)")
        }
        // Another model name on the same endpoint, or another endpoint: not the cached results, so the texts go
        // to the server, which is gone.
        for arguments in [["--endpoint", live, "--endpoint-model", "other"], ["--endpoint", "\(live)/v1"]] {
            let miss = try Self.run(["tag", "--file", input.path, "--output", output.path, "--preset", "moderation"] + arguments,
                                    cacheHome: directory)
            #expect(miss.status == 1 && miss.stderr.contains("could not be reached"), "\(arguments): \(miss.stderr)")
        }
    }

    /// A server restarted with another model at the same address, under the same model name: the cache does not
    /// answer for the new model, and while that server is away the results of the model it served last come
    /// from the cache, not those of the model before.
    /// A server whose answers name another model partway through a job (restarted with another file) stops the
    /// job storing results: the identity was learned before the job, and the new model's answers would be read
    /// back later as the first one's. So would answers from a server whose model list failed with a 5xx.
    @Test func answersFromAModelSwappedInDuringAJobAreNotCached() async throws {
        let directory = try Self.scratchDirectory("fm-remote-midjob")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.txt")
        try "first text\nsecond text\nthird text\n".write(to: input, atomically: true, encoding: .utf8)
        let schema = try Self.topicSchema(in: directory)
        for status in [200, 502] {
            let server = try await ScriptedChatServer(script: ScriptedChatServer.swappingModelScript(modelListStatus: status))
            defer { server.stop() }
            func tag() throws -> Int32 {
                try Self.run(["tag", "--file", input.path, "--output", directory.appendingPathComponent("out.jsonl").path,
                              "--schema", schema.path, "--endpoint", server.url.absoluteString, "--concurrency", "1"], cacheHome: directory).status
            }
            #expect(try tag() == 0)
            #expect(server.requests.count == 3)
            #expect(try tag() == 0)
            // With the model list, the first answer (model-a's, before the swap) is cached and the other two are
            // asked again; without one, nothing is cached. (One request at a time: with several in flight, the
            // swap can show before the first answer is stored, and then none is.)
            #expect(server.requests.count == (status == 200 ? 5 : 6), "model list \(status)")
        }
    }

    /// A server that turns texts away (503 while it loads a model, or 429) after its retries hands them to the
    /// next server of the fleet, as one that cannot be reached does.
    @Test func aBusyServerHandsItsTextsToTheNextOne() async throws {
        let directory = try Self.scratchDirectory("fm-remote-busy")
        defer { try? FileManager.default.removeItem(at: directory) }
        let busy = try await ScriptedChatServer(script: ScriptedChatServer.rawAnswer(
            head: "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n\r\n",
            body: #"{"error":{"message":"Loading model","type":"unavailable_error","code":503}}"#))
        defer { busy.stop() }
        let working = try await ScriptedChatServer(script: ScriptedChatServer.swappingModelScript())
        defer { working.stop() }
        let schema = try Self.topicSchema(in: directory)
        let output = directory.appendingPathComponent("out.jsonl")
        let run = try Self.run(["tag", "first text", "second text", "--schema", schema.path, "--output", output.path, "--no-cache",
                                "--endpoint", "\(busy.url.absoluteString),\(working.url.absoluteString)"], cacheHome: directory)
        #expect(run.status == 0, "\(run.stderr)")
        let records = try TagCommandTests.lines(output)
        #expect(records.count == 2 && records.allSatisfy { $0["result"] != nil }, "\(records)")
        #expect(working.requests.count == 2)
    }

    /// A job that sends a server more requests at once than it admits (`fm serve` deciding one and queueing one
    /// turns the rest away with 429) slows down to what the server admits instead of failing the texts it crowded
    /// out: every record gets its result.
    @Test func aJobThatCrowdsAServerSlowsDownToWhatTheServerAdmits() async throws {
        let directory = try Self.scratchDirectory("fm-remote-crowded")
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = directory.appendingPathComponent("schema.json")
        try #"{"type":"object","properties":{"topic":{"type":"string","enum":["sports","money","food"]}},"required":["topic"]}"#
            .write(to: schema, atomically: true, encoding: .utf8)
        let twelve = ["The match went to extra time.", "Rates rose again this month.", "A recipe for lemon cake.",
                     "The striker signed a new contract.", "Stocks fell on Monday.", "How long to roast a chicken?",
                     "The marathon starts at nine.", "My savings account pays little.", "Fresh pasta needs only eggs.",
                     "The coach was sacked.", "Inflation slowed in May.", "Bake the bread for forty minutes."]
        // Twice over, 16 at a time: past what three retries a second apart let through when the job does not
        // slow down (8 of the 24 were server-busy lines then).
        let texts = twelve + twelve
        let output = directory.appendingPathComponent("out.jsonl")
        try await FMServe.with(arguments: ["--concurrency", "1", "--queue", "1"]) { server in
            let run = try Self.run(["tag"] + texts + ["--schema", schema.path, "--output", output.path, "--no-cache",
                                                      "--concurrency", "16", "--endpoint", server.url.absoluteString], cacheHome: directory)
            #expect(run.status == 0, "\(run.stderr)")
            // The server did turn requests away: the job met the limit it slowed down to.
            let metrics = try await server.request("metrics").text
            let turnedAway = metrics.split(separator: "\n").first { $0.hasPrefix(#"fm_requests_total{route="/v1/chat/completions",status="429"}"#) }
            #expect(turnedAway.flatMap { $0.split(separator: " ").last.flatMap { Int($0) } }.map { $0 > 0 } == true, "\(metrics)")
        }
        let records = try TagCommandTests.lines(output)
        #expect(records.count == texts.count && records.allSatisfy { $0["result"] != nil }, "\(records)")
    }

    /// A server that turns a text away even when it is the job's only request there is busy with others' work:
    /// the job stops before that record's line, so a resume tags it once the server has room.
    @Test func aServerBusyForALoneRequestStopsTheJob() async throws {
        let directory = try Self.scratchDirectory("fm-remote-full")
        defer { try? FileManager.default.removeItem(at: directory) }
        let full = try await ScriptedChatServer(script: ScriptedChatServer.rawAnswer(
            head: "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 0\r\n\r\n",
            body: #"{"error":{"message":"The server is busy","type":"rate_limit_error","code":"queue_full"}}"#))
        defer { full.stop() }
        let schema = try Self.topicSchema(in: directory)
        let output = directory.appendingPathComponent("out.jsonl")
        let run = try Self.run(["tag", "first text", "second text", "third text", "--schema", schema.path, "--output", output.path,
                                "--no-cache", "--concurrency", "2", "--endpoint", full.url.absoluteString], cacheHome: directory)
        #expect(run.status == 1 && run.stderr.contains("HTTP 429") && run.stderr.contains("The job stopped at record 1, before its line")
                && run.stderr.contains("once a server has room"), "\(run.status) \(run.stderr)")
        #expect(try TagCommandTests.lines(output).isEmpty)
    }

    /// A server that refuses the job's key (401) would refuse every text: the next server of a fleet takes them,
    /// and with no other server the job stops before the first record's line, as for a server that is down.
    @Test func aServerThatRefusesTheKeyHandsItsTextsOnOrStopsTheJob() async throws {
        let directory = try Self.scratchDirectory("fm-remote-refused")
        defer { try? FileManager.default.removeItem(at: directory) }
        let guarded = try await LlamaServer.start(arguments: ["--api-key", "the-right-key"])
        defer { guarded.stop() }
        let output = directory.appendingPathComponent("out.jsonl")
        let key = ["FM_TEST_WRONG_KEY": "a-wrong-key"]
        let refused = try Self.run(["tag", "My invoice is wrong.", "The app crashes.", "--preset", "support-ticket", "--output", output.path,
                                    "--no-cache", "--endpoint", guarded.url.absoluteString, "--api-key-env", "FM_TEST_WRONG_KEY"],
                                   cacheHome: directory, environment: key)
        #expect(refused.status == 1 && refused.stderr.contains("HTTP 401") && refused.stderr.contains("The job stopped at record 1, before its line")
                && refused.stderr.contains("once a server accepts the requests"), "\(refused.status) \(refused.stderr)")
        #expect(try TagCommandTests.lines(output).isEmpty)

        let working = try await ScriptedChatServer(script: ScriptedChatServer.swappingModelScript())
        defer { working.stop() }
        let schema = try Self.topicSchema(in: directory)
        let fleet = try Self.run(["tag", "first text", "second text", "--schema", schema.path, "--output", output.path, "--no-cache",
                                  "--endpoint", "\(guarded.url.absoluteString),\(working.url.absoluteString)", "--api-key-env", "FM_TEST_WRONG_KEY"],
                                 cacheHome: directory, environment: key)
        #expect(fleet.status == 0, "\(fleet.stderr)")
        #expect(try TagCommandTests.lines(output).allSatisfy { $0["result"] != nil })
        #expect(working.requests.count == 2)
    }

    /// A server that has answered texts of the job and then refuses one (a proxy's filter) refuses that text, not
    /// the job: its line is an error and the job goes on.
    @Test func aRefusalAfterAnswersIsAboutItsText() async throws {
        let directory = try Self.scratchDirectory("fm-remote-filtered")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ScriptedChatServer(script: ScriptedChatServer.swappingModelScript(laterStatus: 403))
        defer { server.stop() }
        let schema = try Self.topicSchema(in: directory)
        let output = directory.appendingPathComponent("out.jsonl")
        let run = try Self.run(["tag", "first text", "second text", "third text", "--schema", schema.path, "--output", output.path,
                                "--no-cache", "--concurrency", "1", "--endpoint", server.url.absoluteString], cacheHome: directory)
        #expect(run.status == 2, "\(run.stderr)")
        let records = try TagCommandTests.lines(output)
        #expect(records.count == 3 && records[0]["result"] != nil, "\(records)")
        #expect(records.dropFirst().allSatisfy { ($0["error"] as? [String: Any])?["code"] as? String == "server-error" }, "\(records)")
    }

    /// A server's answer cut off at `max_tokens` gets the code a local one does, so a job reads both alike.
    @Test func aRemoteAnswerCutByTheTokenBudgetIsAResponseBudgetError() async throws {
        let directory = try Self.scratchDirectory("fm-remote-budget")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ScriptedChatServer(script: ScriptedChatServer.rawAnswer(
            head: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n",
            body: #"{"id":"c","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{\"topic\":\"bil"},"finish_reason":"length"}]}"#))
        defer { server.stop() }
        let output = directory.appendingPathComponent("out.jsonl")
        let run = try Self.run(["tag", "My invoice is wrong.", "--preset", "support-ticket", "--max-tokens", "5", "--output", output.path,
                                "--endpoint", server.url.absoluteString], cacheHome: directory)
        #expect(run.status == 2, "\(run.stderr)")
        let records = try TagCommandTests.lines(output)
        let error = try #require(records.first?["error"] as? [String: Any], "\(records)")
        #expect(error["code"] as? String == "response-budget", "\(error)")
    }

    /// A server that takes requests and never answers is one that cannot be reached, not a source of error lines:
    /// the next server of a fleet takes its texts, and with no other server the job stops before the first line.
    @Test func aServerThatNeverAnswersHandsItsTextsOnOrStopsTheJob() async throws {
        let directory = try Self.scratchDirectory("fm-remote-silent")
        defer { try? FileManager.default.removeItem(at: directory) }
        let silent = try await ScriptedChatServer(script: ScriptedChatServer.silentScript)
        defer { silent.stop() }
        let working = try await ScriptedChatServer(script: ScriptedChatServer.swappingModelScript())
        defer { working.stop() }
        let schema = try Self.topicSchema(in: directory)
        let output = directory.appendingPathComponent("out.jsonl")
        let fleet = try Self.run(["tag", "first text", "second text", "third text", "--schema", schema.path, "--output", output.path,
                                  "--no-cache", "--endpoint-timeout", "1", "--concurrency", "2",
                                  "--endpoint", "\(silent.url.absoluteString),\(working.url.absoluteString)"], cacheHome: directory)
        #expect(fleet.status == 0, "\(fleet.stderr)")
        let records = try TagCommandTests.lines(output)
        #expect(records.count == 3 && records.allSatisfy { $0["result"] != nil }, "\(records)")

        let alone = directory.appendingPathComponent("alone.jsonl")
        let stopped = try Self.run(["tag", "first text", "second text", "--schema", schema.path, "--output", alone.path, "--no-cache",
                                    "--endpoint-timeout", "1", "--endpoint", silent.url.absoluteString], cacheHome: directory)
        #expect(stopped.status == 1 && stopped.stderr.contains("It has answered no request of the job")
                && stopped.stderr.contains("The job stopped at record 1, before its line"), "\(stopped.status) \(stopped.stderr)")
        #expect(try TagCommandTests.lines(alone).isEmpty)
    }

    /// A server that queues what it has no room for, so some requests wait past the timeout while it answers
    /// others, is busy: the job sends it fewer requests at once, and every text gets its answer.
    @Test func aServerThatQueuesPastTheTimeoutSlowsTheJobDown() async throws {
        let directory = try Self.scratchDirectory("fm-remote-queue")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ScriptedChatServer(script: ScriptedChatServer.oneAtATimeScript(seconds: 0.25))
        defer { server.stop() }
        let schema = try Self.topicSchema(in: directory)
        let texts = (1...20).map { "text \($0)" }
        let output = directory.appendingPathComponent("out.jsonl")
        // Twenty at once at a server that answers one each 0.25 s: the thirteenth and later wait past the 3 s timeout.
        let run = try Self.run(["tag"] + texts + ["--schema", schema.path, "--output", output.path, "--no-cache", "--concurrency", "20",
                                                  "--endpoint-timeout", "3", "--endpoint", server.url.absoluteString], cacheHome: directory)
        #expect(run.status == 0, "\(run.stderr)")
        let records = try TagCommandTests.lines(output)
        #expect(records.count == texts.count && records.allSatisfy { $0["result"] != nil }, "\(records)")
    }

    /// A body that never finishes an answer (an event line without end) is cut off at a bound on its bytes with
    /// an error line, instead of growing in memory until the resource timeout.
    @Test func anAnswerPastItsByteBoundIsAnErrorLine() async throws {
        let directory = try Self.scratchDirectory("fm-remote-huge")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ScriptedChatServer(script: #"""
            import http.server, sys
            port = int(sys.argv[1])
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_POST(self):
                    self.rfile.read(int(self.headers.get("Content-Length", 0)))
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
                    self.wfile.write(b'data: {"choices":[{"index":0,"delta":{"content":"' + b"x" * 5000000)
                    self.wfile.flush()
                    self.close_connection = True
                def log_message(self, *args):
                    pass
            http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
            """#)
        defer { server.stop() }
        let schema = try Self.topicSchema(in: directory)
        let output = directory.appendingPathComponent("out.jsonl")
        let run = try Self.run(["tag", "first text", "--schema", schema.path, "--max-tokens", "8", "--output", output.path, "--no-cache",
                                "--endpoint", server.url.absoluteString], cacheHome: directory)
        #expect(run.status == 2, "\(run.status) \(run.stderr)")
        let records = try TagCommandTests.lines(output)
        let error = try #require(records.first?["error"] as? [String: Any], "\(records)")
        #expect((error["message"] as? String)?.contains("bytes without finishing the answer") == true, "\(error)")
    }

    @Test func anEmptyInputReadAsItArrivesAsksNoServer() throws {
        // A server that never answers: asking it what it serves would hold the job until the request timed out.
        let listener = try Listener()
        defer { listener.close() }
        let directory = try Self.scratchDirectory("fm-remote-empty")
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try ReportCommandTests.run(["tag", "--endpoint", "http://127.0.0.1:\(listener.port)"], input: "\n",
                                             environment: ["XDG_CACHE_HOME": directory.path])
        #expect(run.status == 0 && run.stdout.isEmpty, "\(run.stderr)")
        #expect(run.stderr.contains("fm tag: standard input holds no texts; nothing to tag"), "\(run.stderr)")
        // No connection is waiting to be accepted.
        #expect(fcntl(listener.descriptor, F_SETFL, O_NONBLOCK) == 0)
        let connection = accept(listener.descriptor, nil, nil)
        if connection >= 0 { Glibc.close(connection) }
        #expect(connection < 0, "fm tag connected to the server")
    }

    @Test func anotherModelBehindTheSameEndpointIsNotAnsweredFromTheCache() async throws {
        _ = DefaultModel.model
        let gemma = try #require(ModelCatalog.entry(named: "gemma")?.fileURL)
        try #require(FileManager.default.fileExists(atPath: gemma.path), "Run `fm model install gemma` (or `make test`).")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-remote-swap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = [#"{"id":"a","text":"Win a free cruise now!"}"#, #"{"id":"b","text":"See you at lunch tomorrow."}"#,
                     #"{"id":"c","text":"The meeting moved to Thursday."}"#]
        let all = directory.appendingPathComponent("all.jsonl"), two = directory.appendingPathComponent("two.jsonl")
        try lines.joined(separator: "\n").write(to: all, atomically: true, encoding: .utf8)
        try lines.prefix(2).joined(separator: "\n").write(to: two, atomically: true, encoding: .utf8)
        let output = directory.appendingPathComponent("out.jsonl")
        func tag(_ input: URL, _ server: LlamaServer) throws -> (status: Int32, records: [[String: Any]]) {
            let run = try Self.run(["tag", "--file", input.path, "--output", output.path, "--preset", "moderation",
                                    "--endpoint", server.url.absoluteString], cacheHome: directory)
            return (run.status, try TagCommandTests.lines(output))
        }
        /// How many tokens the server generated (`--metrics`): none when every result came from the cache.
        func generated(_ server: LlamaServer) async throws -> Double {
            let (data, _) = try await URLSession.shared.data(from: server.url.appendingPathComponent("metrics"))
            let line = String(decoding: data, as: UTF8.self).split(separator: "\n")
                .first { !$0.hasPrefix("#") && $0.contains("tokens_predicted_total") }
            return try #require(line.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }, "\(String(decoding: data, as: UTF8.self))")
        }

        let first = try await LlamaServer.start(arguments: ["--metrics"])
        let firstRun = try tag(all, first)
        #expect(firstRun.status == 0 && firstRun.records.allSatisfy { $0["result"] != nil }, "\(firstRun)")
        #expect(try await generated(first) > 0)
        let firstServes = await ChatCompletionsLanguageModel(endpoint: first.url, model: "default").servedModels()
        first.stop()
        let second = try await LlamaServer.start(arguments: ["-m", gemma.path, "--metrics"], port: first.port)
        defer { second.stop() }
        let secondServes = await ChatCompletionsLanguageModel(endpoint: second.url, model: "default").servedModels()
        guard case .served(let before) = firstServes, case .served(let after) = secondServes else {
            Issue.record("\(firstServes) \(secondServes)")
            return
        }
        #expect(before != after && before.contains("meta=") && after.contains("meta="), "\(before) \(after)")
        let secondRun = try tag(two, second)
        #expect(secondRun.status == 0 && secondRun.records.allSatisfy { $0["result"] != nil }, "\(secondRun)")
        #expect(try await generated(second) > 0, "the new model answered, not the first model's cached results")
        second.stop()
        // Away: the two texts the second model tagged come from the cache; the third, which only the first
        // model tagged, needs the server, so the job stops before its line (a resume goes on from there).
        let away = try tag(all, second)
        #expect(away.status == 1, "\(away)")
        #expect(away.records.count == 2 && away.records.allSatisfy { $0["result"] != nil }, "\(away.records)")
    }
}
