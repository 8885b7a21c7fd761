@testable import FMEngine
import Foundation
import Testing

/// Votes of a caller's most similar examples, mixed into the calibrated scores of a whole-value choice.
struct ChoiceVotesTests {
    private let literals = [Array(#""ham""#.utf8), Array(#""spam""#.utf8)]

    private func probabilities(_ scores: [Double]) -> [Double] {
        let total = scores.map(exp).reduce(0, +)
        return scores.map { exp($0) / total }
    }

    @Test func votesMixWithTheModelsProbabilitiesByTheirWeight() {
        // The model gives `ham` 0.8 and `spam` 0.2; every vote is for `spam`.
        let scores = [log(0.8), log(0.2)]
        let votes = { (weight: Double) in ChoiceVotes(shares: ["label": [literals[1]: 1]], weights: ["label": weight]) }
        let mixed = probabilities(votes(0.5).mixed(scores, literals: literals, property: "label"))
        #expect(abs(mixed[0] - 0.4) < 1e-12 && abs(mixed[1] - 0.6) < 1e-12)
        // A quarter of the weight leaves the model ahead: 0.6 against 0.4.
        let light = votes(0.25).mixed(scores, literals: literals, property: "label")
        #expect(light[0] > light[1])
        // Scores are calibrated log-scores, not log-probabilities: only their differences count.
        let shifted = votes(0.5).mixed(scores.map { $0 + 7 }, literals: literals, property: "label")
        #expect(zip(shifted, votes(0.5).mixed(scores, literals: literals, property: "label")).allSatisfy { abs($0 - $1) < 1e-12 })
    }

    @Test func aPropertyWithoutVotesKeepsItsScores() {
        let scores = [-0.3, -1.4]
        let votes = ChoiceVotes(shares: ["topic": [literals[1]: 1]], weights: ["topic": 0.5, "label": 0.5])
        #expect(votes.mixed(scores, literals: literals, property: "label") == scores)
        #expect(!votes.votes(on: "label") && votes.votes(on: "topic"))
        // Weight 0 and votes of share 0 move nothing either.
        #expect(!ChoiceVotes(shares: ["label": [literals[1]: 1]], weights: ["label": 0]).votes(on: "label"))
        #expect(!ChoiceVotes(shares: ["label": [literals[1]: 0]], weights: ["label": 0.5]).votes(on: "label"))
    }

    @Test func anArraySpendsTheVotesOfItsEarlierElements() {
        // Every vote is for `spam`, at a weight that overrules the model's 0.8 for `ham`...
        let votes = ChoiceVotes(shares: ["labels": [literals[1]: 0.9, literals[0]: 0.1]], weights: ["labels": 0.5])
        let scores = [log(0.8), log(0.2)]
        let first = votes.mixed(scores, literals: literals, property: "labels")
        #expect(first[1] > first[0])
        // ...but once `spam` is written, its votes do not push it again as the next element: what is left is the
        // model's probability and the remaining votes, 0.5 · 0.8 + 0.5 · 0.1 for `ham` against 0.5 · 0.2.
        let second = probabilities(votes.mixed(scores, literals: literals, property: "labels", earlier: [literals[1]]))
        #expect(abs(second[0] - 0.45 / 0.55) < 1e-12 && abs(second[1] - 0.1 / 0.55) < 1e-12)
    }

    @Test func aCandidateWithoutAScoreKeepsItsVote() {
        // A label the shortlist did not score (-inf) can still win on its votes.
        let votes = ChoiceVotes(shares: ["label": [literals[1]: 1]], weights: ["label": 1])
        let mixed = votes.mixed([-0.1, -.infinity], literals: literals, property: "label")
        #expect(mixed[1] > mixed[0])
    }
}
