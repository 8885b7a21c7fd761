import Hummingbird
import NIOCore

/// The request context of `fm serve`: Hummingbird's basics and the request's connection, which the server ends
/// itself after the routes that watch for their client hanging up.
struct ServerRequestContext: RequestContext {
    /// Hummingbird's part of the context.
    var coreContext: CoreRequestContextStorage
    /// The connection the request came on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
