import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` as the request's head arrives.
///
/// A client that asks first waits for it before sending its body: curl asks for every body over 1 MiB and gives
/// up waiting only after a second, and others wait until their own timeout. A body the server then refuses (too
/// large) is read through before the refusal, as any other is.
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(var head) = unwrapInboundIn(data), let expectation = head.headerFields[.expect] {
            if expectation.lowercased() == "100-continue" {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
            // Answered here; the routes never see it.
            head.headerFields[.expect] = nil
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        context.fireChannelRead(data)
    }
}
