#if canImport(Glibc)
import Glibc
#endif

/// How much CPU time this process could have had, for ``ThreadGovernor``: the idle time of the CPUs it may run
/// on (`/proc/stat`) plus the CPU time it used itself. Over an interval, their sum divided by the interval is the
/// number of CPUs another thread of ours would have found, had it been runnable.
enum CPUCapacityClock {
    /// A sample now; `nil` where the kernel does not report idle time.
    static func sample() -> ThreadGovernor.CapacitySample? {
        #if os(Linux)
        // Where /proc/stat cannot be read, evaluations do not try again each time.
        guard isReadable, let idleTicks = idleTicks() else { return nil }
        return ThreadGovernor.CapacitySample(
            time: SchedulerClock.nanoseconds(CLOCK_MONOTONIC),
            idle: idleTicks &* tickNanoseconds,
            own: SchedulerClock.nanoseconds(CLOCK_PROCESS_CPUTIME_ID))
        #else
        return nil
        #endif
    }

    /// The prefix of `/proc/stat`'s CPU lines.
    private static let cpuPrefix = Array("cpu".utf8)

    #if os(Linux)
    /// Whether idle time can be read here at all.
    private static let isReadable = tickNanoseconds > 0 && idleTicks() != nil

    /// Nanoseconds per tick of `/proc/stat` (`USER_HZ`, 100 on most kernels).
    private static let tickNanoseconds: UInt64 = {
        let perSecond = sysconf(Int32(_SC_CLK_TCK))
        return perSecond > 0 ? 1_000_000_000 / UInt64(perSecond) : 0
    }()

    /// The CPUs this process may run on (`Cpus_allowed_list` in `/proc/self/status`); `nil` means every CPU.
    private static let allowedCPUs: Set<Int>? = {
        guard let status = contents(of: "/proc/self/status", limit: 16_384) else { return nil }
        let prefix = Array("Cpus_allowed_list:".utf8)
        for line in status.split(separator: UInt8(ascii: "\n")) where line.starts(with: prefix) {
            return cpuList(line.dropFirst(prefix.count))
        }
        return nil
    }()

    /// Idle and I/O-wait ticks summed over the allowed CPUs' `cpuN` lines of `/proc/stat`.
    private static func idleTicks() -> UInt64? {
        // The per-CPU lines come first; 64 KiB holds them for about a thousand CPUs.
        guard let stat = contents(of: "/proc/stat", limit: 65_536) else { return nil }
        var total: UInt64 = 0
        var found = false
        for line in stat.split(separator: UInt8(ascii: "\n")) {
            guard line.starts(with: cpuPrefix) else { break }
            guard let fields = cpuLine(line) else { continue }
            if let allowed = allowedCPUs, !allowed.contains(fields.cpu) { continue }
            total &+= fields.idle
            found = true
        }
        return found ? total : nil
    }
    #endif

    /// The CPU number and idle plus I/O-wait ticks of a `/proc/stat` line such as `cpu1 6856257 4784 251949
    /// 1518579 17548 0 4242 1169 0 0`; `nil` for the summary `cpu` line or a malformed one.
    static func cpuLine(_ line: some Collection<UInt8>) -> (cpu: Int, idle: UInt64)? {
        let words = line.split(separator: UInt8(ascii: " "))
        guard words.count >= 6, words[0].count > 3, words[0].starts(with: cpuPrefix),
              let cpu = SchedulerClock.decimal(words[0].dropFirst(3)),
              let idle = SchedulerClock.decimal(words[4]), let wait = SchedulerClock.decimal(words[5])
        else { return nil }
        return (Int(clamping: cpu), idle &+ wait)
    }

    /// The CPUs of a kernel CPU list such as `0-3,8,10-11`; `nil` when malformed.
    static func cpuList(_ text: some Collection<UInt8>) -> Set<Int>? {
        var cpus: Set<Int> = []
        let trimmed = text.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        for range in trimmed.split(separator: UInt8(ascii: ",")) {
            let ends = range.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
            guard (1...2).contains(ends.count), let first = ends.first.flatMap({ SchedulerClock.decimal($0) }),
                  let last = ends.last.flatMap({ SchedulerClock.decimal($0) }), first <= last, last < 1 << 20
            else { return nil }
            cpus.formUnion(Int(first)...Int(last))
        }
        return cpus.isEmpty ? nil : cpus
    }

    #if os(Linux)
    /// Up to `limit` bytes of a `/proc` file (their size reads as 0, so read until the end).
    private static func contents(of path: String, limit: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: limit)
        var filled = 0
        while filled < limit {
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, limit - filled) }
            guard count > 0 else { break }
            filled += count
        }
        guard filled > 0 else { return nil }
        bytes.removeSubrange(filled...)
        return bytes
    }
    #endif
}
