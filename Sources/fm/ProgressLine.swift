import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress display (count, rate, ETA) on stderr, drawn only when stderr is a terminal.
struct ProgressLine {
    let total: Int
    let start = Date()
    let isEnabled = isatty(STDERR_FILENO) != 0
    var done = 0

    mutating func advance() {
        done += 1
        guard isEnabled else { return }
        let elapsed = Date().timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let width = 24
        let filled = total > 0 ? width * done / total : width
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = String(format: "\r[%@] %d/%d  %.1f texts/s  ETA %ds ", bar, done, total, rate, Int(eta))
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Writes `message` on its own line on stderr when stderr is a terminal: work before the texts (a label
    /// glossary being written) would otherwise leave the terminal silent.
    @Sendable static func status(_ message: String) {
        guard isatty(STDERR_FILENO) != 0 else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    func finish() {
        guard isEnabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
