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

    private var windowWall: UInt64 = 0
    private var windowWait: UInt64 = 0
    private var contendedWindows = 0
    private var probing = false
    private var hold = ThreadGovernor.shortestHold
    private var holdEnds: UInt64 = 0

    /// A governor that starts with every thread of `budget`.
    package init(budget: Int) {
        self.budget = max(1, budget)
        self.threads = self.budget
    }

    /// A change of the thread count evaluations settle on, for logging: a step down, or a probe that kept its
    /// extra thread (a probe that steps back changes nothing).
    package struct Change: Sendable, Equatable {
        /// Threads before.
        package var from: Int
        /// Threads from now on.
        package var to: Int
        /// The share of the window the evaluating thread waited for a CPU.
        package var waitedShare: Double
        /// The window's evaluation time, in nanoseconds.
        package var windowNanoseconds: UInt64
    }

    /// Threads for an evaluation starting at `now` (monotonic nanoseconds): one more than now when a hold has
    /// ended, as a probe.
    package mutating func threadsForEvaluation(at now: UInt64) -> Int {
        if threads < budget, !probing, now >= holdEnds {
            threads += 1
            probing = true
            windowWall = 0
            windowWait = 0
        }
        return threads
    }

    /// Records one evaluation that took `wall` nanoseconds, of which the evaluating thread waited `waited` for a
    /// CPU, and ended at `now`. Returns the change of thread count it caused, if any.
    @discardableResult
    package mutating func record(wall: UInt64, waited: UInt64, endingAt now: UInt64) -> Change? {
        windowWall &+= wall
        windowWait &+= min(waited, wall)
        guard windowWall >= Self.window else { return nil }
        let share = Double(windowWait) / Double(windowWall)
        let measured = windowWall
        windowWall = 0
        windowWait = 0
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
