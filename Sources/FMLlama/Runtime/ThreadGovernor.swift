/// How many threads the process's next evaluation uses, decided from how long the evaluating thread waited for
/// a CPU during the last ones.
///
/// ggml's threads spin at every barrier of a step until the slowest arrives. When other work holds a core, one of
/// them is off the CPU while the rest spin, so each barrier lasts until the scheduler runs it again: two processes
/// with two threads each on two cores took over 10 minutes for what one does in 19 s. The evaluating thread's
/// run-queue delay (`/proc/thread-self/schedstat`) shows this directly: on an idle machine it waits for a CPU for
/// well under 1 % of a step, and with one more runnable thread than cores for a third or more.
///
/// So after two windows in a row in which the thread waited for at least ``contendedShare(threads:)`` of the
/// time, or one window four times as long as usual, the governor gives up one thread. After a hold it tries one thread more for a window: if that window is not
/// contended it keeps it, and otherwise it steps back and doubles the hold (up to ``longestHold``), so a machine
/// that stays busy costs one short probe now and then, and one that becomes idle gets its cores back once the hold
/// in force ends (``shortestHold`` after a short busy spell, at most ``longestHold``).
///
/// An evaluation with one thread too many costs far more than its share: every barrier of the step waits out a
/// scheduler time slice, so a contended evaluation of a small model takes seconds whatever its size. So where
/// the kernel reports idle time, the governor also asks how many CPUs the process could have had (idle CPUs
/// plus its own CPU time, a ``CapacitySample`` before and after) and does not walk into busy cores blind: it
/// skips a probe when the last half second or so left no room for one more thread (and asks again after
/// ``shortestHold``, since asking costs nothing), and an evaluation that starts after a pause (``staleAfter``; the
/// first one counts from the model's loading) takes no more threads than there was room for.
package struct ThreadGovernor: Sendable, Equatable {
    /// The most threads: `FM_THREADS` or every core.
    package let budget: Int
    /// Threads for the next evaluation, from 1 to ``budget``.
    package private(set) var threads: Int

    /// Evaluation time a decision needs, in nanoseconds: several steps of a small model, one or two of a large.
    package static let window: UInt64 = 50_000_000
    /// The share of a window spent waiting for a CPU that counts as contended at `threads` threads: half of what
    /// one runnable thread more than the cores makes each wait, 1 / (threads + 1). So a third of the time at two
    /// threads is contended and a blip of other work is not, and with many threads, where every barrier waits
    /// for whichever of them is off the CPU, smaller waits count.
    package static func contendedShare(threads: Int) -> Double {
        0.5 / Double(threads + 1)
    }
    /// How long a reduced thread count is kept before the first probe, in nanoseconds.
    package static let shortestHold: UInt64 = 500_000_000
    /// The longest wait between probes while the machine stays busy, in nanoseconds.
    package static let longestHold: UInt64 = 16_000_000_000
    /// How long without evaluations makes what the windows showed stale, in nanoseconds: other work may have
    /// started meanwhile.
    package static let staleAfter: UInt64 = 1_000_000_000
    /// The shortest interval whose capacity counts: `/proc/stat` counts idle time in ticks of 10 ms.
    package static let shortestCapacityInterval: UInt64 = 100_000_000
    /// How much of a CPU may be missing from the room a thread needs: capacity is measured in whole ticks, and
    /// a thread that finds 60 % of a CPU still helps more than its barriers cost.
    package static let capacitySlack = 0.5

    /// Where the process stood at one moment: the time, the idle time of the CPUs it may run on and its own CPU
    /// time, all in nanoseconds.
    package struct CapacitySample: Sendable, Equatable {
        /// Monotonic time.
        package var time: UInt64
        /// Idle time summed over the CPUs the process may run on, since boot.
        package var idle: UInt64
        /// CPU time the process has used, since it started.
        package var own: UInt64

        /// Creates a sample.
        package init(time: UInt64, idle: UInt64, own: UInt64) {
            self.time = time
            self.idle = idle
            self.own = own
        }

        /// CPUs the process could have used from `earlier` to this sample, or `nil` for an interval shorter
        /// than ``ThreadGovernor/shortestCapacityInterval``.
        package func available(since earlier: CapacitySample) -> Double? {
            guard time > earlier.time, time - earlier.time >= ThreadGovernor.shortestCapacityInterval else { return nil }
            return Double((idle &- earlier.idle) &+ (own &- earlier.own)) / Double(time - earlier.time)
        }
    }

    private var windowWall: UInt64 = 0
    private var windowWait: UInt64 = 0
    private var contendedWindows = 0
    private var probing = false
    private var hold = ThreadGovernor.shortestHold
    private var holdEnds: UInt64 = 0
    private var lastEnd: UInt64?
    /// The capacity sample the next decision measures from, and a newer one that takes its place once it is
    /// ``shortestHold`` old: decisions see the last half second to second of evaluations, and any pause since.
    private var reference: CapacitySample?
    private var recent: CapacitySample?

    /// A governor that starts with every thread of `budget`.
    package init(budget: Int) {
        self.budget = max(1, budget)
        self.threads = self.budget
    }

    /// A change of the thread count evaluations settle on, for logging: a step down, or a probe that kept its
    /// extra thread (a probe that steps back, or one skipped, changes nothing).
    package struct Change: Sendable, Equatable {
        /// Threads before.
        package var from: Int
        /// Threads from now on.
        package var to: Int
        /// The share of the window the evaluating thread waited for a CPU.
        package var waitedShare: Double
        /// The window's evaluation time, in nanoseconds; for a change made before an evaluation, the interval
        /// the capacity was measured over.
        package var windowNanoseconds: UInt64
        /// For a change made before an evaluation, from capacity: the CPUs the process could have had.
        package var availableCPUs: Double? = nil
    }

    /// Starts the measure of capacity: the first evaluation counts its room from here (the model's loading).
    package mutating func begin(capacity: CapacitySample?) {
        if reference == nil { restartCapacity(at: capacity) }
    }

    private mutating func restartCapacity(at sample: CapacitySample?) {
        reference = sample
        recent = sample
    }

    /// Empties the measuring window: once it has been read, and when the thread count changes, since a window
    /// measures one count.
    private mutating func restartWindow() {
        windowWall = 0
        windowWait = 0
    }

    /// Threads for an evaluation starting at `now` (monotonic nanoseconds): one more than now when a hold has
    /// ended, as a probe, unless `capacity` (a sample now, read only when a decision needs it) shows no room
    /// for it; after a pause, no more than there was room for. Returns the change a pause caused, if any.
    package mutating func threadsForEvaluation(at now: UInt64,
                                               capacity: () -> CapacitySample? = { nil }) -> (threads: Int, change: Change?) {
        if threads < budget, !probing, now >= holdEnds {
            let sample = capacity()
            let room = sample.flatMap { sample in reference.flatMap { sample.available(since: $0) } }
            if let room, room < Double(threads + 1) - Self.capacitySlack {
                // A probe into cores that stayed busy would fail, at the price of a contended evaluation. Asking
                // costs nothing, so ask again after the shortest hold: the thread comes back soon after the
                // other work ends.
                hold = Self.shortestHold
                holdEnds = now + hold
                restartCapacity(at: sample)
                return (threads, nil)
            }
            threads += 1
            probing = true
            restartWindow()
            return (threads, nil)
        }
        if threads > 1, !probing, lastEnd.map({ now &- $0 >= Self.staleAfter }) ?? true,
           let sample = capacity(), let reference, let room = sample.available(since: reference),
           room < Double(threads) - Self.capacitySlack {
            let before = threads
            threads = max(1, min(threads - 1, Int(room + Self.capacitySlack)))
            hold = Self.shortestHold
            holdEnds = now + hold
            contendedWindows = 0
            restartWindow()
            restartCapacity(at: sample)
            return (threads, Change(from: before, to: threads, waitedShare: 0, windowNanoseconds: sample.time - reference.time,
                                    availableCPUs: room))
        }
        return (threads, nil)
    }

    /// Records one evaluation that took `wall` nanoseconds, of which the evaluating thread waited `waited` for a
    /// CPU, and ended at `now`. Returns the change of thread count it caused, if any. `capacity` is read about
    /// twice a second, to measure the next decision from.
    @discardableResult
    package mutating func record(wall: UInt64, waited: UInt64, endingAt now: UInt64,
                                 capacity: () -> CapacitySample? = { nil }) -> Change? {
        lastEnd = now
        if recent.map({ now &- $0.time >= Self.shortestHold }) ?? true, let sample = capacity() {
            reference = recent ?? sample
            recent = sample
        }
        windowWall &+= wall
        windowWait &+= min(waited, wall)
        guard windowWall >= Self.window else { return nil }
        let share = Double(windowWait) / Double(windowWall)
        let measured = windowWall
        restartWindow()
        // A probe's window is measured at one thread more than the count it came from.
        let before = probing ? threads - 1 : threads
        let contended = share >= Self.contendedShare(threads: threads)
        if probing {
            probing = false
            if contended {
                threads -= 1
                hold = min(hold * 2, Self.longestHold)
                holdEnds = now + hold
            } else {
                hold = Self.shortestHold
                holdEnds = now
            }
        } else if contended, threads > 1 {
            contendedWindows += 1
            // One long window (a prompt evaluated while contended) is no blip of other work.
            if contendedWindows >= 2 || measured >= 4 * Self.window {
                contendedWindows = 0
                threads -= 1
                holdEnds = now + hold
            }
        } else {
            contendedWindows = 0
        }
        guard threads != before else { return nil }
        return Change(from: before, to: threads, waitedShare: share, windowNanoseconds: measured)
    }
}
