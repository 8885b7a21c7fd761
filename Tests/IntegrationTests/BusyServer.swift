import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real HTTP server (Python's `http.server`) on a free loopback port that turns every chat request away with
/// a fixed status, a `Retry-After` of 0 and an OpenAI error body, and counts them — for the retry tests, where no
/// model is involved.
final class BusyServer: Sendable {
    let process: Process
    let port: Int
    let countFile: URL

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The chat requests received so far.
    var requestCount: Int {
        Int((try? String(contentsOf: countFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
    }

    static let script = #"""
    import http.server, json, sys
    port, status, count_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    count = 0
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            global count
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            count += 1
            open(count_file, "w").write(str(count))
            body = json.dumps({"error": {"message": "busy, try later", "type": "unavailable_error"}}).encode()
            self.send_response(status)
            self.send_header("Retry-After", "0")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        def log_message(self, *args):
            pass
    http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
    """#

    init(status: Int) async throws {
        port = try LlamaServer.freePort()
        countFile = FileManager.default.temporaryDirectory.appendingPathComponent("busy-\(UUID().uuidString)")
        try "0".write(to: countFile, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, "\(port)", "\(status)", countFile.path]
        try process.run()
        try await Self.waitForPort(port)
    }

    /// Returns once a server accepts connections on the loopback `port` (at most 5 seconds).
    static func waitForPort(_ port: Int) async throws {
        for _ in 0..<100 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: countFile)
    }
}
