package import Foundation
#if canImport(FoundationNetworking)
package import FoundationNetworking
#endif

/// What an HTTP response delivers, in order: its head once, then its body in pieces.
package enum HTTPStreamEvent: Sendable {
    case head(HTTPURLResponse)
    case body(Data)
}

/// Starts `request` on the transport its scheme calls for and hands its response over as it arrives: plain
/// `http` through ``PlainHTTPStream``, since URLSession keeps a core busy while it waits, and `https` through
/// ``HTTPStreamingTask``.
func startHTTPRequest(_ request: URLRequest, requestTimeout: TimeInterval, resourceTimeout: TimeInterval)
    -> AsyncThrowingStream<HTTPStreamEvent, any Error>
{
    // Schemes are case-insensitive (RFC 3986): `HTTP://` is plain HTTP too.
    request.url?.scheme?.lowercased() == "http"
        ? PlainHTTPStream.start(request, requestTimeout: requestTimeout, resourceTimeout: resourceTimeout)
        : HTTPStreamingTask.start(request, requestTimeout: requestTimeout, resourceTimeout: resourceTimeout)
}

/// Runs one HTTP request and hands its response over as it arrives.
///
/// corelibs Foundation has no `URLSession.bytes(for:)`, so a data delegate feeds an `AsyncThrowingStream`. The
/// delegate runs on the session's own operation queue, never on Swift's cooperative pool. Ending the stream —
/// the reader is done, or its task is cancelled — cancels the request, which closes the connection.
enum HTTPStreamingTask {
    /// Starts `request`; the stream ends when the response does, or throws the `URLError` that stopped it.
    static func start(_ request: URLRequest, requestTimeout: TimeInterval, resourceTimeout: TimeInterval)
        -> AsyncThrowingStream<HTTPStreamEvent, any Error>
    {
        let (stream, continuation) = AsyncThrowingStream<HTTPStreamEvent, any Error>.makeStream()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = requestTimeout
        configuration.timeoutIntervalForResource = resourceTimeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1  // events must reach the stream in order
        let delegate = Delegate(continuation: continuation)
        // One session per request: a session keeps its delegate until invalidated, and this one serves one stream.
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        let task = session.dataTask(with: request)
        continuation.onTermination = { _ in
            task.cancel()
            session.finishTasksAndInvalidate()
        }
        task.resume()
        return stream
    }

    private final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        let continuation: AsyncThrowingStream<HTTPStreamEvent, any Error>.Continuation

        init(continuation: AsyncThrowingStream<HTTPStreamEvent, any Error>.Continuation) {
            self.continuation = continuation
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            if let response = response as? HTTPURLResponse {
                continuation.yield(.head(response))
                completionHandler(.allow)
            } else {
                continuation.finish(throwing: ChatCompletionsError.invalidResponse("The response is not HTTP."))
                completionHandler(.cancel)
            }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            continuation.yield(.body(data))
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            continuation.finish(throwing: error)
        }
    }
}
