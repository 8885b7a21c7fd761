import HTTPTypes
import Synchronization

/// Bounds the work in flight: answers of up to `active` sequences are generated at once, up to `queued` more
/// requests wait in arrival order, and any request beyond that is turned away at once (the server answers 429)
/// instead of piling up.
///
/// A request weighs the sequences it decodes at once (a chat completion's `n`, a tag request's parallel texts),
/// capped at `active` so that every request can run alone. Waiters are admitted strictly in order, so a heavy
/// request at the head of the queue is not passed over for ever by light ones behind it.
final class AdmissionGate: Sendable {
    private struct Waiter {
        let id: Int
        let weight: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        /// Sequences held by running requests.
        var held = 0
        /// Requests running.
        var running = 0
        var waiting: [Waiter] = []
        var nextID = 0

        /// Admits waiters from the head of the queue while they fit, and returns them to be resumed.
        mutating func admitWaiters(active: Int) -> [CheckedContinuation<Void, any Error>] {
            var admitted: [CheckedContinuation<Void, any Error>] = []
            while let first = waiting.first, held + first.weight <= active {
                waiting.removeFirst()
                held += first.weight
                running += 1
                admitted.append(first.continuation)
            }
            return admitted
        }
    }

    /// Sequences that may be decoded at once.
    let active: Int
    /// Requests that may wait for a turn.
    let queued: Int
    private let state = Mutex(State())

    /// Creates a gate.
    init(active: Int, queued: Int) {
        self.active = max(1, active)
        self.queued = max(0, queued)
    }

    /// Requests running and waiting.
    var depth: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiting.count) } }

    /// The weight a request of `sequences` sequences is admitted with: at least 1, at most ``active``.
    func weight(of sequences: Int) -> Int { min(max(1, sequences), active) }

    /// Waits for a turn for a request that decodes `sequences` sequences at once. The turn lasts until the
    /// returned ticket is released or goes away, so a streamed response keeps it while its body is written,
    /// after the handler has returned.
    ///
    /// - Parameter deadline: When the request's time runs out; a waiter still in the queue then leaves it.
    /// - Throws: ``APIError`` (429) when the queue is full, or the deadline's 504 when it passes before the turn
    ///   comes; `CancellationError` when cancelled while waiting.
    func admit(sequences: Int = 1, deadline: RequestDeadline? = nil) async throws -> Ticket {
        let weight = weight(of: sequences)
        try await enter(weight: weight, deadline: deadline)
        return Ticket(gate: self, weight: weight)
    }

    /// A turn; releasing it twice is harmless.
    final class Ticket: Sendable {
        private let gate: AdmissionGate
        private let weight: Int
        private let released = Atomic(false)

        fileprivate init(gate: AdmissionGate, weight: Int) {
            self.gate = gate
            self.weight = weight
        }

        /// Gives the turn to the requests waiting next.
        func release() {
            if !released.exchange(true, ordering: .acquiringAndReleasing) { gate.leave(weight: weight) }
        }

        deinit { release() }
    }

    private enum Entry { case admitted, full, expired(APIError), wait }

    private func enter(weight: Int, deadline: RequestDeadline?) async throws {
        let id = state.withLock { $0.nextID += 1; return $0.nextID }
        var expiry: Task<Void, Never>?
        defer { expiry?.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let entry: Entry = state.withLock { state in
                    if Task.isCancelled { return .full }
                    if let deadline, deadline.hasPassed { return .expired(deadline.error) }
                    if state.waiting.isEmpty, state.held + weight <= active {
                        state.held += weight
                        state.running += 1
                        return .admitted
                    }
                    if state.waiting.count >= queued { return .full }
                    state.waiting.append(Waiter(id: id, weight: weight, continuation: continuation))
                    return .wait
                }
                switch entry {
                case .admitted:
                    continuation.resume()
                case .full:
                    continuation.resume(throwing: Task.isCancelled ? CancellationError() : APIError(
                        .tooManyRequests, type: "rate_limit_error", code: "queue_full",
                        "The server is busy: \(active) sequences are being decoded and \(queued) requests are waiting. Retry shortly."))
                case .expired(let error):
                    continuation.resume(throwing: error)
                case .wait:
                    // Fires once the deadline has passed, so a waiter it finds gone from the queue has been let in
                    // or has left it cancelled.
                    expiry = deadline.map { deadline in
                        Task { [weak self] in
                            guard (try? await Task.sleep(until: deadline.instant, clock: .continuous)) != nil else { return }
                            self?.remove(waiter: id, resuming: deadline.error)
                        }
                    }
                }
            }
        } onCancel: {
            remove(waiter: id, resuming: CancellationError())
        }
    }

    /// Takes waiter `id` out of the queue, if it is still there, and resumes it with `error`.
    private func remove(waiter id: Int, resuming error: any Error) {
        let (removed, admitted) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, [CheckedContinuation<Void, any Error>]) in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return (nil, []) }
            let removed = state.waiting.remove(at: index).continuation
            // A heavy waiter leaving the head of the queue may let lighter ones behind it in.
            return (removed, state.admitWaiters(active: active))
        }
        removed?.resume(throwing: error)
        for continuation in admitted { continuation.resume() }
    }

    fileprivate func leave(weight: Int) {
        let admitted = state.withLock { state in
            state.held -= weight
            state.running -= 1
            return state.admitWaiters(active: active)
        }
        for continuation in admitted { continuation.resume() }
    }
}
