import FMDecoding
package import FMEngine
import Foundation
package import FoundationModels

extension ExampleIndex {
    /// The most the votes weigh against the model's own probabilities.
    static let maximumVoteWeight = 0.5
    /// How many examples, spread over the pool, the vote weights are measured on.
    static let weightSampleCount = 200

    /// The votes of the ``votes`` examples most similar to `text` on each choice field of the answer, for the
    /// in-process engine; `nil` when there are none or no field's votes weigh anything.
    package func choiceVotes(for text: String) -> ChoiceVotes? {
        guard votes > 0, voteWeights.values.contains(where: { $0 > 0 }) else { return nil }
        let shares = neighbourShares(of: text)
        return shares.isEmpty ? nil : ChoiceVotes(shares: shares, weights: voteWeights)
    }

    /// ``shares(of:)`` of the answers of the ``votes`` examples most similar to `text`.
    private func neighbourShares(of text: String) -> [String: [[UInt8]: Double]] {
        Self.shares(of: nearest(to: text, count: votes).map { (examples[$0.index].result, $0.score) })
    }

    /// Per top-level property, per JSON literal: the answers' shares of the votes, each answer weighted by its
    /// example's similarity. An example with no word in common with the text (similarity 0) does not vote; an
    /// answer of several labels splits its example's vote among them.
    static func shares(of answers: [(result: GeneratedContent, similarity: Double)]) -> [String: [[UInt8]: Double]] {
        var shares: [String: [[UInt8]: Double]] = [:]
        var totals: [String: Double] = [:]
        for (result, similarity) in answers where similarity > 0 {
            for (property, literals) in choiceLiterals(of: result) where !literals.isEmpty {
                totals[property, default: 0] += similarity
                for literal in literals {
                    shares[property, default: [:]][literal, default: 0] += similarity / Double(literals.count)
                }
            }
        }
        return shares.reduce(into: [:]) { normalised, entry in
            let total = totals[entry.key] ?? 1
            normalised[entry.key] = entry.value.mapValues { $0 / total }
        }
    }

    /// The schema's top-level fields the engine chooses among fixed values for: enumerations, Bools and lists of
    /// them. Only these can be moved by votes.
    package static func choiceProperties(of schema: GenerationSchema) -> Set<String> {
        guard case .object(let object) = schema.resolving(schema.root) ?? schema.root else { return [] }
        func isChoice(_ node: GenerationSchema.Node?) -> Bool {
            switch node.flatMap(schema.resolving) {
            case .enumeration?, .boolean?: true
            case .string(let guides)?: guides.choices != nil
            default: false
            }
        }
        return Set(object.properties.filter { property in
            if case .array(let array)? = schema.resolving(property.node) { return isChoice(array.items) }
            return isChoice(property.node)
        }.map(\.name))
    }

    /// A result's answers at its top-level properties, as the JSON literals a choice is made among: a string's or a
    /// Boolean's, or those of an array of strings. Other values (numbers, objects, mixed arrays) cast no vote.
    static func choiceLiterals(of result: GeneratedContent) -> [String: [[UInt8]]] {
        guard case .structure(let properties, _) = result.kind else { return [:] }
        var literals: [String: [[UInt8]]] = [:]
        for (name, value) in properties {
            switch value.kind {
            case .string(let text): literals[name] = [JSONText.quoted(text)]
            case .bool(let flag): literals[name] = [Array((flag ? "true" : "false").utf8)]
            case .array(let elements):
                let strings = elements.compactMap { element -> [UInt8]? in
                    if case .string(let text) = element.kind { JSONText.quoted(text) } else { nil }
                }
                if strings.count == elements.count { literals[name] = strings }
            default: break
            }
        }
        return literals
    }

    /// How much the votes weigh on each property: the examples vote on each other, leave-one-out (up to
    /// ``weightSampleCount`` of them, spread over the pool). Where the share `r` of them whose leading vote is one of
    /// their own answers beats the share `m` of the most common answer, the weight is `(r − m) / (1 − m)`, at most
    /// ``maximumVoteWeight``; elsewhere 0. So examples that do not tell their labels apart (many labels, few
    /// examples each; ratings whose neighbours share a topic rather than a rating) leave the model's answer alone.
    func measuredVoteWeights() -> [String: Double] {
        let answers = examples.map { Self.choiceLiterals(of: $0.result) }
        var right: [String: Int] = [:]
        var asked: [String: Int] = [:]
        for position in CalibrationSample.spreadPositions(among: examples.count, count: Self.weightSampleCount) {
            let shares = neighbourShares(of: examples[position].text)
            for (property, own) in answers[position] where !own.isEmpty {
                asked[property, default: 0] += 1
                // Ties go to the literal that sorts first, so the weight does not depend on dictionary order.
                let leading = shares[property]?.max { first, second in
                    first.value != second.value ? first.value < second.value : second.key.lexicographicallyPrecedes(first.key)
                }
                if let leading, own.contains(leading.key) { right[property, default: 0] += 1 }
            }
        }
        var weights: [String: Double] = [:]
        for (property, count) in asked {
            var frequency: [[UInt8]: Int] = [:]
            var having = 0
            for answer in answers {
                guard let own = answer[property], !own.isEmpty else { continue }
                having += 1
                for literal in Set(own) { frequency[literal, default: 0] += 1 }
            }
            let common = Double(frequency.values.max() ?? 0) / Double(max(1, having))
            let agreement = Double(right[property] ?? 0) / Double(count)
            weights[property] = common < 1 ? min(Self.maximumVoteWeight, max(0, (agreement - common) / (1 - common))) : 0
        }
        return weights
    }
}
