import FoundationModels
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Gives the answer to bytes that are not an HTTP/1.x request (a malformed head, two `Content-Length`s, an
/// unknown method, headers past the size limit, an HTTP/2 preface) the server's JSON error body.
///
/// Hummingbird answers a parse error with an empty-bodied 400 and closes the connection, which a client reading
/// OpenAI's error object cannot parse. The error still travels on down the pipeline, so a route reading a request
/// learns that its connection broke; only that empty answer, written once no exchange is open, is replaced.
final class MalformedRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Where the refusal is counted: the router never sees the request, so the middleware that counts the rest
    /// does not either.
    private let metrics: ServerMetrics
    /// Requests whose head has arrived and whose response has not ended.
    private var exchangesOpen = 0
    /// The parse error the connection met, once it has.
    private var parserError: HTTPParserError?

    /// A handler for one connection, counting its refusals in `metrics`.
    init(metrics: ServerMetrics) {
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { exchangesOpen += 1 }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError { parserError = error }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .head(let head) = part, let parserError, exchangesOpen == 0, head.status == .badRequest,
           head.headerFields[.contentLength] == "0" {
            let apiError = Self.apiError(for: parserError)
            let body = ByteBuffer(string: apiError.json.compactJSONString)
            var answer = HTTPResponse(status: apiError.status, headerFields: head.headerFields)
            answer.headerFields[.contentType] = "application/json"
            answer.headerFields[.contentLength] = String(body.readableBytes)
            context.write(wrapOutboundOut(.head(answer)), promise: promise)
            context.write(wrapOutboundOut(.body(body)), promise: nil)
            // Under `other`, as a path no route serves; the parser answers at once, so its latency counts as zero.
            metrics.recordRequest(route: "other", status: Int(apiError.status.code), seconds: 0)
            return
        }
        if case .end = part { exchangesOpen = max(0, exchangesOpen - 1) }
        context.write(data, promise: promise)
    }

    /// The error a request that could not be parsed gets: 431 for headers past the limit, else 400.
    static func apiError(for error: HTTPParserError) -> APIError {
        switch error {
        case .headerOverflow:
            APIError(.init(code: 431, reasonPhrase: "Request Header Fields Too Large"), code: "headers_too_large",
                     "The request's headers are larger than the server accepts.")
        case .paused:
            // What NIO's parser reports for an HTTP/2 connection preface (`PRI * HTTP/2.0`).
            APIError(.badRequest, code: "invalid_http", "The request is not HTTP/1.0 or 1.1, the versions this server speaks.")
        default:
            APIError(.badRequest, code: "invalid_http", "The request is not valid HTTP: \(error).")
        }
    }
}
