import Synchronization

/// How many of a job's requests one `--endpoint` server is sent at once.
///
/// A job starts with no limit of its own (its `--concurrency`/`--parallel` bounds it). When the server turns a
/// request away as busy (429 or 503, after the client's own retries), the limit becomes half the requests then in
/// flight there, once per such crowd: requests sent before that decrease and turned away with it do not halve
/// it again. After as many answers in a row as the limit allows, it grows by one, so a server that was busy for a
/// while gets its share back (additive increase, multiplicative decrease). A job that asks more of a server than
/// the server admits thus slows down to what it admits instead of failing the texts it crowded out. A server
/// that cannot be reached, or refuses the job's requests, is sent one request at a time until it answers again,
/// so a fleet's dead member does not draw the texts its live ones have no room for. A request that gets no
/// answer in time counts as busy when other requests of the job were at the server with it or the server had
/// answered earlier ones (it queues requests rather than turning them away, or stopped answering), and as
/// unreachable when it was alone at a server that never answered the job (it hangs).
final class ServerThrottle: Sendable {
    /// What a request holds while it is in flight.
    struct Permit: Sendable {
        /// The limit's generation when the request was sent: a busy answer halves the limit only if it has not
        /// been lowered since.
        fileprivate let generation: Int
        fileprivate let id: UInt64
        /// How many answers the server had given the job when the request was sent.
        fileprivate let answersBefore: Int
    }

    private struct State {
        /// `nil` until the server first turns a request away.
        var limit: Int?
        var inFlight = 0
        var answersInARow = 0
        /// Every answer (or busy turn-away) the server has sent the job: a server that sends none hangs.
        var answers = 0
        var generation = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Permit?, Never>)] = []
        var lastID: UInt64 = 0
        var cancelled: Set<UInt64> = []
        /// For each request in flight, by its permit's id: the most requests of the job in flight at once while it
        /// was, itself included.
        var crowds: [UInt64: Int] = [:]

        mutating func grant(_ id: UInt64) -> Permit? {
            guard limit.map({ inFlight < $0 }) ?? true else { return nil }
            inFlight += 1
            for key in crowds.keys { crowds[key] = max(crowds[key]!, inFlight) }
            crowds[id] = inFlight
            return Permit(generation: generation, id: id, answersBefore: answers)
        }
    }

    private let state = Mutex(State())

    /// The current limit, `nil` while there is none.
    var limit: Int? { state.withLock { $0.limit } }

    /// How many requests wait for a place.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// How a request ended, for the throttle.
    enum Outcome: Sendable {
        /// The server answered (well or not).
        case answered
        /// The server turned it away as busy.
        case busy
        /// No answer came in time, beside other requests of the job or from a server that answered earlier ones:
        /// it queues what it has no room for, and is busy as if it had turned the request away, though this is no
        /// answer of the server's.
        case late
        /// The server could not be reached, or refused the job's requests.
        case unavailable
    }

    /// Whether the server answered other requests of the job while the one holding `permit` waited, whether it
    /// has answered any, and whether other requests of the job were in flight there meanwhile (read before that
    /// request's release): a request that got no answer in time beside others may have waited in the server's
    /// queue (behind a first answer still streaming, say), while one alone at a server that never answered met
    /// one that hangs.
    func answers(since permit: Permit) -> (others: Bool, ever: Bool, crowded: Bool) {
        state.withLock { ($0.answers > permit.answersBefore, $0.answers > 0, ($0.crowds[permit.id] ?? 1) > 1) }
    }

    /// A place for one more request if the server has room now; `nil` otherwise.
    func tryAcquire() -> Permit? {
        state.withLock { state in
            state.lastID += 1
            return state.grant(state.lastID)
        }
    }

    /// Waits until the server may be sent one more request, in the order requests asked.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits; it then holds no permit.
    func acquire() async throws -> Permit {
        let id = state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
        let permit: Permit? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now: Permit?? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .some(nil) }
                    if state.waiters.isEmpty, let permit = state.grant(id) { return .some(permit) }
                    state.waiters.append((id, continuation))
                    return .none
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Permit?, Never>? in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index).continuation
                }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.resume(returning: nil)
        }
        state.withLock { _ = $0.cancelled.remove(id) }
        guard let permit else { throw CancellationError() }
        return permit
    }

    /// Ends a request.
    ///
    /// - Returns: Whether the job crowded the server: it turned the request away as busy while other requests of
    ///   the job were in flight there (at any time between its sending and its answer), so with the limit lowered
    ///   it may be let in later.
    @discardableResult
    func release(_ permit: Permit, _ outcome: Outcome) -> Bool {
        let (woken, crowd) = state.withLock { state -> ([(CheckedContinuation<Permit?, Never>, Permit)], Int) in
            let crowd = state.crowds.removeValue(forKey: permit.id) ?? 1
            switch outcome {
            case .busy, .late:
                if outcome == .busy { state.answers += 1 }
                state.answersInARow = 0
                if permit.generation == state.generation {
                    state.limit = max(1, min(state.limit ?? .max, state.inFlight) / 2)
                    state.generation += 1
                }
            case .unavailable:
                state.answersInARow = 0
                state.limit = 1
                state.generation += 1
            case .answered:
                state.answers += 1
                guard let limit = state.limit else { break }
                state.answersInARow += 1
                if state.answersInARow >= limit {
                    state.limit = limit + 1
                    state.answersInARow = 0
                }
            }
            state.inFlight -= 1
            var woken: [(CheckedContinuation<Permit?, Never>, Permit)] = []
            while let waiter = state.waiters.first, let next = state.grant(waiter.id) {
                state.waiters.removeFirst()
                woken.append((waiter.continuation, next))
            }
            return (woken, crowd)
        }
        for (continuation, next) in woken { continuation.resume(returning: next) }
        return (outcome == .busy || outcome == .late) && crowd > 1
    }
}
