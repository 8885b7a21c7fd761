import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FoundationModels
#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 client for loopback servers, each request on a thread of its own.
///
/// The tests use it instead of URLSession: corelibs Foundation's URLSession keeps a core busy while it waits for
/// a slow response, and on a 2-core machine that starves the very server under test (a 400-token answer took
/// minutes instead of seconds).
enum LoopbackHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends one request (`method`, else `POST` with `body` and `GET` without) and reads the whole response.
    static func send(port: Int, path: String, body: Data?, headers: [String: String], method: String? = nil) async throws
        -> FMServe.Reply {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result {
                    try exchange(port: port, path: path, body: body, headers: headers, method: method ?? (body == nil ? "GET" : "POST"))
                })
            }
            thread.start()
        }
    }

    /// A request sent and not read, whose client hangs up when told.
    struct OpenRequest {
        fileprivate let socket: Int32

        /// Closes the connection without reading the response.
        func hangUp() { Glibc.close(socket) }

        /// Reads until `text` has arrived (or the connection ends, or 120 s pass); whether it arrived.
        func read(until text: String) -> Bool {
            var timeout = timeval(tv_sec: 120, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4_096)
            while !String(decoding: received, as: UTF8.self).contains(text) {
                let count = recv(socket, &chunk, chunk.count, 0)
                if count <= 0 { return false }
                received.append(contentsOf: chunk[0..<count])
            }
            return true
        }
    }

    /// Sends one POST request and leaves the response unread, so a test can hang up while the server works on it.
    static func open(port: Int, path: String, body: Data) throws -> OpenRequest {
        OpenRequest(socket: try connectAndSend(port: port, path: path, body: body, headers: [:], method: "POST"))
    }

    private static func exchange(port: Int, path: String, body: Data?, headers: [String: String], method: String) throws
        -> FMServe.Reply {
        let socket = try connectAndSend(port: port, path: path, body: body, headers: headers, method: method)
        defer { Glibc.close(socket) }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &chunk, chunk.count, 0)
            if count <= 0 { break }
            response.append(contentsOf: chunk[0..<count])
        }
        return try parse(response)
    }

    /// Sends a POST whose head promises `declaredLength` body bytes, then only `sent`, and waits up to `limit` for
    /// the server to end the connection. Returns whether it did.
    static func stall(port: Int, path: String, sent: Data, declaredLength: Int, limit: Duration) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result {
                    let socket = try connect(port: port)
                    defer { Glibc.close(socket) }
                    var request = Data("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(declaredLength)\r\n\r\n".utf8)
                    request.append(sent)
                    _ = request.withUnsafeBytes { Glibc.send(socket, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
                    var timeout = timeval(tv_sec: Int(limit.components.seconds), tv_usec: 0)
                    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    var chunk = [UInt8](repeating: 0, count: 4_096)
                    // Whatever the server says first (a 408, say), the connection must end; a timeout means it did not.
                    while true {
                        let count = recv(socket, &chunk, chunk.count, 0)
                        if count == 0 { return true }
                        if count < 0 { return errno == ECONNRESET }
                    }
                })
            }
            thread.start()
        }
    }

    /// What a raw exchange received, and whether the server ended the connection within the limit.
    struct RawExchange {
        var received: String
        /// Whether the whole of what was sent went out within the limit.
        var sentAll: Bool
        var closed: Bool

        /// The number of HTTP responses received.
        var responses: Int { received.components(separatedBy: "HTTP/1.1 ").count - 1 }
    }

    /// Sends `bytes` as they are — a request, or several pipelined — wholly before reading, as clients that write
    /// their body first do, then reads until the server ends the connection or `limit` passes.
    static func raw(port: Int, _ bytes: Data, limit: Duration) async throws -> RawExchange {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result {
                    let socket = try connect(port: port)
                    defer { Glibc.close(socket) }
                    var timeout = timeval(tv_sec: Int(limit.components.seconds), tv_usec: 0)
                    setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    let sentAll = send(bytes, on: socket)
                    var received: [UInt8] = []
                    var chunk = [UInt8](repeating: 0, count: 65_536)
                    while true {
                        let count = recv(socket, &chunk, chunk.count, 0)
                        if count == 0 { return RawExchange(received: String(decoding: received, as: UTF8.self), sentAll: sentAll, closed: true) }
                        if count < 0 {
                            return RawExchange(received: String(decoding: received, as: UTF8.self), sentAll: sentAll, closed: errno == ECONNRESET)
                        }
                        received.append(contentsOf: chunk[0..<count])
                    }
                })
            }
            thread.start()
        }
    }

    /// A POST request's bytes, without `Connection: close`.
    static func post(port: Int, path: String, body: Data, headers: String = "") -> Data {
        var request = Data("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\(headers)\r\n".utf8)
        request.append(body)
        return request
    }

    /// A socket connected to the loopback port.
    private static func connect(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw Failure(description: "cannot connect to 127.0.0.1:\(port)")
        }
        return socket
    }

    /// A connected socket with the request sent on it.
    private static func connectAndSend(port: Int, path: String, body: Data?, headers: [String: String], method: String) throws -> Int32 {
        let socket = try connect(port: port)

        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        var request = Data((head + "\r\n").utf8)
        if let body { request.append(body) }
        // The server may answer and close before reading a body it refuses (413): read what it said.
        _ = send(request, on: socket)
        return socket
    }

    /// Sends all of `bytes`; whether they all went out before the connection ended (or a send timed out).
    private static func send(_ bytes: Data, on socket: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = Glibc.send(socket, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// The reply in `bytes`, read with the remote client's own response parser.
    private static func parse(_ bytes: [UInt8]) throws -> FMServe.Reply {
        var reader = ResponseReader()
        var reply = FMServe.Reply(status: 0, headers: [:], body: Data())
        for event in try reader.feed(bytes, url: URL(string: "http://127.0.0.1/")!) {
            switch event {
            case .head(let head):
                reply.status = head.statusCode
                for (name, value) in head.allHeaderFields { reply.headers["\(name)".lowercased()] = "\(value)" }
            case .body(let data):
                reply.body.append(data)
            }
        }
        guard reply.status != 0 else { throw Failure(description: "no HTTP response head in \(bytes.count) bytes") }
        return reply
    }
}
