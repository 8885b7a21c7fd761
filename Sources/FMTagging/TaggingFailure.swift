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

    /// The code of a record that no `--endpoint` server could be reached for: a failure of the job too.
    public static let serverUnreachable = "server-unreachable"

    /// The code of a record whose `--endpoint` servers all turned it away (429, or 503 while one loads a model) after
    /// their retries, even with the job sending them fewer requests at once: a failure of the job, which goes on
    /// once a server has room. (One busy server hands the text to the next server of a fleet.)
    public static let serverBusy = "server-busy"

    /// The code of a record whose `--endpoint` server refused the job's requests themselves: the key (401, 403)
    /// or the model name or route (404), before it answered any text of the job. Every text would be refused
    /// alike, so the next server of a fleet takes the text, and when none does the job stops. (A refusal after
    /// the server has answered texts is about the one text, a `server-error` line.)
    public static let serverRefused = "server-refused"

    /// The code of a record whose configuration asks for what its engine cannot do (``TaggingConfiguration/unsupportedVotes``):
    /// a failure of the job.
    public static let unsupportedConfiguration = "unsupported-configuration"

    /// Whether every record would fail alike, so a job stops rather than writing this failure as the record's
    /// finished line (which a resume would keep).
    public var stopsJob: Bool {
        [Self.modelUnavailable, Self.serverUnreachable, Self.serverBusy, Self.serverRefused, Self.unsupportedConfiguration].contains(code)
    }

    /// Whether the next server of a fleet should take the text instead: this one could not be reached, turned
    /// the text away for now, or refuses the job's requests.
    public var passesToNextServer: Bool { [Self.serverUnreachable, Self.serverBusy, Self.serverRefused].contains(code) }

    /// The code and message.
    public var description: String { "\(code): \(message)" }
}
