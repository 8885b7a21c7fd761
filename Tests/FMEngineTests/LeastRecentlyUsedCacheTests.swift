@testable import FMEngine
import Testing

/// The bounded cache behind each model's compiled schemas.
struct LeastRecentlyUsedCacheTests {
    @Test func dropsTheEntryUsedLongestAgo() {
        var cache = LeastRecentlyUsedCache<String, Int>(capacity: 2)
        cache.insert(1, forKey: "a")
        cache.insert(2, forKey: "b")
        #expect(cache.value(forKey: "a") == 1)  // "b" is now the oldest
        #expect(cache.insert(3, forKey: "c") == 2)
        #expect(cache.peek("b") == nil && cache.peek("a") == 1 && cache.peek("c") == 3)
        #expect(cache.count == 2)
    }

    @Test func replacingAKeyDropsNothing() {
        var cache = LeastRecentlyUsedCache<String, Int>(capacity: 2)
        cache.insert(1, forKey: "a")
        cache.insert(2, forKey: "b")
        #expect(cache.insert(10, forKey: "a") == nil)
        #expect(cache.peek("a") == 10 && cache.peek("b") == 2)
    }

    @Test func trimmingDropsTheOldestUntilTheCostFitsButNeverTheKeptKey() {
        var cache = LeastRecentlyUsedCache<String, Int>(capacity: 10)
        for (key, cost) in [("a", 40), ("b", 30), ("c", 20), ("d", 10)] { cache.insert(cost, forKey: key) }
        _ = cache.value(forKey: "a")  // from the oldest: b, c, d, a
        #expect(cache.trim(toCost: 100, keeping: "a") { $0 } == [])
        #expect(cache.trim(toCost: 70, keeping: "a") { $0 } == [30])
        // The kept key stays even when it is the oldest; the next oldest go instead.
        #expect(cache.trim(toCost: 45, keeping: "c") { $0 } == [10, 40])
        #expect(cache.peek("c") == 20 && cache.count == 1)
        #expect(cache.trim(toCost: 0, keeping: "c") { $0 } == [])
        #expect(cache.peek("c") == 20)
    }

    /// Random operations against a plain reference: a list ordered from least to most recently used.
    @Test(arguments: [1, 2, 3, 7])
    func matchesAReferenceModel(capacity: Int) {
        var generator = SystemRandomNumberGenerator()
        var cache = LeastRecentlyUsedCache<Int, Int>(capacity: capacity)
        var reference: [(key: Int, value: Int)] = []
        for step in 0..<2_000 {
            let key = Int.random(in: 0..<(capacity * 2 + 1), using: &generator)
            if Bool.random(using: &generator) {
                let dropped = cache.insert(step, forKey: key)
                var expected: Int?
                if let index = reference.firstIndex(where: { $0.key == key }) { reference.remove(at: index) }
                reference.append((key, step))
                if reference.count > capacity { expected = reference.removeFirst().value }
                #expect(dropped == expected, "step \(step)")
            } else {
                let value = cache.value(forKey: key)
                let index = reference.firstIndex { $0.key == key }
                #expect(value == index.map { reference[$0].value }, "step \(step)")
                if let index { reference.append(reference.remove(at: index)) }
            }
            #expect(cache.count == reference.count)
        }
    }
}
