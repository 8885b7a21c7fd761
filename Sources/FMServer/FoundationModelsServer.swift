import HTTPTypes
import FMEngine
import FMLlama
import FMTagging
import Foundation
import FoundationModels
import Hummingbird
import NIOCore
import NIOHTTP1
import Synchronization
import Logging

/// An OpenAI-compatible HTTP server over the in-process engine (`fm serve`).
///
/// Routes: `POST /v1/chat/completions` (JSON or server-sent events), `GET /v1/models`, `GET /health`,
/// `GET /metrics` (Prometheus text) and `POST /v1/tag` (JSONL in, JSONL out, the lines `fm tag` writes).
/// Requests in flight at the same time are decoded together by the engine, one llama.cpp batch per step.
/// `SIGINT`/`SIGTERM` stop accepting connections and let the requests in flight finish.
public struct FoundationModelsServer: Sendable {
    /// The configuration.
    public let configuration: ServerConfiguration
    let backend: ModelBackend
    let gate: AdmissionGate
    let metrics = ServerMetrics()

    /// Creates a server; nothing listens until ``run(onListening:)``.
    public init(configuration: ServerConfiguration) {
        self.configuration = configuration
        backend = ModelBackend(configuration.model)
        gate = AdmissionGate(active: configuration.concurrentRequests, queued: configuration.queuedRequests)
    }

    /// Loads the model, listens, and serves until the process receives `SIGINT` or `SIGTERM`.
    ///
    /// - Parameter onListening: Called with the bound port once the server accepts connections.
    /// - Throws: ``SystemLanguageModel/Error/assetsUnavailable(_:)`` when the model cannot be loaded (the server
    ///   would otherwise report itself healthy and fail every request); an error when the address cannot be bound.
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await backend.systemModel?.load()
        backend.prewarm(Transcript())
        // Errors before the server listens are about its address; later ones are not.
        let listening = Atomic(false)
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: ServerMiddleware(metrics: metrics, apiKey: configuration.apiKey))
        addRoutes(to: router)
        var logger = Logger(label: "fm-serve")
        logger.logLevel = .warning
        // Without an idle timeout a client that stops sending halfway through a body would hold its connection,
        // and shutdown, for ever.
        let idle = configuration.idleTimeout.components
        let app = Application(
            router: router,
            server: .http1(configuration: .init(
                additionalChannelHandlers: [ConnectionCloseHandler.Installer(), MalformedRequestHandler(metrics: metrics), ExpectContinueHandler()],
                idleTimeout: .nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "fm-serve"),
            onServerRunning: { channel in
                listening.store(true, ordering: .relaxed)
                await onListening(channel.localAddress?.port ?? configuration.port)
            },
            logger: logger
        )
        do {
            try await app.runService()
        } catch let error where !listening.load(ordering: .relaxed) && (error is SocketAddressError || error is SocketAddressError.UnknownHost) {
            throw ListenError(isInvalidAddress: true, description:
                "Cannot listen on '\(configuration.host)' port \(configuration.port): it names no address (\(error)).")
        } catch let error as IOError where !listening.load(ordering: .relaxed) {
            throw ListenError(isInvalidAddress: false, description:
                "Cannot listen on \(configuration.host) port \(configuration.port): \(String(cString: strerror(error.errnoCode))).")
        }
    }

    /// Why the server could not start listening.
    public struct ListenError: Error, CustomStringConvertible {
        /// Whether the host names no address to listen on (a mistyped host), rather than an address that is in use or
        /// not allowed.
        public let isInvalidAddress: Bool
        /// What went wrong, naming the address.
        public let description: String
    }

    private func addRoutes(to router: Router<ServerRequestContext>) {
        // The model file's content digest, listed as `meta` (as llama-server lists its model's size and shape), so a
        // client's result cache can tell this model from another served under the same name. Read once, at start.
        let identity: GeneratedContent = .object([("content", .text(ModelIdentity.of(configuration.model.modelURL)))]
            + (configuration.model.adapter.map { [("adapter", .text(ModelIdentity.of($0.fileURL)))] } ?? []))
        let started = Int(Date().timeIntervalSince1970)
        // Every GET route answers HEAD too: the same status and headers, and the HTTP layer leaves out the body.
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/health", method: method) { _, _ in
                Self.json(.object([("status", .text("ok")), ("model", .text(configuration.modelName))]))
            }
            // `created` is when the server started serving the model: OpenAI's field is a Unix time, and a client that
            // sorts or shows models by it should not see 1970.
            let card: GeneratedContent = .object([
                ("id", .text(configuration.modelName)), ("object", .text("model")), ("created", .integer(started)),
                ("owned_by", .text("foundation-models")), ("meta", identity),
            ])
            router.on("/v1/models", method: method) { _, _ in
                Self.json(.object([("object", .text("list")), ("data", .array([card]))]))
            }
            // OpenAI's `models.retrieve`: the one served model by its name (or `default`, as chat completions take it).
            router.on("/v1/models/:model", method: method) { _, context in
                let name = context.parameters.get("model") ?? ""
                try self.checkModel(name.removingPercentEncoding ?? name)
                return Self.json(card)
            }
            router.on("/metrics", method: method) { _, _ in
                let depth = gate.depth
                let threads = LlamaComputeGate.evaluationThreads
                let text = metrics.exposition(running: depth.running, waiting: depth.waiting, threads: threads)
                return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                                body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
            }
        }
        router.post("/v1/chat/completions") { request, _ in
            // A client that hangs up before its answer is complete cancels the generation, which would otherwise
            // run to max_tokens and hold a turn (a stream notices at its next write). The connection ends with the
            // response (ServerMiddleware says so in its headers).
            try await request.body.consumeWithCancellationOnInboundClose { body in
                var request = request
                request.body = body
                return try await chatCompletion(request)
            }
        }
        router.post("/v1/tag") { request, _ in
            // A client that hangs up while its job waits for admission leaves the queue; once the job runs, it
            // stops at the next line it cannot write.
            try await request.body.consumeWithCancellationOnInboundClose { body in
                var request = request
                request.body = body
                return try await tag(request)
            }
        }
    }

    // MARK: Chat completions

    private func chatCompletion(_ request: Request) async throws -> Response {
        let deadline = RequestDeadline(limit: configuration.requestTimeout)
        let bodyText = try await Self.bodyText(of: request, limit: configuration.maximumBodyBytes)
        let cap = configuration.maximumTokens
        // Importing a schema compiles its grammar, which is CPU work: keep it off the cooperative pool.
        let parsed = try await Self.offload { () throws(APIError) in
            try ChatCompletionRequest(body: JSONField.body(bodyText), maximumTokensCap: cap)
        }
        try checkModel(parsed.model)
        let ticket = try await gate.admit(sequences: parsed.decodedChoiceCount, deadline: deadline)
        let response = ChatCompletionResponse(model: configuration.modelName)
        if parsed.stream {
            return try await streamedCompletion(parsed, response: response, ticket: ticket, deadline: deadline)
        }
        defer { ticket.release() }
        var texts = Array(repeating: "", count: parsed.choiceCount)
        var calls = Array(repeating: [ToolCallText](), count: parsed.choiceCount)
        var usages = Array(repeating: ChatUsage(), count: parsed.choiceCount)
        var reasons = Array(repeating: String?.none, count: parsed.choiceCount)
        var logprobs = Array(repeating: [TokenLogprob]?.none, count: parsed.choiceCount)
        let events = ChatCompletionRun.events(for: parsed, backend: backend, deadline: deadline,
                                              calibrationProgress: metrics.calibrationProgress)
        for try await (index, event) in events {
            switch event {
            case .text(let fragment): texts[index] += fragment
            case .toolCall(let id, let name, let arguments): calls[index].append(ToolCallText(id: id, name: name, arguments: arguments))
            case .usage(let prompt, let cached, let completion): usages[index] = ChatUsage(prompt: prompt, cached: cached, completion: completion)
            case .finish(let reason): reasons[index] = reason
            case .logprobs(let tokens): logprobs[index] = tokens
            }
        }
        // A stream whose reader is cancelled (the client hung up) ends without an error: a cut-off answer is not one.
        try Task.checkCancellation()
        let choices = (0..<parsed.choiceCount).map { index in
            ChatCompletionResponse.Choice(text: texts[index], calls: calls[index], finishReason: Self.finishReason(
                calls: calls[index], reported: reasons[index], usage: usages[index], request: parsed), logprobs: logprobs[index])
        }
        let usage = ChatUsage(combining: usages)
        metrics.recordTokens(prompt: usage.prompt, cached: usage.cached, completion: parsed.generatedTokens(of: usages))
        return Self.json(response.completion(choices: choices, usage: usage))
    }

    /// A streamed completion. The status line waits for the generation's first event, so a request that fails
    /// before producing anything (a prompt beyond the context, a timeout, a model that cannot load) gets its own
    /// 4xx or 5xx, as llama-server answers, rather than a 200 stream that holds only an error.
    private func streamedCompletion(_ parsed: ChatCompletionRequest, response: ChatCompletionResponse, ticket: AdmissionGate.Ticket,
                                    deadline: RequestDeadline) async throws -> Response {
        let metrics = metrics
        // The turn is given back when the generation stops, not when a slow client has read the last of it.
        let events = ChatCompletionRun.events(for: parsed, backend: backend, deadline: deadline,
                                              calibrationProgress: metrics.calibrationProgress, whenDone: { ticket.release() })
        let first: (choice: Int, event: ChatCompletionEvent)?
        do {
            var iterator = events.makeAsyncIterator()
            first = try await iterator.next()
        } catch {
            ticket.release()
            throw ChatCompletionRun.apiError(for: error)
        }
        // A client that hung up while the first event was coming gets no body, whose end would give the turn back.
        if first == nil, Task.isCancelled {
            ticket.release()
            throw CancellationError()
        }
        let body = ResponseBody { writer in
            defer { ticket.release() }
            // A choice opens with its role at its first words or call, as OpenAI's do: `content` is "" before
            // words and null before calls, which a client's joined message keeps (null for an answer of calls).
            var opened = Array(repeating: false, count: parsed.choiceCount)
            let openingWords: [(String, GeneratedContent)] = [("role", .text("assistant")), ("content", .text(""))]
            var calls = Array(repeating: [ToolCallText](), count: parsed.choiceCount)
            var usages = Array(repeating: ChatUsage(), count: parsed.choiceCount)
            var reasons = Array(repeating: String?.none, count: parsed.choiceCount)
            do {
                // The first event, which the status line waited for, then the rest from the same stream.
                var iterator = events.makeAsyncIterator()
                var next = first
                while let (index, event) = next {
                    switch event {
                    case .text(let fragment):
                        if !fragment.isEmpty {
                            if !opened[index] {
                                opened[index] = true
                                try await writer.write(Self.event(response.chunk(index: index, delta: openingWords)))
                            }
                            try await writer.write(Self.event(response.chunk(index: index, delta: [("content", .text(fragment))])))
                        }
                    case .toolCall(let id, let name, let arguments):
                        let call = ToolCallText(id: id, name: name, arguments: arguments)
                        var delta: [(String, GeneratedContent)] = [("tool_calls", .array([call.json(index: calls[index].count)]))]
                        if !opened[index] {
                            opened[index] = true
                            delta = [("role", .text("assistant")), ("content", .null)] + delta
                        }
                        try await writer.write(Self.event(response.chunk(index: index, delta: delta)))
                        calls[index].append(call)
                    case .usage(let prompt, let cached, let completion):
                        usages[index] = ChatUsage(prompt: prompt, cached: cached, completion: completion)
                    case .finish(let reason):
                        reasons[index] = reason
                    case .logprobs(let tokens):
                        if !opened[index] {
                            opened[index] = true
                            try await writer.write(Self.event(response.chunk(index: index, delta: openingWords)))
                        }
                        // The engine reports them with the whole answer, so they follow its text in a chunk of their own.
                        try await writer.write(Self.event(response.chunk(index: index, delta: [], logprobs: tokens)))
                    }
                    next = try await iterator.next()
                }
                // As for a whole answer: the events end without an error when this task is cancelled.
                try Task.checkCancellation()
                let usage = ChatUsage(combining: usages)
                metrics.recordTokens(prompt: usage.prompt, cached: usage.cached, completion: parsed.generatedTokens(of: usages))
                for index in 0..<parsed.choiceCount {
                    // An empty answer still has its role.
                    if !opened[index] { try await writer.write(Self.event(response.chunk(index: index, delta: openingWords))) }
                    let reason = Self.finishReason(calls: calls[index], reported: reasons[index], usage: usages[index], request: parsed)
                    try await writer.write(Self.event(response.chunk(index: index, delta: [], finishReason: reason)))
                }
                if parsed.includeUsage { try await writer.write(Self.event(response.usageChunk(usage))) }
            } catch let error as CancellationError {
                throw error
            } catch {
                // The status line is gone already: report the error inside the stream, as OpenAI and llama-server do,
                // and count the request under the error's status.
                let apiError = ChatCompletionRun.apiError(for: error)
                StreamOutcome.current?.fail(status: Int(apiError.status.code))
                try await writer.write(Self.event(apiError.json))
            }
            try await writer.write(ByteBuffer(string: "data: [DONE]\n\n"))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    /// An answer's `finish_reason`: `tool_calls` when it made calls, else the reason its executor reported. Counting
    /// tokens is the fallback for a backend that reports none, and it cannot tell a stop string met on the last
    /// allowed token from the limit.
    private static func finishReason(calls: [ToolCallText], reported: String?, usage: ChatUsage, request: ChatCompletionRequest) -> String {
        if !calls.isEmpty { return "tool_calls" }
        if let reported { return reported }
        return usage.completion >= request.maximumTokens ? "length" : "stop"
    }

    private func checkModel(_ name: String?) throws(APIError) {
        guard let name else { return }
        guard name == configuration.modelName || name == "default" else {
            throw APIError(.notFound, code: "model_not_found", param: "model",
                           "The model '\(name)' does not exist; this server serves '\(configuration.modelName)'.")
        }
    }

    // MARK: Helpers

    /// The most bytes of a refused body (too large, or in an unsupported encoding) read and dropped before the
    /// refusal is sent.
    static let refusedBodyAllowance = 64 << 20

    /// The body's bytes, refused with a 413 beyond `limit` bytes.
    ///
    /// A refused body is still read to its end (up to ``refusedBodyAllowance`` bytes) before the error is thrown:
    /// a client that sends its whole body before it reads the answer would otherwise stall with its body half
    /// sent, and never see the refusal.
    static func bodyBytes(of request: Request, limit: Int) async throws -> [UInt8] {
        // A compressed body would otherwise be read as its compressed bytes ("not valid UTF-8") or, for an
        // encoding that leaves ASCII alone, used as if it were plain.
        if let encoding = request.headers[.contentEncoding], encoding.lowercased() != "identity" {
            await drain(request.body.makeAsyncIterator(), upTo: refusedBodyAllowance)
            throw APIError(.unsupportedMediaType, code: "unsupported_content_encoding",
                           "Content-Encoding '\(encoding)' is not supported; send the body uncompressed.")
        }
        // The body is read as chunked whatever codings come before `chunked` (`gzip, chunked`): one this server
        // does not implement is refused as RFC 9112 asks, rather than its bytes taken for the body.
        if let codings = request.headers[.transferEncoding],
           let unknown = codings.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() })
               .first(where: { $0 != "chunked" }) {
            await drain(request.body.makeAsyncIterator(), upTo: refusedBodyAllowance)
            throw APIError(.notImplemented, code: "unsupported_transfer_encoding",
                           "Transfer-Encoding '\(unknown)' is not supported; send the body with chunked or a Content-Length alone.")
        }
        var bytes: [UInt8] = []
        var body = request.body.makeAsyncIterator()
        do {
            while let buffer = try await body.next() {
                guard bytes.count + buffer.readableBytes <= limit else {
                    await drain(body, upTo: refusedBodyAllowance - bytes.count - buffer.readableBytes)
                    throw APIError(.contentTooLarge, code: "request_too_large", "The request body is larger than \(limit) bytes.")
                }
                bytes.append(contentsOf: buffer.readableBytesView)
            }
        } catch let error as HTTPParserError {
            // The body's framing broke (it ended before its Content-Length, or a chunk's size is not hex): the
            // request's fault, not the server's.
            throw APIError(.badRequest, code: "invalid_body", "The request body could not be read: \(error).")
        }
        return bytes
    }

    /// Reads and drops what is left of a body, up to `allowance` bytes; the connection closes after the response.
    private static func drain(_ body: RequestBody.AsyncIterator, upTo allowance: Int) async {
        var body = body
        var left = allowance
        while left > 0, let buffer = try? await body.next() { left -= buffer.readableBytes }
    }

    /// The body as UTF-8 text, refused with a 413 beyond `limit` bytes and a 400 when it is not UTF-8 (JSON
    /// must be, and replacing the bytes would change what the client sent).
    static func bodyText(of request: Request, limit: Int) async throws -> String {
        let bytes = try await bodyBytes(of: request, limit: limit)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw APIError(.badRequest, code: "invalid_utf8", "The request body is not valid UTF-8.")
        }
        return text
    }

    static func offload<T: Sendable>(_ work: @escaping @Sendable () throws(APIError) -> T) async throws -> T {
        do {
            return try await Engine.offload { try work() }
        } catch let error as APIError {
            throw error
        }
    }

    static func json(_ content: GeneratedContent, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: content.compactJSONString)))
    }

    static func event(_ content: GeneratedContent) -> ByteBuffer {
        ByteBuffer(string: "data: \(content.compactJSONString)\n\n")
    }
}

// MARK: Batch tagging

/// What a `/v1/tag` job's writer receives: a result line, or word that the job ran out of time.
private enum TagJobEvent: Sendable {
    case line(String)
    case timedOut
}

extension FoundationModelsServer {
    /// Tags JSONL texts and streams one result line per text, in input order.
    func tag(_ request: Request) async throws -> Response {
        let deadline = RequestDeadline(limit: configuration.requestTimeout)
        let input = try await Self.bodyBytes(of: request, limit: configuration.maximumBodyBytes)
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters where !(key.isEmpty && value.isEmpty) {
            // A second value would silently replace the first. (`?a&&b` has an empty pair between its `&`s; a value
            // without a name, `?=x`, is kept, and refused as an unknown parameter.)
            guard query.updateValue(String(value), forKey: String(key)) == nil else {
                throw APIError.invalid(String(key), "The query gives '\(key)' more than once.")
            }
        }
        let frozenQuery = query
        let parsed = try await Self.offload { () throws(APIError) in try TagRequest(body: input, query: frozenQuery) }
        let texts = parsed.records.compactMap { try? $0.text.get() }
        // The job decodes no more texts at once than --concurrency lets one request, which is what it is admitted as.
        let parallel = max(1, min(configuration.tagParallel, configuration.concurrentRequests))
        let ticket = try await gate.admit(sequences: min(parallel, texts.count), deadline: deadline)
        let tagging = TaggingConfiguration(
            model: SystemLanguageModel(modelURL: configuration.model.modelURL, useCase: .contentTagging, guardrails: configuration.model.guardrails),
            schema: parsed.schema,
            instructions: parsed.instructions,
            calibrationTexts: TaggingConfiguration.sample(of: texts, for: parsed.schema)
        )
        let metrics = metrics
        let records = parsed.records
        let body = ResponseBody { writer in
            let (lines, continuation) = AsyncThrowingStream<TagJobEvent, any Error>.makeStream()
            let work = Task {
                // The lines are buffered: the turn is given back when the job stops, not when the client has read them,
                // and not before a job cancelled by a timeout or a hang-up has stopped either.
                defer { ticket.release() }
                do {
                    // The same glossary `fm tag` writes for the job's small choice fields, so both answer alike.
                    let tagger = Tagger(configuration: await tagging.describingLabels(), calibrationProgress: metrics.calibrationProgress)
                    let runner = TaggingRunner(tagger: tagger, parallel: parallel)
                    try await runner.run(records) { record, outcome in
                        continuation.yield(.line(TaggingOutput.line(for: record, outcome: outcome) + "\n"))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            let clock = Task {
                try await Task.sleep(until: deadline.instant, clock: .continuous)
                continuation.yield(.timedOut)
            }
            // A client that goes away stops the job.
            defer { work.cancel(); clock.cancel() }
            var count = 0
            events: for try await event in lines {
                switch event {
                case .line(let line):
                    try await writer.write(ByteBuffer(string: line))
                    count += 1
                case .timedOut:
                    // Past --timeout the job stops, and every text it did not reach still gets its line; a line that
                    // was never a text (not UTF-8, not JSON) keeps its own reason, which needed no model.
                    work.cancel()
                    let failure = TaggingFailure(code: "timeout", message: deadline.error.message)
                    for record in records[count...] {
                        let outcome: Result<GeneratedContent, TaggingFailure> = if case .failure(let reason) = record.text { .failure(reason) } else { .failure(failure) }
                        try await writer.write(ByteBuffer(string: TaggingOutput.line(for: record, outcome: outcome) + "\n"))
                    }
                    break events
                }
            }
            metrics.recordTagged(count)
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: body)
    }
}
