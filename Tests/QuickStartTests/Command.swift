import Foundation

/// A command run to completion in a child process, its output collected in a file.
struct Command {
    /// How a finished command ended.
    struct Result {
        var status: Int32
        var output: String
        var timedOut: Bool
        /// The last lines of the output, enough to show why a build or a run failed.
        var tail: String {
            output.split(separator: "\n", omittingEmptySubsequences: false).suffix(40).joined(separator: "\n")
        }
    }

    var arguments: [String]
    var directory: URL
    var environment: [String: String]

    /// Runs the command through `/usr/bin/env` (so `PATH` finds it), merging stderr into stdout.
    ///
    /// Waits without blocking a thread of the cooperative pool, and terminates the command once
    /// `timeout` has passed.
    func run(timeout: Duration) async throws -> Result {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("quick-start-\(UUID().uuidString).log")
        try Data().write(to: log)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        var watchdog: Task<Bool, any Error>?
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            watchdog = Task {
                try await Task.sleep(for: timeout)
                guard process.isRunning else { return false }
                process.terminate()
                return true
            }
        }
        watchdog?.cancel()
        let timedOut = (try? await watchdog?.value) ?? false
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return Result(status: status, output: output, timedOut: timedOut)
    }
}
