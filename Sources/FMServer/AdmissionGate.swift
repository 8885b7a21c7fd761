import HTTPTypes
import Synchronization

/// Bounds the work in flight: up to `active` requests run, up to `queued` more wait in arrival order, and
/// any request beyond that is turned away at once (the server answers 429) instead of piling up.
final class AdmissionGate: Sendable {
    private struct State {
        var running = 0
        var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID = 0
    }

    /// Requests that may run at once.
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

    /// Waits for a turn. The turn lasts until the returned ticket is released or goes away, so a streamed
    /// response keeps it while its body is written, after the handler has returned.
    ///
    /// - Throws: ``APIError`` (429) when the queue is full; `CancellationError` when cancelled while waiting.
    func admit() async throws -> Ticket {
        try await enter()
        return Ticket(gate: self)
    }

    /// A turn; releasing it twice is harmless.
    final class Ticket: Sendable {
        private let gate: AdmissionGate
        private let released = Atomic(false)

        fileprivate init(gate: AdmissionGate) { self.gate = gate }

        /// Gives the turn to the next request.
        func release() {
            if !released.exchange(true, ordering: .acquiringAndReleasing) { gate.leave() }
        }

        deinit { release() }
    }

    private enum Entry { case admitted, full, wait(Int) }

    private func enter() async throws {
        let id = state.withLock { $0.nextID += 1; return $0.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let entry: Entry = state.withLock { state in
                    if Task.isCancelled { return .full }
                    if state.running < active {
                        state.running += 1
                        return .admitted
                    }
                    if state.waiting.count >= queued { return .full }
                    state.waiting.append((id, continuation))
                    return .wait(id)
                }
                switch entry {
                case .admitted:
                    continuation.resume()
                case .full:
                    continuation.resume(throwing: Task.isCancelled ? CancellationError() : APIError(
                        .tooManyRequests, type: "rate_limit_error", code: "queue_full",
                        "The server is busy: \(active) requests are running and \(queued) are waiting. Retry shortly."))
                case .wait:
                    break
                }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index).continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    fileprivate func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            // The turn passes straight to the first waiter, so `running` stays the same.
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
    }
}
