import FMTagging
import FoundationModels
import Testing

/// Few-shot examples chosen by BM25 similarity.
struct ExampleIndexTests {
    private func example(_ id: String, _ text: String) throws -> ExampleIndex.Example {
        ExampleIndex.Example(id: id, text: text, result: try GeneratedContent(json: #"{"label":"\#(id)"}"#))
    }

    @Test func theMostSimilarExamplesComeLast() throws {
        let index = ExampleIndex(examples: [
            try example("pasta", "How long should I boil pasta?"),
            try example("bread", "Why did my bread not rise in the oven?"),
            try example("sauce", "How do I thicken a tomato pasta sauce?"),
            try example("knife", "Which knife is best for cutting onions?"),
        ], shots: 2)
        let chosen = index.examples(for: "My pasta sauce is too thin, how can I thicken it?")
        #expect(chosen.map(\.id) == ["pasta", "sauce"])
    }

    @Test func aTextNeverGetsItselfAsAnExample() throws {
        let index = ExampleIndex(examples: [try example("a", "free prize call now"), try example("b", "call me later")], shots: 2)
        #expect(!index.examples(for: "free prize call now").contains { $0.id == "a" })
        #expect(!index.examples(for: "a different text", id: "b").contains { $0.id == "b" })
    }

    @Test func termsDropCaseStopWordsAndPlurals() {
        #expect(ExampleIndex.terms(of: "The Onions and the KNIVES") == ["onion", "knive"])
    }

    @Test func goldLabelsBecomeResultsInTheEvaluationSchema() throws {
        let examples = [
            LabelledExample(record: TaggingRecord(id: "1", text: .success("win cash")), gold: .single("spam")),
            LabelledExample(record: TaggingRecord(id: "2", text: .success("see you")), gold: .single("ham")),
        ]
        let schema = EvaluationTask.schema(for: examples)
        let result = try #require(EvaluationTask.result(for: .single("spam"), in: schema))
        #expect(result.jsonString == #"{"label":"spam"}"#)
        let tags = EvaluationTask.schema(for: [LabelledExample(record: TaggingRecord(id: "1", text: .success("x")),
                                                               gold: .set((0..<50).map { "tag-\($0)" }))])
        #expect(EvaluationTask.result(for: .set(["Food-Safety"]), in: tags)?.jsonString == #"{"tags":["food safety"]}"#)
    }
}
