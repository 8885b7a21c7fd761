@testable import FMLlama
import Testing

@Suite("ThreadGovernor: fewer threads while the evaluating thread waits for a CPU, all of them again when it does not")
struct ThreadGovernorTests {
    private static let millisecond: UInt64 = 1_000_000

    /// Drives `governor` through evaluations of `step` nanoseconds each, waiting `share` of each, from `clock`
    /// until `until`; returns the thread count of every evaluation.
    private static func run(_ governor: inout ThreadGovernor, clock: inout UInt64, until end: UInt64,
                            step: UInt64 = 10 * millisecond, share: Double) -> [Int] {
        var counts: [Int] = []
        while clock < end {
            counts.append(governor.threadsForEvaluation(at: clock))
            clock += step
            governor.record(wall: step, waited: UInt64(Double(step) * share), endingAt: clock)
        }
        return counts
    }

    @Test func anIdleMachineKeepsEveryThread() {
        var governor = ThreadGovernor(budget: 4)
        var clock: UInt64 = 0
        let counts = Self.run(&governor, clock: &clock, until: 60_000 * Self.millisecond, share: 0.01)
        #expect(Set(counts) == [4])
    }

    @Test func oneContendedWindowIsNotEnoughButTwoInARowAre() {
        var governor = ThreadGovernor(budget: 2)
        // A window is 50 ms: five 10 ms evaluations.
        var clock: UInt64 = 0
        _ = Self.run(&governor, clock: &clock, until: 50 * Self.millisecond, share: 0.5)
        #expect(governor.threads == 2)
        _ = Self.run(&governor, clock: &clock, until: 100 * Self.millisecond, share: 0.01)
        _ = Self.run(&governor, clock: &clock, until: 150 * Self.millisecond, share: 0.5)
        #expect(governor.threads == 2, "the quiet window between them starts the count again")
        _ = Self.run(&governor, clock: &clock, until: 200 * Self.millisecond, share: 0.5)
        #expect(governor.threads == 1)
    }

    @Test func oneLongContendedEvaluationIsEnough() {
        var governor = ThreadGovernor(budget: 2)
        _ = governor.threadsForEvaluation(at: 0)
        let long = 4 * ThreadGovernor.window
        #expect(governor.record(wall: long, waited: long / 2, endingAt: long) == .init(
            from: 2, to: 1, waitedShare: 0.5, windowNanoseconds: long))
        var short = ThreadGovernor(budget: 2)
        #expect(short.record(wall: long - 1, waited: long / 2, endingAt: long) == nil)
    }

    @Test func aBusyMachineIsProbedLessAndLessOften() {
        var governor = ThreadGovernor(budget: 2)
        var clock: UInt64 = 0
        let counts = Self.run(&governor, clock: &clock, until: 120_000 * Self.millisecond, share: 0.4)
        // Each probe is one window (five evaluations) at two threads; the holds between them double to the longest.
        var probes: [Int] = []
        for (index, count) in counts.enumerated() where count == 2 && index > 10 && counts[index - 1] == 1 {
            probes.append(index)
        }
        let gaps = zip(probes.dropFirst(), probes).map { $0 - $1 }
        #expect(gaps.count >= 4)
        #expect(gaps == gaps.sorted(), "holds never shorten while the machine stays busy: \(gaps)")
        let longest = Int(ThreadGovernor.longestHold / (10 * Self.millisecond))
        #expect(gaps.allSatisfy { $0 <= longest + 5 + 1 })
        #expect(gaps.suffix(2).allSatisfy { $0 >= longest }, "the holds reach the longest: \(gaps)")
        // At most one probe window's evaluations in every longest hold run at two threads.
        let atTwo = counts.dropFirst(10).filter { $0 == 2 }.count
        #expect(atTwo < counts.count / 20)
    }

    @Test func aMachineThatBecomesIdleGetsItsThreadsBackWithinAHold() {
        var governor = ThreadGovernor(budget: 3)
        var clock: UInt64 = 0
        _ = Self.run(&governor, clock: &clock, until: 10_000 * Self.millisecond, share: 0.5)
        #expect(governor.threads == 1)
        let quietFrom = clock
        _ = Self.run(&governor, clock: &clock, until: quietFrom + 60_000 * Self.millisecond, share: 0.0)
        #expect(governor.threads == 3)
        // After the busy period's longest hold at most, each thread comes back after one quiet probe window.
        var replay = ThreadGovernor(budget: 3)
        var replayClock: UInt64 = 0
        _ = Self.run(&replay, clock: &replayClock, until: 10_000 * Self.millisecond, share: 0.5)
        var back: UInt64 = 0
        while replay.threads < 3 {
            _ = replay.threadsForEvaluation(at: replayClock)
            replayClock += 10 * Self.millisecond
            replay.record(wall: 10 * Self.millisecond, waited: 0, endingAt: replayClock)
            back = replayClock - quietFrom
        }
        #expect(back <= ThreadGovernor.longestHold + 2 * ThreadGovernor.window + 20 * Self.millisecond)
    }

    @Test func changesAreStepsDownAndProbesThatKeepTheirThread() {
        var governor = ThreadGovernor(budget: 2)
        var clock: UInt64 = 0
        var changes: [ThreadGovernor.Change] = []
        func run(until end: UInt64, share: Double) {
            while clock < end {
                _ = governor.threadsForEvaluation(at: clock)
                clock += 10 * Self.millisecond
                if let change = governor.record(wall: 10 * Self.millisecond,
                                                waited: UInt64(Double(10 * Self.millisecond) * share), endingAt: clock) {
                    changes.append(change)
                }
            }
        }
        // Busy for 5 s: one step down, then failed probes, which change nothing.
        run(until: 5_000 * Self.millisecond, share: 0.4)
        #expect(changes.map { [$0.from, $0.to] } == [[2, 1]])
        // Idle: the next probe keeps its thread.
        run(until: 25_000 * Self.millisecond, share: 0)
        #expect(changes.map { [$0.from, $0.to] } == [[2, 1], [1, 2]])
        #expect(changes[1].waitedShare == 0)
    }

    @Test func manyThreadsCountSmallerWaitsAsContended() {
        // Two threads and one more runnable task: each waits about a third of the time.
        #expect(ThreadGovernor.contendedShare(threads: 2) < 1.0 / 3)
        #expect(ThreadGovernor.contendedShare(threads: 2) > 0.10)
        // Sixteen threads and one more runnable task: each waits about 1/17 of the time.
        #expect(ThreadGovernor.contendedShare(threads: 16) < 1.0 / 17)
        var governor = ThreadGovernor(budget: 16)
        var clock: UInt64 = 0
        _ = Self.run(&governor, clock: &clock, until: 100 * Self.millisecond, share: 1.0 / 17)
        #expect(governor.threads == 15)
        var small = ThreadGovernor(budget: 2)
        clock = 0
        _ = Self.run(&small, clock: &clock, until: 1_000 * Self.millisecond, share: 1.0 / 17)
        #expect(small.threads == 2)
    }

    @Test func anyLoadKeepsTheCountBetweenOneAndTheBudget() {
        var generator = SeededGenerator(seed: 0x7EAD)
        for budget in 1...8 {
            var governor = ThreadGovernor(budget: budget)
            var clock: UInt64 = 0
            for _ in 0..<5_000 {
                let count = governor.threadsForEvaluation(at: clock)
                #expect((1...budget).contains(count))
                let step = UInt64.random(in: 1...200, using: &generator) * Self.millisecond
                clock += step
                let waited = UInt64.random(in: 0...(step * 2), using: &generator)
                if let change = governor.record(wall: step, waited: waited, endingAt: clock) {
                    #expect(abs(change.to - change.from) == 1)
                    #expect((0...1).contains(change.waitedShare))
                }
                #expect((1...budget).contains(governor.threads))
            }
        }
    }

    @Test func decimalFieldsOfSchedstatParseAndAnythingElseDoesNot() {
        #expect(SchedulerClock.decimal(ArraySlice(Array("18135996407".utf8))) == 18_135_996_407)
        #expect(SchedulerClock.decimal(ArraySlice(Array("0".utf8))) == 0)
        #expect(SchedulerClock.decimal(ArraySlice(Array("".utf8))) == nil)
        #expect(SchedulerClock.decimal(ArraySlice(Array("12a".utf8))) == nil)
        #expect(SchedulerClock.decimal(ArraySlice(Array("-1".utf8))) == nil)
        #expect(SchedulerClock.decimal(ArraySlice(Array("18446744073709551615".utf8))) == UInt64.max)
        #expect(SchedulerClock.decimal(ArraySlice(Array("18446744073709551616".utf8))) == nil)
    }

    @Test func thisThreadsRunQueueDelayIsReadable() throws {
        let first = try #require(SchedulerClock.sample())
        var sum = 0
        for index in 0..<2_000_000 { sum &+= index }
        let second = try #require(SchedulerClock.sample())
        #expect(sum != 0)
        #expect(second.now > first.now)
        #expect(second.waited >= first.waited)
    }
}
