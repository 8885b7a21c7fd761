import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress display (count, rate, ETA) on stderr, drawn only when stderr is a terminal.
struct ProgressLine {
    /// The number of texts, or `nil` while input is still arriving (no bar or ETA then).
    let total: Int?
    let isEnabled = isatty(STDERR_FILENO) != 0
    var done = 0
    /// The time the rate is measured over. A calibration of choices holds up the texts for as long as it runs, so
    /// its time is left out; one before the first text starts the clock again at its end, and one between texts
    /// (the stability experiment's second use case) stops the clock while it runs.
    private let clock = Clock()

    init(total: Int?) {
        self.total = total
    }

    private final class Clock: Sendable {
        private struct State {
            var start = Date()
            var pausedSince: Date?
            var hasTexts = false
        }
        private let state = Mutex(State())

        /// Seconds since the start, less the time the clock was stopped (a resumed pause moves the start on).
        var elapsed: TimeInterval {
            state.withLock { state in
                let now = Date()
                return now.timeIntervalSince(state.start) - (state.pausedSince.map { now.timeIntervalSince($0) } ?? 0)
            }
        }

        func textDone() { state.withLock { $0.hasTexts = true } }

        func stop() { state.withLock { if $0.pausedSince == nil { $0.pausedSince = Date() } } }

        func resume() {
            state.withLock { state in
                let now = Date()
                if !state.hasTexts {
                    state = State(start: now)
                } else if let since = state.pausedSince {
                    state.start += now.timeIntervalSince(since)
                    state.pausedSince = nil
                }
            }
        }
    }

    /// Draws how far a calibration of choices has got on a line of its own (a ``Tagger``'s `calibrationProgress`),
    /// and leaves its time out of the texts' rate.
    var calibration: @Sendable (_ done: Int, _ total: Int) -> Void {
        let clock = clock
        return { done, total in
            Self.drawCalibration(done: done, total: total)
            if done == 0 { clock.stop() }
            if done == total { clock.resume() }
        }
    }

    mutating func advance() {
        done += 1
        clock.textDone()
        guard isEnabled else { return }
        let elapsed = clock.elapsed
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        guard let total else {
            Console.note(String(format: "\r%d %@%@ ", done, done == 1 ? "text" : "texts", rate > 0 ? String(format: "  %.1f texts/s", rate) : ""))
            return
        }
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let width = 24
        let filled = total > 0 ? width * done / total : width
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let pace = rate > 0 ? String(format: "  %.1f texts/s  ETA %ds", rate, Int(eta)) : ""
        let line = String(format: "\r[%@] %d/%d%@ ", bar, done, total, pace)
        Console.note(line)
    }

    /// Writes `message` on its own line on stderr when stderr is a terminal: work before the texts (a label
    /// glossary being written) would otherwise leave the terminal silent.
    @Sendable static func status(_ message: String) {
        guard isatty(STDERR_FILENO) != 0 else { return }
        Console.note(message + "\n")
    }

    /// Draws how far the calibration of choices has got on one line of stderr when stderr is a terminal: it
    /// runs before the first answer, so the progress line would otherwise stay at 0 for its whole length.
    private static func drawCalibration(done: Int, total: Int) {
        guard isatty(STDERR_FILENO) != 0, total > 0 else { return }
        // Erasing the line first: a calibration between texts starts on the line their progress is drawn on.
        let line = String(format: "\r\u{1B}[2Kcalibrating choices: %d/%d texts ", done, total)
        Console.note(line + (done == total ? "\n" : ""))
    }

    /// Erases the drawn line when stdout is the same terminal, so a result line written there starts on a clean
    /// line instead of after the bar.
    func clear() {
        guard isEnabled, done > 0, isatty(STDOUT_FILENO) != 0 else { return }
        Console.note("\r\u{1B}[2K")
    }

    func finish() {
        guard isEnabled else { return }
        Console.note("\n")
    }
}
