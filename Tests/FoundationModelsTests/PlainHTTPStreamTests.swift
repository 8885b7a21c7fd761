import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import FoundationModels
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The plain-http client's pure parts: the request head it writes, the waits it gives `poll`, and the limit on a
/// response head.
@Suite struct PlainHTTPStreamTests {
    static let url = URL(string: "http://127.0.0.1:8080/v1/chat/completions")!

    @Test func theRequestLineKeepsPercentEncodingAndAnIPv6HostIsBracketed() throws {
        var request = URLRequest(url: URL(string: "http://[::1]:8080/team%20a/v1/chat/completions?q=a%20b")!)
        request.httpMethod = "POST"
        let (address, port, head) = try PlainHTTPStream.requestHead(for: request, bodyLength: 2)
        #expect(address == "::1" && port == 8080)
        #expect(head.hasPrefix("POST /team%20a/v1/chat/completions?q=a%20b HTTP/1.1\r\nHost: [::1]:8080\r\n"), "\(head)")
        #expect(head.hasSuffix("Content-Length: 2\r\n\r\n"), "\(head)")
        let plain = try PlainHTTPStream.requestHead(for: URLRequest(url: URL(string: "http://127.0.0.1")!), bodyLength: 0)
        #expect(plain.address == "127.0.0.1" && plain.port == 80)
        #expect(plain.head.hasPrefix("GET / HTTP/1.1\r\nHost: 127.0.0.1:80\r\n"), "\(plain.head)")
    }

    @Test func timeoutsAreFiniteAndPositive() {
        #expect(PlainHTTPStream.pollable(.nan) == 0.001)
        #expect(PlainHTTPStream.pollable(-5) == 0.001)
        #expect(PlainHTTPStream.pollable(0) == 0.001)
        #expect(PlainHTTPStream.pollable(.infinity) == PlainHTTPStream.longestWait)
        #expect(PlainHTTPStream.pollable(30) == 30)
        let endpoint = URL(string: "http://127.0.0.1:8080")!
        let unusable = ChatCompletionsConfiguration(endpoint: endpoint, model: "m", requestTimeout: .nan, resourceTimeout: -1)
        #expect(unusable.requestTimeout == 60 && unusable.resourceTimeout == 600, "the defaults")
        let endless = ChatCompletionsConfiguration(endpoint: endpoint, model: "m", requestTimeout: .infinity)
        #expect(endless.requestTimeout == PlainHTTPStream.longestWait)
    }

    /// A host that never accepts the connection (firewalled, switched off) is unreachable, not a slow server:
    /// a fleet moves the text to another server, as it does for a refused connection.
    @Test func aHostThatNeverAcceptsIsUnreachable() async throws {
        // A listener with a backlog of none, filled by connections nobody accepts: later handshakes go unanswered.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        try #require(bound && listen(listener, 0) == 0)
        var fillers: [Int32] = []
        defer { fillers.forEach { close($0) } }
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            _ = fcntl(filler, F_SETFL, fcntl(filler, F_GETFL, 0) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) } }
            fillers.append(filler)
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let endpoint = URL(string: "http://127.0.0.1:\(port)/v1/chat/completions")!
        var thrown: (any Error)?
        do {
            for try await _ in PlainHTTPStream.start(URLRequest(url: endpoint), requestTimeout: 1, resourceTimeout: 5) {}
        } catch {
            thrown = error
        }
        let code = (thrown as? URLError)?.code
        #expect(code == .cannotConnectToHost, "\(String(describing: thrown))")
        let mapped = ChatCompletionsExecutor.mapped(try #require(thrown), endpoint: endpoint, timeout: 1)
        guard case ChatCompletionsError.unreachable? = mapped as? ChatCompletionsError else {
            Issue.record("\(mapped)")
            return
        }
    }

    @Test func aResponseHeadBeyondTheLimitIsAnError() throws {
        var reader = ResponseReader()
        #expect(try reader.feed(Array("HTTP/1.1 200 OK\r\n".utf8), url: Self.url).isEmpty)
        let header = Array("X-Padding: \(String(repeating: "a", count: 1_000))\r\n".utf8)
        #expect(throws: URLError.self) {
            for _ in 0..<(ResponseReader.maximumHeadSize / header.count + 1) { _ = try reader.feed(header, url: Self.url) }
        }
    }

    /// The search for the end of the head resumes where it stopped, a blank line split across reads included.
    @Test func aLongHeadInSmallPiecesIsReadOnce() throws {
        let response = "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Padding: aaaaaaaaaa\r\n", count: 2_000) + "Content-Length: 2\r\n\r\nok"
        let bytes = Array(response.utf8)
        var reader = ResponseReader()
        var status: Int?
        var body = Data()
        var start = 0
        while start < bytes.count {
            for event in try reader.feed(bytes[start..<min(start + 7, bytes.count)], url: Self.url) {
                switch event {
                case .head(let head): status = head.statusCode
                case .body(let data): body.append(data)
                }
            }
            start += 7
        }
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "ok")
        #expect(reader.isComplete)
    }
}
