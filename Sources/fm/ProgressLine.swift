import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress display (count, rate, ETA) on stderr, drawn only when stderr is a terminal.
struct ProgressLine {
    let total: Int
    let isEnabled = isatty(STDERR_FILENO) != 0
    var done = 0
    /// Where the rate counts from; the calibration of choices, which runs once before the first text, moves it
    /// to its end, so a long calibration does not stretch the ETA of the texts.
    private let clock = Clock()

    init(total: Int) {
        self.total = total
    }

    private final class Clock: Sendable {
        private let start = Mutex(Date())
        var elapsed: TimeInterval { Date().timeIntervalSince(start.withLock { $0 }) }
        func restart() { start.withLock { $0 = Date() } }
    }

    /// Draws how far the calibration of choices has got on its own line before the texts' (a ``Tagger``'s
    /// `calibrationProgress`), and starts the rate's clock again when it ends.
    var calibration: @Sendable (_ done: Int, _ total: Int) -> Void {
        let clock = clock
        return { done, total in
            Self.drawCalibration(done: done, total: total)
            if done == total { clock.restart() }
        }
    }

    mutating func advance() {
        done += 1
        guard isEnabled else { return }
        let elapsed = clock.elapsed
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let width = 24
        let filled = total > 0 ? width * done / total : width
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let pace = rate > 0 ? String(format: "  %.1f texts/s  ETA %ds", rate, Int(eta)) : ""
        let line = String(format: "\r[%@] %d/%d%@ ", bar, done, total, pace)
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Writes `message` on its own line on stderr when stderr is a terminal: work before the texts (a label
    /// glossary being written) would otherwise leave the terminal silent.
    @Sendable static func status(_ message: String) {
        guard isatty(STDERR_FILENO) != 0 else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Draws how far the calibration of choices has got on one line of stderr when stderr is a terminal: it
    /// runs before the first answer, so the progress line would otherwise stay at 0 for its whole length.
    private static func drawCalibration(done: Int, total: Int) {
        guard isatty(STDERR_FILENO) != 0, total > 0 else { return }
        let line = String(format: "\rcalibrating choices: %d/%d texts ", done, total)
        FileHandle.standardError.write(Data((line + (done == total ? "\n" : "")).utf8))
    }

    func finish() {
        guard isEnabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
