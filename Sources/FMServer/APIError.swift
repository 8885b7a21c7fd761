import FoundationModels
public import HTTPTypes
import Hummingbird

/// A request the server refuses or cannot finish, answered in OpenAI's error shape:
/// `{"error": {"message", "type", "param", "code"}}` with a 4xx or 5xx status.
public struct APIError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// OpenAI's error type: `invalid_request_error`, `authentication_error`, `rate_limit_error`, `server_error`…
    public var type: String
    /// A machine-readable code, such as `model_not_found` or `context_length_exceeded`.
    public var code: String?
    /// The request field at fault, such as `messages[2].role`.
    public var param: String?
    /// What went wrong, for a person.
    public var message: String

    /// Creates an error.
    public init(_ status: HTTPResponse.Status, type: String = "invalid_request_error", code: String? = nil, param: String? = nil, _ message: String) {
        self.status = status
        self.type = type
        self.code = code
        self.param = param
        self.message = message
    }

    /// A 400 about one request field.
    static func invalid(_ param: String, _ message: String, code: String? = nil) -> APIError {
        APIError(.badRequest, code: code, param: param, message)
    }

    /// The error's JSON object (the `error` member of a response body, or of a stream event).
    var json: GeneratedContent {
        .object([
            ("error", .object([
                ("message", .text(message)),
                ("type", .text(type)),
                ("param", param.map(GeneratedContent.text) ?? .null),
                ("code", code.map(GeneratedContent.text) ?? .null),
            ])),
        ])
    }

    /// The error as an HTTP response.
    var response: Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if status == .tooManyRequests || status == .serviceUnavailable { headers[.retryAfter] = "1" }
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json.compactJSONString)))
    }

    /// `type: message`.
    public var description: String { "\(type): \(message)" }
}
