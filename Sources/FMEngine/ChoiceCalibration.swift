package import FMLlama
import Foundation
import Synchronization

/// How likely each fixed answer is whatever the text: the prior that contextual calibration divides out
/// (Zhao et al., "Calibrate before use", 2021).
///
/// A small model prefers some labels whatever the text — the first listed, the shortest, the most common in
/// its training data. Scoring every candidate for inputs that say nothing in particular, under the same
/// instructions and schema, and subtracting those log-probabilities from the real ones, leaves what the text
/// itself adds. Tables are computed once per model, schema, instructions and inputs, and cached in
/// ``LoadedModel``.
///
/// By default the inputs are ordinary texts of many kinds (``CalibrationSample/reference``), and the prior is
/// the model's mean probability for each candidate over them. When the caller knows texts of the kind being classified
/// (``CalibrationSample``), the prior is instead the mean over those texts (batch calibration: Zhou et al.,
/// "Batch calibration", 2023): the task's own texts match its mix of labels, which ordinary text does not (it
/// is mostly `ham`, mostly `neither`).
struct ChoiceCalibration: Sendable, Codable {
    /// Inputs that carry no content, the prior of Zhao et al.; their log-probabilities are averaged. Used when
    /// ``QualityLevers/calibratesByReference`` is off.
    static let contentFreeTexts = ["N/A", "[MASK]", "..."]

    /// Whether the prior was read from a sample of the job's own texts (batch calibration) rather than from
    /// ordinary or content-free inputs.
    var isFromJobTexts = false

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
/// are calibrated instead of the ordinary texts of ``reference``. Set it around the requests of one batch job:
///
/// ```swift
/// await CalibrationSample.$texts.withValue(sample) { … session.respond(…) … }
/// ```
///
/// Fewer than ``minimumCount`` texts give too noisy a prior; the request is calibrated as a single one then.
package enum CalibrationSample {
    /// Everyday texts of many kinds — a message, a review, a headline, a question, an advertisement, a complaint,
    /// an insult, a joke — written for no task in particular: the prior of a request that has no sample of its
    /// job's texts, or too few of them (``QualityLevers/calibratesByReference``).
    ///
    /// Their mean probability for each label is what the model gives that label for ordinary text. Dividing it out
    /// removes the preference for short, early or common labels without the content-free inputs' blind spot: "N/A"
    /// reads like one label (`neither` to a toxicity classifier), which then becomes unreachable. A label that
    /// ordinary text nearly always takes is still divided out more than a sample of the job's own texts would.
    package static let reference = [
        "Running a bit late, see you at the station around six.",
        "The new phone's battery lasts two days, but the camera is disappointing in low light.",
        "City council approves budget for three new bus lines next spring.",
        "How long should I rest the dough before baking it?",
        "Thanks so much for the birthday flowers, they made my day!",
        "Limited offer: get 50% off all winter jackets this weekend only. Shop now.",
        "I've called support three times and nobody has fixed my internet. This is ridiculous.",
        "Our quarterly report is attached; please send comments by Friday.",
        "Scientists found that regular walks improve sleep quality in older adults.",
        "lol that game last night was insane, can't believe we lost in overtime",
        "Please remember to water the plants while I'm away.",
        "Stop posting that garbage, nobody cares about your opinion.",
        "The museum is closed on Mondays and opens at 10 am the rest of the week.",
        "I miss my grandmother's cooking so much since she passed away.",
        "Why did the scarecrow win an award? Because he was outstanding in his field.",
        "The striker scored twice as the home team won 3-1 on Saturday.",
    ]

    /// The sample for requests made in this task.
    @TaskLocal package static var texts: [String] = []

    /// The turns that precede a text in its own request, such as few-shot examples chosen for it, so each
    /// calibration text is read in the context the job's texts are read in.
    package struct Context: Sendable {
        /// Tells apart the sources of turns, for the calibration table's key.
        package var key: String
        /// The user and assistant messages before `text`.
        package var turns: @Sendable (_ text: String) -> [ChatMessage]
        /// How many of the leading messages every text gets (fixed examples): the rest are chosen per text, and
        /// only those are left out when the text would not fit.
        package var fixedCount: Int

        /// A context of `key` whose turns come from `turns`, the first `fixedCount` of them the same for every text.
        package init(key: String, fixedCount: Int = 0, turns: @escaping @Sendable (_ text: String) -> [ChatMessage]) {
            self.key = key
            self.fixedCount = fixedCount
            self.turns = turns
        }
    }

    /// The context of requests made in this task; `nil` when a text's request holds only the instructions.
    @TaskLocal package static var context: Context?
    /// Told how far a calibration table computed for a request made in this task has got: `(0, n)` when its
    /// `n` runs start, then after each run. A computation that stops early, because no request waits for it any
    /// more, ends with `(k, k)` after its `k`th run, or `(n, n)` before its first. Tables come from cache or from a computation already running
    /// without a call. A job's first answer waits for its table, one generation per calibration text, which on
    /// a large label set is long enough that a caller should say what is happening.
    @TaskLocal package static var progress: Progress?

    /// Whom ``progress`` tells. A task-local value of function type crashes optimised builds when it is
    /// bound (`swift_task_localValuePush` in Swift 6.3; swiftlang/swift#88321), so the closure travels in a struct.
    package struct Progress: Sendable {
        /// Called with the calibration texts done and their total.
        package var report: @Sendable (_ done: Int, _ total: Int) -> Void

        /// Tells `report`.
        package init(_ report: @escaping @Sendable (_ done: Int, _ total: Int) -> Void) {
            self.report = report
        }
    }
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

    /// `FM_CALIBRATION_SAMPLE=N`: one sample size for every job, for measurement (`fm` refuses a value it
    /// cannot use, ``QualityLevers/environmentMistakes(in:)``).
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
        spread(of: texts, count: maximumCount(choices: choices))
    }

    /// `count` of `texts`, evenly spaced from the first (all of them when there are no more than `count`).
    package static func spread<Element>(of texts: [Element], count: Int) -> [Element] {
        spreadPositions(among: texts.count, count: count).map { texts[$0] }
    }

    /// The positions ``spread(of:count:)`` takes among `total` elements, for input that is not held in memory.
    package static func spreadPositions(among total: Int, count: Int) -> [Int] {
        guard total > count else { return Array(0..<total) }
        return (0..<count).map { $0 * total / count }
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
