package import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Runs one plain-`http` request over a socket of its own, on a thread of its own, handing the response over
/// as it arrives — the same events as ``HTTPStreamingTask``.
///
/// corelibs Foundation's URLSession keeps a core busy for as long as it waits for a response. Against a server
/// on the same machine (`fm serve`, llama-server) that core is taken from the server, which on 2 cores slows
/// generation many times over. Plain `http` therefore goes through this blocking client, which sleeps in
/// `poll` while it waits; `https` stays on URLSession.
enum PlainHTTPStream {
    /// Starts `request`; the stream ends when the response does, or throws a `URLError` (`timedOut`,
    /// `cannotFindHost`, `cannotConnectToHost`, `networkConnectionLost`, `cancelled`).
    static func start(_ request: URLRequest, requestTimeout: TimeInterval, resourceTimeout: TimeInterval)
        -> AsyncThrowingStream<HTTPStreamEvent, any Error>
    {
        let requestTimeout = pollable(requestTimeout)
        let resourceTimeout = pollable(resourceTimeout)
        let (stream, continuation) = AsyncThrowingStream<HTTPStreamEvent, any Error>.makeStream()
        let connection = Connection()
        continuation.onTermination = { _ in connection.cancel() }
        let thread = Thread {
            do {
                try exchange(request, connection: connection, requestTimeout: requestTimeout,
                             deadline: Date().addingTimeInterval(resourceTimeout), continuation: continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: connection.isCancelled ? URLError(.cancelled) : error)
            }
            connection.close()
        }
        thread.start()
        return stream
    }

    /// The socket, shared with the canceller: cancelling shuts it down, which wakes a blocked `poll`.
    private final class Connection: Sendable {
        private let state = Mutex<(descriptor: Int32?, cancelled: Bool)>((nil, false))

        var isCancelled: Bool { state.withLock { $0.cancelled } }

        func adopt(_ descriptor: Int32) throws {
            let cancelled = state.withLock { state -> Bool in
                if !state.cancelled { state.descriptor = descriptor }
                return state.cancelled
            }
            if cancelled {
                Glibc.close(descriptor)
                throw URLError(.cancelled)
            }
        }

        func cancel() {
            state.withLock { state in
                state.cancelled = true
                if let descriptor = state.descriptor { shutdown(descriptor, Int32(SHUT_RDWR)) }
            }
        }

        func close() {
            state.withLock { state in
                if let descriptor = state.descriptor { Glibc.close(descriptor) }
                state.descriptor = nil
            }
        }
    }

    /// The longest wait, in seconds, that `poll` can be given (its timeout is an `Int32` of milliseconds), with room
    /// to spare.
    static let longestWait: TimeInterval = 2_000_000

    /// `seconds` as a wait `poll` can take: finite and positive. NaN and values at or below zero become a
    /// millisecond (a prompt timeout, not a trap or an endless wait); larger values than ``longestWait`` become it.
    static func pollable(_ seconds: TimeInterval) -> TimeInterval {
        guard seconds > 0 else { return 0.001 }  // also NaN, which compares false
        return min(seconds, longestWait)
    }

    /// The address to connect to, its port, and the request's head (request line and headers, blank line
    /// included) for a body of `bodyLength` bytes.
    ///
    /// The request line keeps the URL's percent-encoding (`/team%20a/v1`), and an IPv6 literal host is bracketed
    /// in the `Host` header but not in the address.
    static func requestHead(for request: URLRequest, bodyLength: Int) throws -> (address: String, port: Int, head: String) {
        guard let url = request.url, let host = url.host, !host.isEmpty,
              let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { throw URLError(.badURL) }
        let port = url.port ?? 80
        // Foundation may or may not keep an IPv6 literal's brackets in `host`; getaddrinfo wants none.
        let address = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let hostField = address.contains(":") ? "[\(address)]" : address
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        var head = "\(request.httpMethod ?? "GET") \(path) HTTP/1.1\r\nHost: \(hostField):\(port)\r\nConnection: close\r\n"
        for (name, value) in request.allHTTPHeaderFields ?? [:] where name.lowercased() != "content-length" {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(bodyLength)\r\n\r\n"
        return (address, port, head)
    }

    private static func exchange(
        _ request: URLRequest, connection: Connection, requestTimeout: TimeInterval, deadline: Date,
        continuation: AsyncThrowingStream<HTTPStreamEvent, any Error>.Continuation
    ) throws {
        guard let url = request.url else { throw URLError(.badURL) }
        let body = request.httpBody ?? Data()
        let (address, port, head) = try requestHead(for: request, bodyLength: body.count)
        let socket = try connect(host: address, port: port, timeout: requestTimeout)
        try connection.adopt(socket)

        var bytes = Array(head.utf8)
        bytes.append(contentsOf: body)
        var offset = 0
        while offset < bytes.count {
            try wait(socket, for: Int16(POLLOUT), timeout: requestTimeout, deadline: deadline)
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw URLError(.networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: "the connection closed while sending"]) }
            offset += sent
        }

        var reader = ResponseReader()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            try wait(socket, for: Int16(POLLIN), timeout: requestTimeout, deadline: deadline)
            let count = recv(socket, &buffer, buffer.count, 0)
            if count < 0 { throw URLError(.networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: "the connection failed while reading"]) }
            if count == 0 {
                guard reader.finishAtEndOfStream() else {
                    throw URLError(.networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: "the connection closed before the response was complete"])
                }
                return
            }
            for event in try reader.feed(buffer[0..<count], url: url) { continuation.yield(event) }
            if reader.isComplete { return }
        }
    }

    /// Waits until `socket` is ready for `events`, at most `timeout` seconds and never past `deadline`.
    private static func wait(_ socket: Int32, for events: Int16, timeout: TimeInterval, deadline: Date) throws {
        let limit = min(timeout, deadline.timeIntervalSinceNow)
        guard limit > 0 else { throw URLError(.timedOut) }
        var descriptor = pollfd(fd: socket, events: events, revents: 0)
        let ready = poll(&descriptor, 1, milliseconds(limit))
        if ready == 0 { throw URLError(.timedOut) }
        if ready < 0 { throw URLError(.networkConnectionLost) }
    }

    /// `seconds` as `poll`'s timeout: rounded up, so a wait shorter than a millisecond still waits.
    private static func milliseconds(_ seconds: TimeInterval) -> Int32 {
        Int32(min((pollable(seconds) * 1_000).rounded(.up), Double(Int32.max)))
    }

    /// A connected TCP socket to `host`:`port` (IPv4 or IPv6), within `timeout` for all of the host's addresses.
    ///
    /// - Throws: `URLError(.cannotConnectToHost)` when no address accepts, also when the time is up first.
    private static func connect(host: String, port: Int, timeout: TimeInterval) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw URLError(.cannotFindHost, userInfo: [NSLocalizedDescriptionKey: "the host name \(host) does not resolve"])
        }
        defer { freeaddrinfo(list) }
        // One deadline for every address: a host with several unreachable addresses must not multiply the wait.
        let deadline = Date().addingTimeInterval(timeout)
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let socket = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard socket >= 0 else { continue }
            let flags = fcntl(socket, F_GETFL, 0)
            _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK)
            var result = Glibc.connect(socket, info.pointee.ai_addr, info.pointee.ai_addrlen)
            if result != 0, errno == EINPROGRESS {
                let remaining = deadline.timeIntervalSinceNow
                var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
                let ready = remaining > 0 ? poll(&descriptor, 1, milliseconds(remaining)) : 0
                if ready == 0 {
                    Glibc.close(socket)
                    // Unreachable, not slow: a host that never accepts (firewalled, switched off) is no server that
                    // is thinking, and a fleet moves the text to another server as it does for a refused connection.
                    throw URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey:
                        "\(host):\(port) did not accept a connection within \(Int(timeout.rounded(.up))) seconds"])
                }
                if ready == 1 {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length)
                    result = error == 0 ? 0 : -1
                }
            }
            if result == 0 { return socket }
            Glibc.close(socket)
        }
        throw URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: "nothing accepts connections on \(host):\(port)"])
    }
}

/// Parses an HTTP/1.1 response as its bytes arrive: the head, then a body framed by `Content-Length`, by
/// chunked transfer encoding, or by the end of the connection.
package struct ResponseReader {
    private enum Framing { case length(Int), chunked, untilClose }
    /// The largest response head read: a server sending more is not one this client talks to.
    package static let maximumHeadSize = 64 * 1_024
    private var pending: [UInt8] = []
    /// Where the search for the end of the head resumes: the bytes before it hold no blank line.
    private var scanned = 0
    private var framing: Framing?
    private var remainingInChunk = 0
    package private(set) var isComplete = false

    /// A reader waiting for a response's first byte.
    package init() {}

    /// The events that `bytes` completes.
    ///
    /// - Throws: `URLError(.cannotParseResponse)` for a malformed response, or a head longer than
    ///   ``maximumHeadSize``.
    package mutating func feed(_ bytes: some Collection<UInt8>, url: URL) throws -> [HTTPStreamEvent] {
        pending.append(contentsOf: bytes)
        var events: [HTTPStreamEvent] = []
        if framing == nil {
            guard let end = headEnd() else {
                if pending.count > Self.maximumHeadSize { throw URLError(.cannotParseResponse) }
                return []
            }
            guard end <= Self.maximumHeadSize else { throw URLError(.cannotParseResponse) }
            let (response, framing) = try Self.head(Array(pending[..<end]), url: url)
            self.framing = framing
            pending.removeFirst(end + 4)
            scanned = 0
            events.append(.head(response))
            if case .length(0) = framing { isComplete = true }
        }
        switch framing {
        case .length(let remaining)?:
            let take = min(remaining, pending.count)
            if take > 0 { events.append(.body(Data(pending[..<take]))) }
            pending.removeFirst(take)
            framing = .length(remaining - take)
            if remaining - take == 0 { isComplete = true }
        case .untilClose?:
            if !pending.isEmpty { events.append(.body(Data(pending))) }
            pending.removeAll()
        case .chunked?:
            events += try dechunk()
        case nil:
            break
        }
        return events
    }

    /// Whether the body was complete when the connection closed.
    package mutating func finishAtEndOfStream() -> Bool {
        if case .untilClose? = framing { isComplete = true }
        return isComplete
    }

    private mutating func dechunk() throws -> [HTTPStreamEvent] {
        var events: [HTTPStreamEvent] = []
        while !isComplete {
            if remainingInChunk > 0 {
                let take = min(remainingInChunk, pending.count)
                guard take > 0 else { break }
                events.append(.body(Data(pending[..<take])))
                pending.removeFirst(take)
                remainingInChunk -= take
                continue
            }
            // A chunk's trailing CRLF, then the next size line.
            if pending.starts(with: [13, 10]) { pending.removeFirst(2) }
            guard let lineEnd = Self.lineEnd(in: pending) else { break }
            let text = String(decoding: pending[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(text.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw URLError(.cannotParseResponse)
            }
            pending.removeFirst(lineEnd + 2)
            if size == 0 { isComplete = true } else { remainingInChunk = size }
        }
        return events
    }

    /// Where the head's closing CR LF CR LF starts, searching only bytes not searched before.
    private mutating func headEnd() -> Int? {
        var index = scanned
        while index + 4 <= pending.count {
            if pending[index] == 13, pending[index + 1] == 10, pending[index + 2] == 13, pending[index + 3] == 10 { return index }
            index += 1
        }
        // The last three bytes may start a blank line that the next read completes.
        scanned = index
        return nil
    }

    private static func lineEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        return (0...(bytes.count - 2)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 }
    }

    private static func head(_ bytes: [UInt8], url: URL) throws -> (HTTPURLResponse, Framing) {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else { throw URLError(.cannotParseResponse) }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: String(parts[0]), headerFields: headers) else {
            throw URLError(.cannotParseResponse)
        }
        let lowered = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        let framing: Framing
        if lowered["transfer-encoding"]?.lowercased().contains("chunked") == true {
            framing = .chunked
        } else if let field = lowered["content-length"] {
            // A length that is no count (negative, not a number) cannot frame the body.
            guard let length = Int(field), length >= 0 else { throw URLError(.cannotParseResponse) }
            framing = .length(length)
        } else {
            framing = (status == 204 || status == 304) ? .length(0) : .untilClose
        }
        return (response, framing)
    }
}
