/// Computations an engine runs for requests that share their result (calibration tables), by key, with how many
/// requests wait for each.
///
/// A computation whose every waiter has stopped waiting (clients that hung up or timed out) is *orphaned*. It goes
/// on, so that a client that retries finds its result, but only up to ``orphanLimit`` of them at once: no admission
/// counts their work, so a client that sent new instructions and hung up at once, again and again, would otherwise
/// leave any number of them behind, each a generation per calibration text, slowing every later request. A
/// computation orphaned beyond the limit is handed back to be cancelled, and a later request starts it anew.
struct ComputationsInFlight<Value: Sendable> {
    /// One computation and its waiters.
    struct Entry {
        /// Tells this computation apart from a later one for the same key.
        let id: Int
        let task: Task<Value, Never>
        var waiters: Int
    }

    /// The most orphaned computations that go on at once.
    static var orphanLimit: Int { 1 }

    private(set) var entries: [String: Entry] = [:]
    private var nextID = 0

    /// Computations that no request waits for.
    var orphaned: Int { entries.values.count { $0.waiters == 0 } }

    /// Joins the computation for `key` as one more waiter: the one running, or the one `start` makes, given its id.
    mutating func join(_ key: String, start: (_ id: Int) -> Task<Value, Never>) -> (id: Int, task: Task<Value, Never>) {
        if var entry = entries[key] {
            entry.waiters += 1
            entries[key] = entry
            return (entry.id, entry.task)
        }
        nextID += 1
        let entry = Entry(id: nextID, task: start(nextID), waiters: 1)
        entries[key] = entry
        return (entry.id, entry.task)
    }

    /// A waiter of computation `id` for `key` stopped waiting. Returns the computation to cancel when that leaves
    /// it orphaned beyond ``orphanLimit``; it is forgotten at once, so a later request starts afresh.
    mutating func leave(_ key: String, id: Int) -> Task<Value, Never>? {
        guard var entry = entries[key], entry.id == id else { return nil }
        entry.waiters -= 1
        guard entry.waiters == 0, orphaned >= Self.orphanLimit else {
            entries[key] = entry
            return nil
        }
        entries[key] = nil
        return entry.task
    }

    /// Computation `id` for `key` ended; a later computation for the same key is left alone.
    mutating func finish(_ key: String, id: Int) {
        if entries[key]?.id == id { entries[key] = nil }
    }
}
