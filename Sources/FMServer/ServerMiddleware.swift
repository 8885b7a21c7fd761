import Foundation
import HTTPTypes
import Hummingbird

/// The method each route answers. The routes are counted under their own name and anything else as `other`; a
/// route asked with another method is answered 405 with `Allow`, not 404, since the path is right.
private let routeMethods: [String: HTTPRequest.Method] = [
    "/v1/chat/completions": .post, "/v1/tag": .post, "/v1/models": .get, "/v1/models/{model}": .get, "/health": .get,
    "/metrics": .get,
]

/// The route `path` belongs to (`/v1/models/tiny` is `/v1/models/{model}`), or `nil` for no route.
private func route(of path: String) -> String? {
    // The router finds `/v1/chat/completions/` and `//v1/chat/completions` too, so they are the same route here
    // (counted under it, and given its `Connection: close`).
    let path = "/" + path.split(separator: "/").joined(separator: "/")
    if routeMethods[path] != nil { return path }
    let model = path.dropFirst("/v1/models/".count)
    return path.hasPrefix("/v1/models/") && !model.isEmpty && !model.contains("/") ? "/v1/models/{model}" : nil
}

/// Checks the API key, answers every failure in OpenAI's JSON error shape, and counts requests.
struct ServerMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let metrics: ServerMetrics
    let apiKey: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let route = route(of: request.uri.path) ?? "other"
        var response: Response
        var hungUp = false
        do {
            try authorize(request)
            response = try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            if let method = routeMethods[route], method != request.method {
                let allowed = method == .get ? "GET, HEAD" : method.rawValue
                response = APIError(.methodNotAllowed, code: "method_not_allowed",
                                    "\(request.uri.path) takes \(allowed) requests, not \(request.method.rawValue).").response
                response.headers[.allow] = allowed
            } else {
                response = Self.apiError(for: error).response
            }
        } catch {
            let apiError = Self.apiError(for: error)
            response = apiError.response
            // The server cancels a request only when its client hangs up (a timeout is a 504): counted as nginx's
            // 499, "client closed request", so a dashboard of 5xx answers does not count clients that gave up.
            hungUp = apiError.code == "cancelled"
        }
        // Chat completions and tag jobs watch for the client hanging up, which ends the connection after the
        // response: the response says so, or a client could send its next request on a connection about to close.
        let closes = route == "/v1/chat/completions" || route == "/v1/tag"
        if closes { response.headers[.connection] = "close" }
        let channel = context.channel
        let status = hungUp ? 499 : response.status.code
        let metrics = metrics
        // Counted once the last byte is written, so a streamed answer's time is all of it.
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            var written = status
            let outcome = StreamOutcome()
            defer {
                // The watch may have read the head of a request sent after this one, which would then wait for
                // ever, holding the connection (and a shutdown) open. Ending the connection's input lets the server
                // close it once the response is out; a request still sending its body (one refused before it was
                // read whole) is read to its end first.
                if closes { channel.close(mode: .input, promise: nil) }
                if written == status, let failed = outcome.failedStatus { written = failed }
                let elapsed = ContinuousClock.now - start
                metrics.recordRequest(route: route, status: written, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
            do {
                try await StreamOutcome.$current.withValue(outcome) { try await body.write(writer) }
            } catch {
                // A body that could not be written whole (a stream whose client hung up halfway) did not reach its
                // client: counted as the client's doing, like a hang-up before the status line.
                written = 499
                throw error
            }
        }
        return response
    }

    private func authorize(_ request: Request) throws(APIError) {
        guard let apiKey, route(of: request.uri.path) != "/health" else { return }
        guard let credentials = request.headers[.authorization], BearerCredentials.match(credentials, key: apiKey) else {
            throw APIError(.unauthorized, type: "authentication_error", code: "invalid_api_key",
                           "Give the server's API key as 'Authorization: Bearer <key>'.")
        }
    }

    private static func apiError(for error: any Error) -> APIError {
        if let error = error as? APIError { return error }
        if let error = error as? any HTTPResponseError {
            let message = (error as? HTTPError)?.body ?? (error.status == .notFound ? "No such route." : error.status.reasonPhrase)
            return APIError(error.status, type: error.status.code < 500 ? "invalid_request_error" : "server_error", message)
        }
        return ChatCompletionRun.apiError(for: error)
    }
}
