#if canImport(Glibc)
import Glibc
#endif

/// The calling thread's monotonic time and run-queue delay, for ``ThreadGovernor``.
enum SchedulerClock {
    /// Monotonic nanoseconds, and the nanoseconds this thread has spent runnable but waiting for a CPU
    /// (the second field of `/proc/thread-self/schedstat`); `nil` where the kernel does not report it.
    static func sample() -> (now: UInt64, waited: UInt64)? {
        #if os(Linux)
        let descriptor = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // "<on-CPU ns> <run-queue ns> <timeslices>\n", read into a stack buffer: this runs around every decode.
        let waited = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 96) { buffer -> UInt64? in
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            guard count > 0 else { return nil }
            let line = buffer[..<count]
            guard let first = line.firstIndex(of: UInt8(ascii: " ")) else { return nil }
            let rest = line[(first + 1)...]
            return decimal(rest[..<(rest.firstIndex(of: UInt8(ascii: " ")) ?? rest.endIndex)])
        }
        guard let waited else { return nil }
        return (nanoseconds(CLOCK_MONOTONIC), waited)
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// The time of `clock` in nanoseconds.
    static func nanoseconds(_ clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
    #endif

    /// Parses ASCII decimal digits; `nil` when there are none, for any other byte, or past `UInt64.max`.
    static func decimal(_ bytes: some Collection<UInt8>) -> UInt64? {
        guard !bytes.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
