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
            counts.append(governor.threadsForEvaluation(at: clock).threads)
            clock += step
            governor.record(wall: step, waited: UInt64(Double(step) * share), endingAt: clock)
        }
        return counts
    }

    /// `FM_THREADS` is a positive whole number or refused; none is no request.
    @Test func theEnvironmentsThreadCountIsReadStrictly() {
        #expect(LlamaThreads.request(from: nil) == nil)
        #expect(LlamaThreads.request(from: " ") == nil)
        #expect(LlamaThreads.request(from: "2") == .count(2))
        #expect(LlamaThreads.request(from: " 3 ") == .count(3))
        for text in ["abc", "0", "-3", "1.5", "2x"] { #expect(LlamaThreads.request(from: text) == .invalid(text), "\(text)") }
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
                let count = governor.threadsForEvaluation(at: clock).threads
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

    /// A machine whose CPUs this process could have used `room` of, as `/proc/stat` and the process's own CPU
    /// time report it: `own` of them its own, the rest idle.
    private struct FakeCapacity {
        var sample = ThreadGovernor.CapacitySample(time: 0, idle: 0, own: 0)
        mutating func advance(by step: UInt64, room: Double, own: Double = 1) {
            sample.time += step
            sample.own += UInt64(Double(step) * min(own, room))
            sample.idle += UInt64(Double(step) * max(0, room - own))
        }
    }

    /// Like ``run(_:clock:until:step:share:)``, with capacity samples from `capacity` advancing at `room`.
    private static func run(_ governor: inout ThreadGovernor, clock: inout UInt64, capacity: inout FakeCapacity,
                            until end: UInt64, room: Double, share: Double) -> [Int] {
        var counts: [Int] = []
        let step = 10 * Self.millisecond
        while clock < end {
            let sample = capacity.sample
            counts.append(governor.threadsForEvaluation(at: clock, capacity: { sample }).threads)
            clock += step
            capacity.advance(by: step, room: room)
            let after = capacity.sample
            governor.record(wall: step, waited: UInt64(Double(step) * share), endingAt: clock, capacity: { after })
        }
        return counts
    }

    @Test func noProbeWalksIntoCoresThatStayedBusy() {
        var governor = ThreadGovernor(budget: 2)
        var clock: UInt64 = 0
        var capacity = FakeCapacity()
        governor.begin(capacity: capacity.sample)
        // Another process takes the second core: two contended windows give it up.
        _ = Self.run(&governor, clock: &clock, capacity: &capacity, until: 100 * Self.millisecond, room: 2, share: 0.4)
        #expect(governor.threads == 1)
        // While it keeps that core, the room stays one CPU: no evaluation runs with two threads, for any hold.
        let busy = Self.run(&governor, clock: &clock, capacity: &capacity, until: 60_000 * Self.millisecond, room: 1, share: 0)
        #expect(Set(busy) == [1])
        // Once it stops, the second core comes back within two of the shortest holds: asking costs nothing, so
        // the skipped probes did not lengthen the hold.
        let quietFrom = clock
        let idle = Self.run(&governor, clock: &clock, capacity: &capacity, until: quietFrom + 20_000 * Self.millisecond,
                            room: 2, share: 0)
        let back = idle.firstIndex(of: 2).map { UInt64($0) * 10 * Self.millisecond }
        #expect(back.map { $0 <= 2 * ThreadGovernor.shortestHold + 2 * ThreadGovernor.window } == true, "\(String(describing: back))")
        #expect(governor.threads == 2)
    }

    @Test func anEvaluationAfterAPauseTakesNoMoreThreadsThanThereWasRoomFor() {
        var governor = ThreadGovernor(budget: 4)
        var capacity = FakeCapacity()
        governor.begin(capacity: capacity.sample)
        // The model loaded while other work left room for two CPUs: the first evaluation takes two threads.
        capacity.advance(by: 300 * Self.millisecond, room: 2)
        var sample = capacity.sample
        let first = governor.threadsForEvaluation(at: sample.time, capacity: { sample })
        #expect(first.threads == 2)
        #expect(first.change?.from == 4 && first.change?.to == 2)
        #expect(first.change.flatMap(\.availableCPUs).map { abs($0 - 2) < 0.01 } == true)

        // With room for every thread, nothing changes.
        var idle = ThreadGovernor(budget: 4)
        var quiet = FakeCapacity()
        idle.begin(capacity: quiet.sample)
        quiet.advance(by: 300 * Self.millisecond, room: 4)
        sample = quiet.sample
        let all = idle.threadsForEvaluation(at: sample.time, capacity: { sample })
        #expect(all.threads == 4 && all.change == nil)
        // After a pause of more than a second in which other work took all but one CPU, one thread.
        let end = sample.time + 20 * Self.millisecond
        idle.record(wall: ThreadGovernor.window, waited: 0, endingAt: end, capacity: { sample })
        quiet.advance(by: 2_000 * Self.millisecond, room: 1, own: 0)
        sample = quiet.sample
        #expect(idle.threadsForEvaluation(at: sample.time, capacity: { sample }).threads == 1)
    }

    @Test func aPauseTooShortOrUnmeasuredDecidesNothing() {
        var governor = ThreadGovernor(budget: 2)
        var capacity = FakeCapacity()
        governor.begin(capacity: capacity.sample)
        capacity.advance(by: ThreadGovernor.shortestCapacityInterval - 1, room: 0)
        let sample = capacity.sample
        #expect(governor.threadsForEvaluation(at: sample.time, capacity: { sample }).threads == 2)
        var unmeasured = ThreadGovernor(budget: 2)
        #expect(unmeasured.threadsForEvaluation(at: 10_000 * Self.millisecond, capacity: { nil }).threads == 2)
    }

    @Test func roomIsIdleTimePlusTheProcesssOwnOverTheInterval() {
        let earlier = ThreadGovernor.CapacitySample(time: 1_000_000_000, idle: 5_000_000_000, own: 2_000_000_000)
        let later = ThreadGovernor.CapacitySample(time: 1_500_000_000, idle: 5_400_000_000, own: 2_350_000_000)
        #expect(later.available(since: earlier).map { abs($0 - 1.5) < 1e-9 } == true)
        #expect(earlier.available(since: later) == nil)
        #expect(later.available(since: later) == nil)
    }

    @Test func anyLoadAndRoomKeepTheCountBetweenOneAndTheBudget() {
        var generator = SeededGenerator(seed: 0xCA9A)
        for budget in 1...8 {
            var governor = ThreadGovernor(budget: budget)
            var capacity = FakeCapacity()
            governor.begin(capacity: capacity.sample)
            var clock: UInt64 = 0
            for _ in 0..<3_000 {
                let pause = Bool.random(using: &generator) ? UInt64.random(in: 0...3_000, using: &generator) * Self.millisecond : 0
                clock += pause
                capacity.advance(by: pause, room: Double.random(in: 0...Double(budget), using: &generator))
                let before = governor.threads
                let sample = capacity.sample
                let start = governor.threadsForEvaluation(at: clock, capacity: { sample })
                #expect((1...budget).contains(start.threads))
                if let change = start.change {
                    #expect(change.from == before && change.to < change.from, "a pause only ever takes threads away")
                }
                let step = UInt64.random(in: 1...200, using: &generator) * Self.millisecond
                clock += step
                capacity.advance(by: step, room: Double.random(in: 0...Double(budget), using: &generator))
                let after = capacity.sample
                governor.record(wall: step, waited: UInt64.random(in: 0...step, using: &generator), endingAt: clock,
                                capacity: { after })
                #expect((1...budget).contains(governor.threads))
            }
        }
    }

    @Test func procStatCPULinesAndCPUListsParse() {
        let line = Array("cpu1 6856257 4784 251949 1518579 17548 0 4242 1169 0 0".utf8)
        #expect(CPUCapacityClock.cpuLine(line).map { [$0.cpu, Int($0.idle)] } == [1, 1_518_579 + 17_548])
        #expect(CPUCapacityClock.cpuLine(Array("cpu  13486519 8455 448815 3337189 20053 0 5361 2345 0 0".utf8)) == nil)
        #expect(CPUCapacityClock.cpuLine(Array("cpu12 1 2 3".utf8)) == nil)
        #expect(CPUCapacityClock.cpuLine(Array("intr 53855872 0 0 0 0 0".utf8)) == nil)
        #expect(CPUCapacityClock.cpuList(Array("0-1".utf8)) == [0, 1])
        #expect(CPUCapacityClock.cpuList(Array("\t0-3,8,10-11".utf8)) == [0, 1, 2, 3, 8, 10, 11])
        #expect(CPUCapacityClock.cpuList(Array("3-1".utf8)) == nil)
        #expect(CPUCapacityClock.cpuList(Array("".utf8)) == nil)
        #expect(CPUCapacityClock.cpuList(Array("0-x".utf8)) == nil)
    }

    @Test func thisMachinesCapacityIsReadable() throws {
        let first = try #require(CPUCapacityClock.sample())
        var sum = 0
        for index in 0..<20_000_000 { sum &+= index }
        let second = try #require(CPUCapacityClock.sample())
        #expect(sum != 0)
        #expect(second.time > first.time && second.own > first.own && second.idle >= first.idle)
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
