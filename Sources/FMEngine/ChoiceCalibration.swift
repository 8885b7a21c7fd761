import FMLlama
import Foundation
import Synchronization

/// How likely each fixed answer is when the text says nothing: the prior that contextual calibration
/// divides out (Zhao et al., "Calibrate before use", 2021).
///
/// A small model prefers some labels whatever the text — the first listed, the shortest, the most common in
/// its training data. Scoring every candidate once for content-free inputs under the same instructions and
/// schema, and subtracting those log-probabilities from the real ones, leaves what the text itself adds.
/// Tables are computed once per model, schema and instructions, and cached in ``LoadedModel``.
///
/// When the caller knows texts of the kind being classified (``CalibrationSample``), the prior is instead the
/// model's mean probability for each candidate over those texts (batch calibration: Zhou et al., "Batch
/// calibration", 2023). A content-free input can itself look like one of the labels — "N/A" reads like
/// `neither` to a toxicity classifier — and dividing that label out makes it unreachable; real texts of the
/// task do not have that bias.
struct ChoiceCalibration: Sendable {
    /// Inputs that carry no content; their scores are averaged.
    static let contentFreeTexts = ["N/A", "[MASK]", "..."]

    /// Per choice site, per candidate literal: the averaged token log-probabilities of the calibration runs.
    private(set) var priors: [ChoicePoints.Site: [[UInt8]: [Double]]] = [:]

    /// The prior token log-probabilities of a candidate, if it was scored at that site.
    func prior(at site: ChoicePoints.Site, literal: [UInt8]) -> [Double]? {
        priors[site]?[literal]
    }

    /// How many runs each prior averages (a site that some runs never reach averages fewer).
    private var counts: [ChoicePoints.Site: [[UInt8]: Int]] = [:]

    /// Adds one calibration run's scores, averaging with earlier runs token by token: the mean log-probability
    /// (content-free inputs), or the log of the mean probability (a sample of real texts, where a label that a
    /// few texts strongly prefer must weigh as much as it does in them).
    mutating func add(_ recorded: [ChoicePoints.Site: [[UInt8]: [Double]]], averagingProbabilities: Bool = false) {
        for (site, candidates) in recorded {
            // Channel scores are centred log-likelihoods of the text: their mean is the prior, not a mean probability.
            let averagingProbabilities = averagingProbabilities && !site.channel
            for (literal, scores) in candidates {
                let runs = counts[site]?[literal] ?? 0
                if runs > 0, let known = priors[site]?[literal], known.count == scores.count {
                    priors[site, default: [:]][literal] = zip(known, scores).map { old, new in
                        averagingProbabilities
                            ? Self.logMeanExp(old, weight: Double(runs), new)
                            : (old * Double(runs) + new) / Double(runs + 1)
                    }
                    counts[site, default: [:]][literal] = runs + 1
                } else {
                    priors[site, default: [:]][literal] = scores
                    counts[site, default: [:]][literal] = 1
                }
            }
        }
    }
}

extension ChoiceCalibration {
    /// `log((runs·exp(old) + exp(new)) / (runs + 1))`, computed without overflow.
    static func logMeanExp(_ old: Double, weight runs: Double, _ new: Double) -> Double {
        let top = max(old, new)
        guard top.isFinite else { return top }
        return top + log((runs * exp(old - top) + exp(new - top)) / (runs + 1))
    }
}

/// Texts of the kind a job classifies, known to the caller — the other texts of a batch — from which choices
/// are calibrated instead of content-free inputs. Set it around the requests of one batch job:
///
/// ```swift
/// await CalibrationSample.$texts.withValue(sample) { … session.respond(…) … }
/// ```
///
/// Fewer than ``minimumCount`` texts give too noisy a prior; content-free inputs are used then.
package enum CalibrationSample {
    /// The sample for requests made in this task.
    @TaskLocal package static var texts: [String] = []
    /// The fewest texts a batch prior is estimated from.
    package static let minimumCount = 8
    /// The most texts the prior is estimated from for label sets of up to ``largeSetThreshold`` values: each
    /// text costs one more generation per job.
    package static let maximumCount = 24
    /// The most texts the prior is estimated from when a field has more than ``largeSetThreshold`` values: a
    /// prior over many labels needs more texts before it has seen what each label draws.
    package static let largeSetMaximumCount = 48
    /// Label sets above this size get the larger sample (the size above which choices are shortlisted).
    package static let largeSetThreshold = QualityLevers().shortlistSize

    /// `FM_CALIBRATION_SAMPLE=N`: one sample size for every job, for measurement.
    private static let environmentCount = ProcessInfo.processInfo.environment["FM_CALIBRATION_SAMPLE"].flatMap(Int.init)
        .map { max(minimumCount, $0) }

    /// The most texts the prior is estimated from when the largest field offers `choices` values.
    package static func maximumCount(choices: Int) -> Int {
        environmentCount ?? (choices > largeSetThreshold ? largeSetMaximumCount : maximumCount)
    }

    /// Up to ``maximumCount(choices:)`` of `texts`, evenly spaced, so the sample spans the whole input.
    ///
    /// - Parameter choices: The number of values of the schema's largest enumeration (0 when unknown).
    package static func sample(of texts: [String], choices: Int = 0) -> [String] {
        let count = maximumCount(choices: choices)
        guard texts.count > count else { return texts }
        return (0..<count).map { texts[$0 * texts.count / count] }
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
