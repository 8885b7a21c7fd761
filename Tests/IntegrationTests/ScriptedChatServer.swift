import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real HTTP server (Python's `http.server`) that answers chat completion requests with llama-server's SSE
/// chunks — a tool call to `getWeather` first, then text — and records each request body. It tests the tool-call
/// round trip over HTTP where the tiny model cannot be made to call a tool (see ChatCompletionsTests). Other
/// scripts end the stream the ways some servers and proxies do.
final class ScriptedChatServer: Sendable {
    let process: Process
    let port: Int
    let logFile: URL

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The JSON bodies received so far.
    var requests: [[String: Any]] {
        ((try? String(contentsOf: logFile, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static let script = #"""
    import http.server, json, sys
    port, log_file = int(sys.argv[1]), sys.argv[2]
    def chunk(delta, finish=None, usage=None):
        body = {"id": "chatcmpl-1", "model": "scripted", "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if usage is not None:
            body = {"id": "chatcmpl-1", "model": "scripted", "choices": [], "usage": usage}
        return "data: " + json.dumps(body) + "\n\n"
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with open(log_file, "a") as log:
                log.write(body.decode() + "\n")
            first = sum(1 for _ in open(log_file)) == 1
            if first:
                events = [chunk({"role": "assistant", "content": None}),
                          chunk({"tool_calls": [{"index": 0, "id": "call_7", "type": "function",
                                                  "function": {"name": "getWeather", "arguments": "{\"ci"}}]}),
                          chunk({"tool_calls": [{"index": 0, "function": {"arguments": "ty\": \"Paris\"}"}}]}),
                          chunk({}, "tool_calls"),
                          chunk(None, usage={"prompt_tokens": 40, "completion_tokens": 9})]
            else:
                events = [chunk({"role": "assistant", "content": None}), chunk({"content": "It is sunny"}),
                          chunk({"content": " in Paris."}), chunk({}, "stop"),
                          chunk(None, usage={"prompt_tokens": 80, "completion_tokens": 5})]
            payload = ("".join(events) + "data: [DONE]\n\n").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        def log_message(self, *args):
            pass
    http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
    """#

    /// Answers with one chunk of text, then closes the connection, which ends the body (HTTP/1.0, no
    /// `Content-Length`) before any `finish_reason` or `[DONE]`: a server that went away mid-answer.
    static let cutShortScript = #"""
    import http.server, sys
    port = int(sys.argv[1])
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b'data: {"choices":[{"index":0,"delta":{"content":"The capital is"}}]}\n\n')
        def log_message(self, *args):
            pass
    http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
    """#

    /// Answers completely, `[DONE]` included, then keeps the connection open for a minute, as some proxies do.
    static let heldOpenScript = #"""
    import http.server, json, sys, time
    port = int(sys.argv[1])
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for delta, finish in [({"content": "The capital is"}, None), ({"content": " Paris."}, None), ({}, "stop")]:
                body = {"id": "chatcmpl-2", "model": "scripted", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                self.wfile.write(("data: " + json.dumps(body) + "\n\n").encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            time.sleep(60)
        def log_message(self, *args):
            pass
    http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
    """#

    /// Accepts every chat request and never answers it: a server that hangs (stuck, or stopped). Other requests
    /// (the model list) get HTTP's 501.
    static let silentScript = #"""
    import http.server, sys, time
    port = int(sys.argv[1])
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            time.sleep(3600)
        def log_message(self, *args):
            pass
    http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
    """#

    /// Answers one chat request at a time, each `{"topic":"x"}` after `seconds`, and queues the others (in the
    /// listening socket's backlog) without a word, as a server with one slot does; a request whose client stopped
    /// waiting is dropped.
    static func oneAtATimeScript(seconds: Double) -> String {
        #"""
        import http.server, json, select, socket, sys, time
        port = int(sys.argv[1])
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                readable, _, _ = select.select([self.connection], [], [], 0)
                if readable and self.connection.recv(1, socket.MSG_PEEK) == b"":
                    return
                time.sleep(\#(seconds))
                payload = json.dumps({"id": "c", "model": "m", "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "{\"topic\":\"x\"}"}}]}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the client stopped waiting
            def log_message(self, *args):
                pass
        class Server(http.server.HTTPServer):
            request_queue_size = 64  # a queue, not refused connections
        Server(("127.0.0.1", port), Handler).serve_forever()
        """#
    }

    /// Answers every request with exactly `head` (status line and headers, with their blank line) and `body`,
    /// whatever they say: for answers no well-behaved server sends.
    static func rawAnswer(head: String, body: String) -> String {
        rawAnswer(head: head, bodyBytes: Data(body.utf8))
    }

    /// A server that answers every request with `head` and then `bodyBytes`, which need not be UTF-8.
    static func rawAnswer(head: String, bodyBytes: Data) -> String {
        let parts = [Data(head.utf8), bodyBytes].map { $0.base64EncodedString() }
        return """
        import base64, http.server, sys
        port = int(sys.argv[1])
        ANSWER = base64.b64decode("\(parts[0])") + base64.b64decode("\(parts[1])")
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.wfile.write(ANSWER)
                self.wfile.flush()
                self.close_connection = True
            def log_message(self, *args):
                pass
        http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
        """
    }

    /// A server that lists one model, `m`, and answers every chat request `{"topic":"x"}` under the model name
    /// `model-a` for its first answer and `model-b` after: a server restarted with another file during a job.
    /// Each request is logged, so a test can count them. With `modelListStatus`, the model list is answered with
    /// that status instead; with `laterStatus`, every chat request after the first is refused with it.
    static func swappingModelScript(modelListStatus: Int = 200, laterStatus: Int = 200) -> String {
        #"""
        import http.server, json, sys
        port, log_file = int(sys.argv[1]), sys.argv[2]
        class Handler(http.server.BaseHTTPRequestHandler):
            def answer(self, status, body):
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            def do_GET(self):
                if \#(modelListStatus) != 200:
                    self.answer(\#(modelListStatus), {"error": {"message": "backend down"}})
                else:
                    self.answer(200, {"object": "list", "data": [{"id": "m", "object": "model"}]})
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with open(log_file, "a") as log:
                    log.write("{}\n")
                first = sum(1 for _ in open(log_file)) == 1
                if not first and \#(laterStatus) != 200:
                    return self.answer(\#(laterStatus), {"error": {"message": "Forbidden by policy"}})
                self.answer(200, {"id": "c", "object": "chat.completion", "model": "model-a" if first else "model-b",
                                  "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"topic\":\"x\"}"},
                                               "finish_reason": "stop"}]})
            def log_message(self, *args):
                pass
        http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
        """#
    }

    /// An event stream of `events` (each a JSON chunk) and `[DONE]`, with its `Content-Length`.
    static func eventStreamAnswer(_ events: [String]) -> String {
        let body = events.map { "data: \($0)\n\n" }.joined() + "data: [DONE]\n\n"
        return rawAnswer(head: "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: \(body.utf8.count)\r\n\r\n", body: body)
    }

    /// Starts `script` (by default the tool-call script) on a free port.
    init(script: String = ScriptedChatServer.script) async throws {
        port = try LlamaServer.freePort()
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("scripted-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, "\(port)", logFile.path]
        try process.run()
        try await BusyServer.waitForPort(port)
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: logFile)
    }
}
