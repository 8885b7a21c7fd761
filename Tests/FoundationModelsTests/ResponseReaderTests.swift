import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import FoundationModels
import Testing

/// The plain-http client's response parser, fed the same response cut at every possible place.
@Suite struct ResponseReaderTests {
    static let url = URL(string: "http://127.0.0.1:8080/v1/chat/completions")!

    /// Feeds `response` in pieces that end at `cuts`, returning the status, the body and whether it completed.
    static func read(_ response: String, cuts: [Int]) throws -> (status: Int?, body: String, complete: Bool) {
        var reader = ResponseReader()
        let bytes = Array(response.utf8)
        var status: Int?
        var body = Data()
        var start = 0
        for end in (cuts + [bytes.count]).sorted() where end >= start {
            for event in try reader.feed(bytes[start..<end], url: url) {
                switch event {
                case .head(let head): status = head.statusCode
                case .body(let data): body.append(data)
                }
            }
            start = end
        }
        let complete = reader.isComplete || reader.finishAtEndOfStream()
        return (status, String(decoding: body, as: UTF8.self), complete)
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n7\r\ndata: {\r\n3;ext=1\r\n}\n\n\r\n0\r\n\r\n", "data: {}\n\n"),
        ("HTTP/1.1 400 Bad Request\r\nContent-Length: 11\r\n\r\n{\"error\":1}", "{\"error\":1}"),
        ("HTTP/1.0 200 OK\r\n\r\nuntil the end", "until the end"),
    ])
    func everyCutGivesTheSameBody(response: String, body: String) throws {
        let whole = try Self.read(response, cuts: [])
        #expect(whole.body == body)
        #expect(whole.complete)
        for cut in 1..<response.utf8.count {
            let pieces = try Self.read(response, cuts: [cut, min(cut + 3, response.utf8.count)])
            #expect(pieces.body == body, "cut at \(cut)")
            #expect(pieces.status == whole.status)
            #expect(pieces.complete)
        }
    }

    @Test func aBodyCutShortIsNotComplete() throws {
        let short = try Self.read("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nonly this", cuts: [])
        #expect(!short.complete)
        let chunked = try Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", cuts: [])
        #expect(!chunked.complete)
        #expect(chunked.body == "hel")
    }

    @Test func aMalformedChunkSizeIsAnError() {
        #expect(throws: URLError.self) { try Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nx\r\n", cuts: []) }
        #expect(throws: URLError.self) { try Self.read("SMTP ready\r\n\r\n", cuts: []) }
    }

    /// A length that counts nothing is refused rather than read: a negative one took a negative number of bytes
    /// off the buffer, which traps.
    @Test(arguments: ["-1", "-9223372036854775808", "ten", "1e3", "99999999999999999999"])
    func aContentLengthThatIsNoCountIsAnError(length: String) {
        #expect(throws: URLError.self) {
            try Self.read("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n{\"a\":1}", cuts: [])
        }
    }
}
