import HTTPTypes

/// When a request's time (`--timeout`) runs out, counted from its arrival: a request that waits for a turn spends
/// its time waiting, so a client is answered within the limit however long the queue.
struct RequestDeadline: Sendable {
    /// The server's limit for one request.
    let limit: Duration
    /// When the limit runs out.
    let instant: ContinuousClock.Instant

    /// The deadline of a request that arrived at `start`.
    init(limit: Duration, from start: ContinuousClock.Instant = .now) {
        self.limit = limit
        instant = start + limit
    }

    /// Whether the deadline has passed.
    var hasPassed: Bool { ContinuousClock.now >= instant }

    /// The 504 of a request past its deadline.
    var error: APIError {
        APIError(.gatewayTimeout, type: "timeout_error", code: "timeout",
                 "The request took longer than the server's limit of \(limit.components.seconds) s.")
    }
}
