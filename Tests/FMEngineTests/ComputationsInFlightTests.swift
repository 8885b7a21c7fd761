@testable import FMEngine
import Testing

/// Shared computations and the bound on those no request waits for any more.
struct ComputationsInFlightTests {
    @Test func requestsForOneKeyShareOneComputation() {
        var computations = ComputationsInFlight<Int>()
        var started = 0
        let first = computations.join("a") { _ in started += 1; return Task { 1 } }
        let second = computations.join("a") { _ in started += 1; return Task { 2 } }
        #expect(started == 1 && first.id == second.id)
        #expect(computations.entries["a"]?.waiters == 2)
        // One waiter leaving leaves the other's computation alone.
        #expect(computations.leave("a", id: first.id) == nil)
        #expect(computations.entries["a"]?.waiters == 1 && computations.orphaned == 0)
    }

    @Test func oneOrphanGoesOnAndFurtherOnesAreHandedBackToBeCancelled() {
        var computations = ComputationsInFlight<Int>()
        let a = computations.join("a") { _ in Task { 1 } }
        let b = computations.join("b") { _ in Task { 2 } }
        let c = computations.join("c") { _ in Task { 3 } }
        // The first computation left without a waiter goes on, so a retry finds its result.
        #expect(computations.leave("a", id: a.id) == nil)
        #expect(computations.orphaned == 1 && computations.entries.count == 3)
        // The next one is beyond the limit: handed back and forgotten, so a later request starts it afresh.
        let cancelled = computations.leave("b", id: b.id)
        #expect(cancelled == b.task)
        #expect(computations.entries["b"] == nil && computations.orphaned == 1)
        let again = computations.join("b") { _ in Task { 4 } }
        #expect(again.id != b.id && computations.entries["b"]?.waiters == 1)
        // A computation with a waiter left is not an orphan.
        #expect(computations.entries["c"]?.waiters == 1)
        _ = c
    }

    @Test func aRequestThatJoinsAnOrphanAdoptsIt() {
        var computations = ComputationsInFlight<Int>()
        let a = computations.join("a") { _ in Task { 1 } }
        #expect(computations.leave("a", id: a.id) == nil)
        #expect(computations.orphaned == 1)
        let retry = computations.join("a") { _ in Task { 2 } }
        #expect(retry.id == a.id && computations.orphaned == 0)
        // Another orphan may now go on in its place.
        let b = computations.join("b") { _ in Task { 3 } }
        #expect(computations.leave("b", id: b.id) == nil && computations.orphaned == 1)
    }

    @Test func anEndedComputationLeavesALaterOneForItsKeyAlone() {
        var computations = ComputationsInFlight<Int>()
        let orphan = computations.join("x") { _ in Task { 0 } }
        #expect(computations.leave("x", id: orphan.id) == nil)
        let a = computations.join("a") { _ in Task { 1 } }
        #expect(computations.leave("a", id: a.id) != nil)
        let later = computations.join("a") { _ in Task { 2 } }
        // The cancelled computation ends after the later one started; neither its end nor a stale waiter's leaving
        // touches the later one.
        computations.finish("a", id: a.id)
        #expect(computations.leave("a", id: a.id) == nil)
        #expect(computations.entries["a"]?.id == later.id && computations.entries["a"]?.waiters == 1)
        computations.finish("a", id: later.id)
        #expect(computations.entries["a"] == nil)
    }
}
