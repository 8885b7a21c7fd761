import FMLlama
import Synchronization

/// How likely each fixed answer is when the text says nothing: the prior that contextual calibration
/// divides out (Zhao et al., "Calibrate before use", 2021).
///
/// A small model prefers some labels whatever the text — the first listed, the shortest, the most common in
/// its training data. Scoring every candidate once for content-free inputs under the same instructions and
/// schema, and subtracting those log-probabilities from the real ones, leaves what the text itself adds.
/// Tables are computed once per model, schema and instructions, and cached in ``LoadedModel``.
struct ChoiceCalibration: Sendable {
    /// Inputs that carry no content; their scores are averaged.
    static let contentFreeTexts = ["N/A", "[MASK]", "..."]

    /// Per choice site, per candidate literal: the mean token log-probabilities over the content-free inputs.
    private(set) var priors: [ChoicePoints.Site: [[UInt8]: [Double]]] = [:]

    /// The prior token log-probabilities of a candidate, if it was scored at that site.
    func prior(at site: ChoicePoints.Site, literal: [UInt8]) -> [Double]? {
        priors[site]?[literal]
    }

    /// Adds one content-free run's scores, averaging with earlier runs token by token.
    mutating func add(_ recorded: [ChoicePoints.Site: [[UInt8]: [Double]]], runs: Int) {
        for (site, candidates) in recorded {
            for (literal, scores) in candidates {
                if let known = priors[site]?[literal], known.count == scores.count {
                    priors[site, default: [:]][literal] = zip(known, scores).map { ($0 * Double(runs) + $1) / Double(runs + 1) }
                } else {
                    priors[site, default: [:]][literal] = scores
                }
            }
        }
    }
}

/// Collects the scores of every candidate at every choice point of a content-free run.
final class CalibrationRecorder: Sendable {
    private let recorded = Mutex<[ChoicePoints.Site: [[UInt8]: [Double]]]>([:])

    func record(site: ChoicePoints.Site, literal: [UInt8], scores: [Double]) {
        recorded.withLock { $0[site, default: [:]][literal] = scores }
    }

    var scores: [ChoicePoints.Site: [[UInt8]: [Double]]] { recorded.withLock { $0 } }
}
