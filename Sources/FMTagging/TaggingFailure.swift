/// Why one record has no result: a machine-readable code and a message, written as the record's `error` object.
public struct TaggingFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error code, e.g. `malformed-json`, `empty-text`, `invalid-id`, `invalid-utf8`, `context-overflow`, `generation-failed`.
    public var code: String
    /// What went wrong.
    public var message: String

    /// Creates a failure.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The code of a record whose model could not be loaded: a failure of the job, not of the record.
    public static let modelUnavailable = "model-unavailable"

    /// The code and message.
    public var description: String { "\(code): \(message)" }
}
