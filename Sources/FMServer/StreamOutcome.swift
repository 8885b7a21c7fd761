import Synchronization

/// The status a streamed response ended with, when it differs from the 200 its status line said.
///
/// A stream that fails after its first bytes (a generation past `--timeout`, say) reports the error inside the
/// stream, as OpenAI does, so the middleware would count it as the 200 it began as. The body tells this box
/// instead, and the request is counted under the error's status, as a client that hangs up halfway is counted 499.
final class StreamOutcome: Sendable {
    private let status = Mutex<Int?>(nil)

    /// The box of the response whose body is being written in this task; `nil` outside the middleware.
    @TaskLocal static var current: StreamOutcome?

    /// Records that the stream ended with an error of `status`.
    func fail(status code: Int) {
        status.withLock { $0 = code }
    }

    /// The error status the stream ended with, if any.
    var failedStatus: Int? { status.withLock { $0 } }
}
