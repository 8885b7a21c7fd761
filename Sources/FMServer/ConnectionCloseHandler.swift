import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Ends the connection after the answer to a request that does not keep it alive: any HTTP/1.0 request, and a
/// `Connection: close` in any spelling.
///
/// Hummingbird converts each request to version-free HTTP types before a handler of ours sees it, then closes the
/// connection only when the `Connection` header reads exactly `close`. Without this, an HTTP/1.0 client that reads
/// its answer until the connection ends waits for the idle timeout, and a streamed answer reaches it in chunks,
/// which HTTP/1.0 does not know. This handler sits before that conversion: it marks such a request
/// `Connection: close`, and answers an HTTP/1.0 request in HTTP/1.0, whose body without a length ends where the
/// connection does.
final class ConnectionCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// For each request whose final answer head is not written yet, oldest first: whether it was HTTP/1.0, and
    /// whether its connection ends with the answer.
    private var awaitingAnswers = CircularBuffer<(isHTTP10: Bool, closes: Bool)>()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let isHTTP10 = head.version.major == 0 || (head.version.major == 1 && head.version.minor == 0)
        // An HTTP/1.0 answer streamed without a length can only end with the connection, so even an HTTP/1.0
        // `keep-alive` is not honoured.
        let closes = isHTTP10 || !head.isKeepAlive
        awaitingAnswers.append((isHTTP10, closes))
        if closes { head.headers.replaceOrAdd(name: "connection", value: "close") }
        // An HTTP/1.0 client reads any answer as the final one, so its `Expect` gets no `100 Continue` (RFC 9110
        // §10.1.1: a server ignores the expectation of an HTTP/1.0 request).
        if isHTTP10 { head.headers.remove(name: "expect") }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // An informational head (`100 Continue`) comes before the request's final answer; `101` is final, as
        // NIO's encoder takes it.
        guard case .head(var head) = unwrapOutboundIn(data), head.status.code >= 200 || head.status.code == 101,
              let request = awaitingAnswers.popFirst() else {
            context.write(data, promise: promise)
            return
        }
        if request.isHTTP10 { head.version = .http1_0 }
        if request.closes { head.headers.replaceOrAdd(name: "connection", value: "close") }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }

    /// Puts a ``ConnectionCloseHandler`` before Hummingbird's HTTP/1 conversion, which its server's own
    /// handlers can only follow; in the pipeline itself it passes everything on untouched (NIO takes only
    /// handlers of one direction or both).
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        func handlerAdded(context: ChannelHandlerContext) {
            // Both steps fail only in a pipeline that is not Hummingbird's HTTP/1 one (the serve tests would
            // notice), and the connections there are served as before.
            let pipeline = context.pipeline.syncOperations
            guard let conversion = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) else { return }
            try? pipeline.addHandler(ConnectionCloseHandler(), position: .before(conversion))
        }
    }
}
