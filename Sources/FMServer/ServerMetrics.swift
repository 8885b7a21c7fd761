import Foundation
import Synchronization

/// The server's counters, written as Prometheus text at `GET /metrics`.
final class ServerMetrics: Sendable {
    /// Upper bounds (seconds) of the request latency histogram's buckets.
    static let latencyBuckets: [Double] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]

    private struct State {
        var requests: [String: Int] = [:]
        var promptTokens = 0
        var cachedPromptTokens = 0
        var completionTokens = 0
        var bucketCounts = [Int](repeating: 0, count: ServerMetrics.latencyBuckets.count)
        var latencyCount = 0
        var latencySum = 0.0
        var tagged = 0
        var calibrationsRunning = 0
        var calibrationRuns = 0
    }

    private let state = Mutex(State())

    /// Counts a finished request on `route` with `status`, and its latency.
    func recordRequest(route: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests["route=\"\(route)\",status=\"\(status)\"", default: 0] += 1
            state.latencyCount += 1
            state.latencySum += seconds
            for (index, bound) in Self.latencyBuckets.enumerated() where seconds <= bound { state.bucketCounts[index] += 1 }
        }
    }

    /// Adds a completion's token counts.
    func recordTokens(prompt: Int, cached: Int, completion: Int) {
        state.withLock { state in
            state.promptTokens += prompt
            state.cachedPromptTokens += cached
            state.completionTokens += completion
        }
    }

    /// Counts texts answered by `/v1/tag`.
    func recordTagged(_ count: Int) {
        state.withLock { $0.tagged += count }
    }

    /// Follows a calibration of choices (``CalibrationSample/progress``, a `Tagger`'s `calibrationProgress`):
    /// running from its `(0, n)` report to its `(n, n)` one, and each finished run counted. A request whose
    /// schema has fixed answers waits for its table, once per schema, instructions and sample, so a slow first
    /// request shows here.
    var calibrationProgress: @Sendable (_ done: Int, _ total: Int) -> Void {
        // A computation that stops early (no request waits for it any more) ends with `(k, k)` after its kth run,
        // or `(n, n)` before its first: that ends it, and no run is counted for it.
        let reached = Mutex(0)
        return { [self] done, total in
            let isNextRun = reached.withLock { reached in
                defer { reached = done }
                return done == reached + 1
            }
            state.withLock { state in
                guard total > 0 else { return }
                if done == 0 { state.calibrationsRunning += 1 } else if isNextRun { state.calibrationRuns += 1 }
                if done == total { state.calibrationsRunning -= 1 }
            }
        }
    }

    /// The Prometheus text exposition, with the queue's current depth.
    func exposition(running: Int, waiting: Int, threads: Int) -> String {
        let state = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP fm_requests_total HTTP requests answered, by route and status.")
        lines.append("# TYPE fm_requests_total counter")
        for key in state.requests.keys.sorted() { lines.append("fm_requests_total{\(key)} \(state.requests[key]!)") }
        lines.append("# HELP fm_prompt_tokens_total Prompt tokens of chat completions (cached ones included).")
        lines.append("# TYPE fm_prompt_tokens_total counter")
        lines.append("fm_prompt_tokens_total \(state.promptTokens)")
        lines.append("# HELP fm_cached_prompt_tokens_total Prompt tokens reused from the KV cache.")
        lines.append("# TYPE fm_cached_prompt_tokens_total counter")
        lines.append("fm_cached_prompt_tokens_total \(state.cachedPromptTokens)")
        lines.append("# HELP fm_completion_tokens_total Tokens generated for chat completions.")
        lines.append("# TYPE fm_completion_tokens_total counter")
        lines.append("fm_completion_tokens_total \(state.completionTokens)")
        lines.append("# HELP fm_tagged_texts_total Texts answered by /v1/tag.")
        lines.append("# TYPE fm_tagged_texts_total counter")
        lines.append("fm_tagged_texts_total \(state.tagged)")
        lines.append("# HELP fm_calibrations_running Calibrations of choices being computed; requests that need one wait for it.")
        lines.append("# TYPE fm_calibrations_running gauge")
        lines.append("fm_calibrations_running \(state.calibrationsRunning)")
        lines.append("# HELP fm_calibration_runs_total Generations run to compute calibration tables of choices.")
        lines.append("# TYPE fm_calibration_runs_total counter")
        lines.append("fm_calibration_runs_total \(state.calibrationRuns)")
        lines.append("# HELP fm_request_duration_seconds Time from a request's arrival to its last byte.")
        lines.append("# TYPE fm_request_duration_seconds histogram")
        for (index, bound) in Self.latencyBuckets.enumerated() {
            lines.append("fm_request_duration_seconds_bucket{le=\"\(Self.number(bound))\"} \(state.bucketCounts[index])")
        }
        lines.append("fm_request_duration_seconds_bucket{le=\"+Inf\"} \(state.latencyCount)")
        lines.append("fm_request_duration_seconds_sum \(Self.number(state.latencySum))")
        lines.append("fm_request_duration_seconds_count \(state.latencyCount)")
        lines.append("# HELP fm_requests_running Generation requests holding a turn.")
        lines.append("# TYPE fm_requests_running gauge")
        lines.append("fm_requests_running \(running)")
        lines.append("# HELP fm_queue_depth Generation requests waiting for a turn.")
        lines.append("# TYPE fm_queue_depth gauge")
        lines.append("fm_queue_depth \(waiting)")
        lines.append("# HELP fm_evaluation_threads CPU threads the next evaluation uses (fewer while other work holds the cores).")
        lines.append("# TYPE fm_evaluation_threads gauge")
        lines.append("fm_evaluation_threads \(threads)")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
