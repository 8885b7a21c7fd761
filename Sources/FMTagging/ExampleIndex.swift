public import FoundationModels
import FMCache
import Foundation

/// Labelled examples to show the model before a text: the `shots` most similar to it by BM25, a lexical
/// ranking that needs no model (Robertson and Zaragoza, 2009).
///
/// Few-shot examples from the user's own labelled data teach a small model the label set's real meaning
/// and the data's style better than any description. The most similar example comes last, right before
/// the text. A text never gets an example of the same text (compared without regard to case or to how its words are
/// spaced, as a copy of a file often differs there), so evaluating a file with its own lines as examples is a fair
/// leave-one-out measurement. Ids do not decide it: texts of two files without ids both have line numbers as ids,
/// and line 3 of one is not line 3 of the other.
///
/// With ``votes``, the most similar examples' answers are also mixed into the engine's choice of each enumeration
/// and Bool field (k-nearest-neighbour votes, ``choiceVotes(for:)``), weighted by how well the examples predict
/// each other's answers. That needs no example in the prompt: `shots` may be 0.
public struct ExampleIndex: Sendable {
    /// An example: its id, text and the result the model should have given.
    public struct Example: Sendable {
        /// The example's identifier.
        public var id: String
        /// The example's text.
        public var text: String
        /// The result for the text, in the schema being generated.
        public var result: GeneratedContent

        /// Creates an example.
        public init(id: String, text: String, result: GeneratedContent) {
            self.id = id
            self.text = text
            self.result = result
        }
    }

    /// The examples.
    public let examples: [Example]
    /// How many examples each text gets.
    public let shots: Int
    /// How many of the most similar examples vote on each choice field's answer (0 for none): their answers are
    /// mixed into the model's calibrated preference, as far as the examples predict each other (``voteWeights``).
    public let votes: Int
    /// Per choice property of the examples' results, how much the votes weigh: how much better than the most common
    /// answer the examples' own votes predict each other, leave-one-out, at most one half.
    package private(set) var voteWeights: [String: Double] = [:]
    /// A digest of `shots` and of the examples' texts and results, in order: a key of the calibration tables
    /// computed with this index, so a later process with the same examples reads the tables an earlier one stored.
    package let identity: String

    private let documents: [[String: Int]]
    /// Each example's text as ``sameTextKey(_:)`` gives it.
    private let textKeys: [String]
    private let lengths: [Double]
    private let averageLength: Double
    private let documentFrequency: [String: Int]

    /// BM25's term-frequency saturation and length normalisation (the usual values).
    private static let k1 = 1.2
    private static let b = 0.75

    /// Indexes examples; `votes` of the most similar vote on each choice field's answer (none by default).
    public init(examples: [Example], shots: Int, votes: Int = 0) {
        self.examples = examples
        self.shots = max(0, shots)
        self.votes = max(0, votes)
        // Each part is preceded by its length, so no text can pass for two. Ids are left out: they decide neither
        // which examples a text gets nor what it is shown.
        // `fit` names how examples that do not fit the window are left out (for the job's texts and for the
        // calibration texts): results and tables computed under an earlier rule are not read as this one's.
        var identifying = Array("fit:\(self.shots)".utf8)
        for example in examples {
            for part in [example.text, example.result.compactJSONString] {
                identifying.append(contentsOf: ":\(part.utf8.count):".utf8)
                identifying.append(contentsOf: part.utf8)
            }
        }
        identity = SHA256.hexDigest(identifying)
        documents = examples.map { Self.termCounts(Self.terms(of: $0.text)) }
        textKeys = examples.map { Self.sameTextKey($0.text) }
        lengths = documents.map { Double($0.values.reduce(0, +)) }
        averageLength = lengths.isEmpty ? 1 : max(1, lengths.reduce(0, +) / Double(lengths.count))
        var frequency: [String: Int] = [:]
        for document in documents { for term in document.keys { frequency[term, default: 0] += 1 } }
        documentFrequency = frequency
        if self.votes > 0 { voteWeights = measuredVoteWeights() }
    }

    /// The examples for a text, least similar first; never an example of the text itself.
    public func examples(for text: String) -> [Example] {
        guard shots > 0 else { return [] }
        return nearest(to: text, count: shots).reversed().map { examples[$0.index] }
    }

    /// The positions of the `count` examples most similar to `text` with their BM25 scores, most similar first;
    /// never an example of the text itself.
    func nearest(to text: String, count: Int) -> [(index: Int, score: Double)] {
        guard count > 0, !examples.isEmpty else { return [] }
        // Summed in one order, so a score (and a tie between two) is the same in every process.
        let query = Set(Self.terms(of: text)).sorted()
        let key = Self.sameTextKey(text)
        let total = Double(documents.count)
        var scored: [(index: Int, score: Double)] = []
        for (index, document) in documents.enumerated() {
            if textKeys[index] == key { continue }
            var score = 0.0
            for term in query {
                guard let frequency = document[term].map(Double.init) else { continue }
                let df = Double(documentFrequency[term] ?? 0)
                let idf = log(1 + (total - df + 0.5) / (df + 0.5))
                score += idf * frequency * (Self.k1 + 1)
                    / (frequency + Self.k1 * (1 - Self.b + Self.b * lengths[index] / averageLength))
            }
            scored.append((index, score))
        }
        // Ties (no shared term at all) keep file order, so the choice is deterministic.
        return Array(scored.sorted { $0.score != $1.score ? $0.score > $1.score : $0.index < $1.index }.prefix(count))
    }

    /// A text lowercased, with its runs of white space made one space and none at either end: two texts with the
    /// same key are one text for leave-one-out.
    package static func sameTextKey(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Lowercased words of letters and digits, with a plural `s` dropped.
    package static func terms(of text: String) -> [String] {
        var terms: [String] = []
        var current = ""
        func flush() {
            guard !current.isEmpty else { return }
            if current.count > 3, current.hasSuffix("s"), !current.hasSuffix("ss") { current.removeLast() }
            if !stopWords.contains(current) { terms.append(current) }
            current = ""
        }
        for character in text.lowercased() {
            if character.isLetter || character.isNumber { current.append(character) } else { flush() }
        }
        flush()
        return terms
    }

    private static func termCounts(_ terms: [String]) -> [String: Int] {
        terms.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// Words too common to say anything about similarity.
    private static let stopWords: Set<String> = [
        "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "is", "are", "was", "were",
        "be", "it", "its", "this", "that", "i", "you", "my", "me", "we", "do", "can", "how", "what", "have", "has",
    ]
}

extension ExampleIndex.Example {
    /// The examples in labelled JSONL: each line's `result` object (`fm tag` output), or its gold labels
    /// (the field `labelKey` names, else `label` or `labels`) written as a result of `schema`. Lines with neither,
    /// or whose result or gold does not fit the schema (another job's output), are left out. Each text is paired
    /// with its own line's answer, in one pass over the lines.
    public static func parse(input: [UInt8], schema: GenerationSchema, labelKey: String? = nil) -> [Self] {
        parseReportingUnused(input: input, schema: schema, labelKey: labelKey).examples
    }

    /// What ``parse(input:schema:labelKey:)`` returns, and the numbers (from 1) of the lines it left out, blank
    /// lines aside, so a caller can say which of the user's examples were not used.
    public static func parseReportingUnused(input: [UInt8], schema: GenerationSchema, labelKey: String? = nil)
        -> (examples: [Self], unusedLines: [Int]) {
        // An answer of another schema shown as an example would teach the model fields it must not write.
        let validator = try? StructuredOutputValidator(schema: schema)
        var pool: [Self] = []
        var unused: [Int] = []
        for (number, line) in TaggingRecord.lines(in: input) {
            let record = TaggingRecord.parse(line: line, lineNumber: number)
            guard case .success(let text) = record.text else { unused.append(number); continue }
            func valid(_ result: GeneratedContent) -> GeneratedContent? {
                guard let validator else { return result }
                return try? validator.validate(result.compactJSONString)
            }
            // A gold label the schema can write comes first: `fm tag` output of a labelled file carries the
            // input's gold `label` beside the model's `result`, and `fm eval` reads that label as the answer too.
            // Gold labels written in the schema must still meet its limits (how many labels, repeats).
            if let gold = LabelledExample.parse(input: Array(line), labelKey: labelKey).first?.gold,
               let result = Self.result(for: gold, in: schema).flatMap(valid) {
                pool.append(.init(id: record.id, text: text, result: result))
            } else if let content = try? GeneratedContent(json: String(decoding: line, as: UTF8.self)),
                      case .structure(let properties, _) = content.kind, let written = properties["result"],
                      let result = valid(written) {
                pool.append(.init(id: record.id, text: text, result: result))
            } else {
                unused.append(number)
            }
        }
        return (pool, unused)
    }

    /// A gold answer written in `schema`; a list of one label is that label where the schema answers one.
    private static func result(for gold: LabelledExample.Gold, in schema: GenerationSchema) -> GeneratedContent? {
        if let result = EvaluationTask.result(for: gold, in: schema) { return result }
        guard case .set(let labels) = gold, labels.count == 1 else { return nil }
        return EvaluationTask.result(for: .single(labels[0]), in: schema)
    }
}
