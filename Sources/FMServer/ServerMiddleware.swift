import Foundation
import HTTPTypes
import Hummingbird

/// The routes counted under their own name; anything else is `other`.
private let countedRoutes: Set<String> = ["/v1/chat/completions", "/v1/models", "/health", "/metrics", "/v1/tag"]

/// Checks the API key, answers every failure in OpenAI's JSON error shape, and counts requests.
struct ServerMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics
    let apiKey: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let route = countedRoutes.contains(request.uri.path) ? request.uri.path : "other"
        var response: Response
        do {
            try authorize(request)
            response = try await next(request, context)
        } catch {
            response = Self.apiError(for: error).response
        }
        let status = response.status.code
        let metrics = metrics
        // Counted once the last byte is written, so a streamed answer's time is all of it.
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer {
                let elapsed = ContinuousClock.now - start
                metrics.recordRequest(route: route, status: status, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
            try await body.write(writer)
        }
        return response
    }

    private func authorize(_ request: Request) throws(APIError) {
        guard let apiKey, request.uri.path != "/health" else { return }
        guard request.headers[.authorization] == "Bearer \(apiKey)" else {
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
