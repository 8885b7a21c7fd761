/// A dictionary that holds at most ``capacity`` entries and, when full, drops the one used longest ago.
///
/// A long-running process (a server, a tagging job over many schemas) compiles one constraint per schema it
/// sees; without a bound that memory only grows.
struct LeastRecentlyUsedCache<Key: Hashable, Value> {
    /// The most entries kept.
    let capacity: Int
    private var entries: [Key: (value: Value, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    /// Creates an empty cache that keeps up to `capacity` entries (at least one).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The number of entries.
    var count: Int { entries.count }

    /// The value for `key`, marking it as just used.
    mutating func value(forKey key: Key) -> Value? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key] = (entry.value, clock)
        return entry.value
    }

    /// The value for `key` without marking it as used.
    func peek(_ key: Key) -> Value? { entries[key]?.value }

    /// Every value, in no particular order.
    var values: [Value] { entries.values.map(\.value) }

    /// Stores `value` under `key` as just used, dropping the least recently used entry when over capacity.
    /// Returns the dropped value, if any.
    @discardableResult
    mutating func insert(_ value: Value, forKey key: Key) -> Value? {
        clock += 1
        entries[key] = (value, clock)
        guard entries.count > capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return nil }
        entries[oldest.key] = nil
        return oldest.value.value
    }

    /// Drops the least recently used entries until the values' total `cost` is at most `budget`, never the entry
    /// of `kept`. Returns the dropped values, oldest first.
    @discardableResult
    mutating func trim(toCost budget: Int, keeping kept: Key, cost: (Value) -> Int) -> [Value] {
        let byAge = entries.map { (key: $0.key, cost: cost($0.value.value), lastUse: $0.value.lastUse) }.sorted { $0.lastUse < $1.lastUse }
        var total = byAge.reduce(0) { $0 + $1.cost }
        var dropped: [Value] = []
        for entry in byAge where total > budget && entry.key != kept {
            guard let removed = entries.removeValue(forKey: entry.key) else { continue }
            total -= entry.cost
            dropped.append(removed.value)
        }
        return dropped
    }
}
