@testable import FMServer
import Testing

/// How `/metrics` follows calibrations of choices, without a server.
struct ServerMetricsTests {
    /// The value of `metric` in `metrics`' exposition.
    private func value(_ metric: String, in metrics: ServerMetrics) -> String? {
        metrics.exposition(running: 0, waiting: 0, threads: 1).split(separator: "\n")
            .first { $0.hasPrefix(metric + " ") }.map { String($0.dropFirst(metric.count + 1)) }
    }

    @Test func aCalibrationRunsFromItsFirstReportToItsLastAndEachRunCounts() {
        let metrics = ServerMetrics()
        let follow = metrics.calibrationProgress
        follow(0, 3)
        #expect(value("fm_calibrations_running", in: metrics) == "1")
        follow(1, 3)
        follow(2, 3)
        #expect(value("fm_calibration_runs_total", in: metrics) == "2")
        follow(3, 3)
        #expect(value("fm_calibrations_running", in: metrics) == "0")
        #expect(value("fm_calibration_runs_total", in: metrics) == "3")
    }

    @Test func aCalibrationStoppedEarlyEndsWithoutTheRunsItSkipped() {
        let metrics = ServerMetrics()
        let follow = metrics.calibrationProgress
        follow(0, 16)
        follow(1, 16)
        // No request waits for it any more: it ends after its first run.
        follow(1, 1)
        #expect(value("fm_calibrations_running", in: metrics) == "0")
        #expect(value("fm_calibration_runs_total", in: metrics) == "1")
        // One stopped before its first run ends at once.
        follow(0, 16)
        follow(16, 16)
        #expect(value("fm_calibrations_running", in: metrics) == "0")
        #expect(value("fm_calibration_runs_total", in: metrics) == "1")
        // The same follower then sees another calibration from its start.
        follow(0, 2)
        follow(1, 2)
        follow(2, 2)
        #expect(value("fm_calibrations_running", in: metrics) == "0")
        #expect(value("fm_calibration_runs_total", in: metrics) == "3")
    }
}
