import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Our own `fm serve`, started on a free loopback port (port 0, read back from its "listening on" line) for one
/// test, with the model `make test` chooses (FM_MODEL=tiny), and stopped when the test ends.
final class FMServe: Sendable {
    let process: Process
    let port: Int

    /// The server's base URL.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    /// Runs `body` against a server started with `arguments`, then stops it.
    static func with<Result>(
        arguments: [String] = [], environment: [String: String] = [:], _ body: (FMServe) async throws -> Result
    ) async throws -> Result {
        let server = try await start(arguments: arguments, environment: environment)
        defer { server.stop() }
        return try await body(server)
    }

    static func start(arguments: [String] = [], environment: [String: String] = [:]) async throws -> FMServe {
        let process = Process()
        process.executableURL = TagCommandTests.fm
        process.arguments = ["serve", "--port", "0"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line says where it listens; reading blocks, so it runs off the cooperative pool.
        let line = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes: [UInt8] = []
                while let chunk = try? output.fileHandleForReading.read(upToCount: 1), let byte = chunk.first, byte != 10 {
                    bytes.append(byte)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
        guard let port = line.split(separator: ":").last.flatMap({ Int($0) }), line.hasPrefix("listening on ") else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            Issue.record("fm serve did not start: \(line)")
            throw CancellationError()
        }
        return FMServe(process: process, port: port)
    }

    /// Stops the server with SIGKILL if it is still running.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// A request's status, headers and body.
    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        /// The body as a JSON object.
        var json: [String: Any] {
            get throws { try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any], "not a JSON object: \(text)") }
        }

        /// The body as text.
        var text: String { String(decoding: body, as: UTF8.self) }

        /// The `data:` payloads of a server-sent event stream.
        var events: [String] {
            text.components(separatedBy: "\n").filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }
        }

        /// The `error` object of an OpenAI error body.
        var error: [String: Any] {
            get throws { try #require(try json["error"] as? [String: Any], "no error object: \(text)") }
        }
    }

    /// The value of the unlabelled metric `name` in `/metrics`, or `nil` when it is not there.
    func metric(_ name: String) async throws -> Int? {
        try await request("metrics").text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
            .flatMap { Int($0.dropFirst(name.count + 1)) }
    }

    /// The metric `name` once `/metrics` shows it, asked every 50 ms for up to `seconds`; `nil` if it never does.
    /// A request is counted once its response is written off, a moment after its client has read the last byte.
    func metric(_ name: String, appearingWithin seconds: Int) async throws -> Int? {
        for _ in 0..<(seconds * 20) {
            if let value = try await metric(name) { return value }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Waits up to 30 s until `fm_requests_running` is `count`; whether it got there.
    func waitUntilRunning(_ count: Int) async throws -> Bool {
        for _ in 0..<600 {
            if try await metric("fm_requests_running") == count { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Sends `body` (JSON text) to `path` with POST, or GETs `path` when `body` is nil.
    func request(_ path: String, body: String? = nil, headers: [String: String] = [:], method: String? = nil) async throws -> Reply {
        try await Self.request(url.appendingPathComponent(path), body: body.map { Data($0.utf8) }, headers: headers, method: method)
    }

    static func request(_ url: URL, body: Data?, headers: [String: String] = [:], method: String? = nil) async throws -> Reply {
        // As written, with a trailing slash and percent escapes (`URL.path` drops the one and decodes the others).
        let path = url.path(percentEncoded: true) + (url.query.map { "?" + $0 } ?? "")
        return try await LoopbackHTTPClient.send(port: try #require(url.port), path: path, body: body, headers: headers, method: method)
    }
}
