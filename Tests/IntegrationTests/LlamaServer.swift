import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import FoundationModels
import Testing

/// llama.cpp's own `llama-server` (built by `make llama-server`), started on a free loopback port with the tiny
/// model for one test and killed when the test ends.
final class LlamaServer: Sendable {
    let process: Process
    let port: Int

    /// The server's base URL.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The installed binary: `scripts/install-llama-server.sh` puts it in the cache, next to our llama.cpp.
    static var binary: URL {
        SystemLanguageModel.cacheDirectory.appendingPathComponent("llama-server-0.3.36/bin/llama-server")
    }

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    /// Runs `body` against a server serving `SystemLanguageModel.defaultModelURL` (the tiny model under
    /// `make test`), then kills the server.
    static func with<Result>(
        arguments: [String] = [], _ body: (LlamaServer) async throws -> Result
    ) async throws -> Result {
        let server = try await start(arguments: arguments)
        defer { server.stop() }
        return try await body(server)
    }

    /// Starts a server on `port` (a free one if `nil`); `arguments` come last, so `-m FILE` there serves another model.
    static func start(arguments: [String] = [], port: Int? = nil) async throws -> LlamaServer {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            Issue.record("llama-server is not installed at \(binary.path). Run `make llama-server` (or `make test`).")
            throw CancellationError()
        }
        let port = try port ?? freePort()
        let process = Process()
        process.executableURL = binary
        process.arguments = [
            "-m", SystemLanguageModel.defaultModelURL.path, "--host", "127.0.0.1", "--port", "\(port)",
            "-c", "2048", "-np", "1", "-t", "\(max(1, ProcessInfo.processInfo.activeProcessorCount))",
            "--jinja", "--no-webui",
        ] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let server = LlamaServer(process: process, port: port)
        // /health answers 503 while the model loads and 200 once it can serve.
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            guard process.isRunning else { break }
            if let (_, response) = try? await URLSession.shared.data(from: server.url.appendingPathComponent("health")),
                (response as? HTTPURLResponse)?.statusCode == 200 {
                return server
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        server.stop()
        Issue.record("llama-server did not become healthy on port \(port).")
        throw CancellationError()
    }

    func stop() {
        // SIGKILL: llama-server may take seconds to wind down after SIGTERM, and nothing of its state matters.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// A loopback port nothing listens on now: bound to port 0 and closed.
    static func freePort() throws -> Int {
        let listener = try Listener()
        defer { listener.close() }
        return listener.port
    }
}

/// A loopback TCP socket that listens but never accepts: connections complete (the kernel's backlog), yet no
/// byte ever comes back — a server that hangs.
final class Listener: Sendable {
    let descriptor: Int32
    let port: Int

    struct Failure: Error {}

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            Glibc.close(fd)
            throw Failure()
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(descriptor) }
}
