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
        #expect(result.jsonString == #"{"label": "spam"}"#)
        let tags = EvaluationTask.schema(for: [LabelledExample(record: TaggingRecord(id: "1", text: .success("x")),
                                                               gold: .set((0..<50).map { "tag-\($0)" }))])
        #expect(EvaluationTask.result(for: .set(["Food-Safety"]), in: tags)?.jsonString == #"{"tags": ["food safety"]}"#)
    }

    /// An examples file read for few-shot: each text keeps its own line's label, also after a blank line and
    /// when ids repeat, and a line with `fm tag`'s `result` gives that result.
    @Test func examplesKeepTheirOwnLinesLabels() throws {
        let input = Array("""
            {"text":"Win a free prize now","label":"spam"}

            {"text":"See you at lunch","label":"ham"}
            {"id":"x","text":"Call me back","label":"ham"}
            {"id":"x","text":"Claim your reward","label":"spam"}
            {"id":"r","text":"Meeting moved","result":{"label":"ham"}}
            """.utf8)
        let schema = EvaluationTask.schema(for: LabelledExample.parse(input: input))
        let pool = ExampleIndex.Example.parse(input: input, schema: schema)
        #expect(pool.map(\.text) == ["Win a free prize now", "See you at lunch", "Call me back", "Claim your reward", "Meeting moved"])
        #expect(pool.map(\.id) == ["1", "3", "x", "x", "r"])
        #expect(pool.map { $0.result.jsonString } == ["spam", "ham", "ham", "spam", "ham"].map { #"{"label": "\#($0)"}"# })
    }

    /// `fm eval --label-key fine --examples …`: the examples answer in the field the job is scored on.
    @Test func examplesReadTheGoldFieldTheJobNames() throws {
        let input = Array("""
            {"text":"My card was declined","label":"card","fine":"card_declined"}
            {"text":"Where is my new card?","label":"card","fine":"card_arrival"}
            """.utf8)
        let schema = EvaluationTask.schema(for: LabelledExample.parse(input: input, labelKey: "fine"))
        let pool = ExampleIndex.Example.parse(input: input, schema: schema, labelKey: "fine")
        #expect(pool.map { $0.result.jsonString } == ["card_declined", "card_arrival"].map { #"{"label": "\#($0)"}"# })
        // Without the key the coarse labels, which are not among the schema's values, give no example.
        #expect(ExampleIndex.Example.parse(input: input, schema: schema).isEmpty)
    }

    /// An `fm tag` result of another schema (another job's output given as --examples) is left out, and a result of
    /// this one is kept with its members in the schema's order.
    @Test func resultsOfAnotherSchemaAreLeftOut() throws {
        let input = Array("""
            {"id":"a","text":"printer broken","result":{"topics":["printers"],"actions":[]}}
            {"id":"b","text":"refund please","result":{"label":"billing"}}
            {"id":"c","text":"Meeting moved","result":{"label":"ham"}}
            """.utf8)
        let schema = EvaluationTask.schema(for: LabelledExample.parse(input: Array(#"{"text":"x","label":"ham"}\#n{"text":"y","label":"spam"}"#.utf8)))
        let pool = ExampleIndex.Example.parse(input: input, schema: schema)
        #expect(pool.map(\.id) == ["c"])
        #expect(pool.first?.result.jsonString == #"{"label": "ham"}"#)
    }
}
