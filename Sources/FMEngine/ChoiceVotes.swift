import Foundation

/// What a caller's labelled examples say about the text being classified: the answers of its most similar
/// examples, mixed into whole-value choices beside the model's calibrated preference (k-nearest-neighbour votes).
///
/// A choice among `literals` at property `p` is decided by `(1 − w)·softmax(scores) + w·share`, where `scores` are
/// the calibrated candidate scores, `share` each literal's part of the vote and `w` the property's weight.
/// Calibration runs never vote: their scores are the prior.
package struct ChoiceVotes: Sendable, Hashable {
    /// Per property, per JSON literal (`"spam"`, `true`): its share of the votes, the shares summing to at most 1.
    package var shares: [String: [[UInt8]: Double]]
    /// Per property, how much the votes weigh against the model's probabilities, from 0 to 1.
    package var weights: [String: Double]

    /// Creates votes.
    package init(shares: [String: [[UInt8]: Double]], weights: [String: Double]) {
        self.shares = shares
        self.weights = weights
    }

    /// The votes for requests made in this task (bound around one text's request), or `nil` for none.
    @TaskLocal package static var current: ChoiceVotes?

    /// Whether the votes can move a choice of `property`.
    package func votes(on property: String) -> Bool {
        (weights[property] ?? 0) > 0 && shares[property]?.values.contains { $0 > 0 } == true
    }

    /// The shares of `property`'s literals that can still move a choice: none when the property has no votes,
    /// and none for the elements of an array already written (`earlier`), whose votes are spent.
    package func liveShares(on property: String, earlier: [[UInt8]] = []) -> [[UInt8]: Double] {
        guard votes(on: property), var shares = shares[property] else { return [:] }
        for literal in earlier { shares[literal] = nil }
        return shares
    }

    /// `scores`, the calibrated scores of `literals` at a choice of `property`, as the log of their mix with the
    /// votes; `scores` unchanged when the property has no votes or no score is finite. A literal with no score
    /// (`-inf`) keeps only its vote. In an array, the votes for the elements already written (`earlier`) are
    /// spent: a label the examples agree on is pushed once, not again as every further element.
    package func mixed(_ scores: [Double], literals: [[UInt8]], property: String, earlier: [[UInt8]] = []) -> [Double] {
        guard votes(on: property), scores.count == literals.count, let top = scores.filter(\.isFinite).max() else { return scores }
        let shares = liveShares(on: property, earlier: earlier)
        let weight = min(1, weights[property] ?? 0)
        let exponentials = scores.map { $0.isFinite ? exp($0 - top) : 0 }
        let total = exponentials.reduce(0, +)
        return zip(exponentials, literals).map { exponential, literal in
            log((1 - weight) * exponential / total + weight * (shares[literal] ?? 0))
        }
    }
}
