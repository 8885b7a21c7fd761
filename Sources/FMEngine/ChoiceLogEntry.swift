import Foundation

/// One scored choice as `FM_LOG_CHOICES=1` writes it to standard error: a line `--- choice ` and a JSON object
/// with every candidate's token log-probabilities, before any prior is divided out.
///
/// The calibration runs write their lines too, so a job's log holds what its priors are computed from as well as
/// what its texts scored; `scripts/replay-choices.py` recomputes the decisions from such a log under other ways
/// of dividing out the prior, without running the model again. Large label sets are logged as shortlisted:
/// `FM_SHORTLIST=N` with N at least the set's size scores, and logs, every value.
struct ChoiceLogEntry: Encodable {
    /// A candidate value and its tokens' log-probabilities, in order.
    struct Candidate: Encodable {
        /// The JSON literal, quotes included.
        var value: String
        /// Each token's log-probability.
        var tokens: [Double]
    }

    /// Whether the run estimated a prior (a calibration text) rather than answered a job's text.
    var calibration: Bool
    /// The property the choice fills.
    var property: String
    /// What of the value was written before the choice (the opening quote of a string).
    var written: String
    /// The user's text of the request, or the calibration text.
    var text: String
    /// The candidates scored, in the order they were scored.
    var candidates: [Candidate]

    /// Whether `FM_LOG_CHOICES=1` is set.
    static let isEnabled = ProcessInfo.processInfo.environment["FM_LOG_CHOICES"] == "1"

    /// The line written: the marker, then the entry as JSON with sorted keys.
    var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "--- choice " + json + "\n"
    }

    /// Writes ``line`` to standard error.
    func write() {
        try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
    }
}
