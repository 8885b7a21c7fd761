import FMCache
@testable import FMTagging
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
        // A copy that differs only in case or spacing (a trailing space, a doubled one, a line break) is the same text.
        for copy in ["free prize call now ", " Free prize  call now", "FREE PRIZE CALL NOW\n", "free\tprize call now"] {
            #expect(!index.examples(for: copy).contains { $0.id == "a" }, "\(copy)")
        }
        #expect(index.examples(for: "free prize call now!").contains { $0.id == "a" }, "another text")
    }

    /// The identity keys stored calibration tables, so it must be the same in every process for the same examples
    /// (a random one made every `fm tag --examples` run compute its table again and store one more file).
    @Test func theIdentityIsTheSameForTheSameExamplesAndShotsOnly() throws {
        let examples = [try example("a", "free prize call now"), try example("b", "call me later")]
        let identity = ExampleIndex(examples: examples, shots: 2).identity
        #expect(ExampleIndex(examples: examples, shots: 2).identity == identity)
        #expect(ExampleIndex(examples: examples, shots: 1).identity != identity)
        #expect(ExampleIndex(examples: examples.reversed(), shots: 2).identity != identity)
        var relabelled = examples
        relabelled[1].result = try GeneratedContent(json: #"{"label":"a"}"#)
        #expect(ExampleIndex(examples: relabelled, shots: 2).identity != identity)
        var reworded = examples
        reworded[0].text += "!"
        #expect(ExampleIndex(examples: reworded, shots: 2).identity != identity)
        // Ids decide nothing a text is shown: a file whose line numbers moved keeps its tables.
        var renumbered = examples
        renumbered[0].id = "7"
        #expect(ExampleIndex(examples: renumbered, shots: 2).identity == identity)
        // The same in every process: a digest of these bytes, not a value made at run time.
        #expect(identity == SHA256.hexDigest(Array(#"fit:2:19:free prize call now:13:{"label":"a"}:13:call me later:13:{"label":"b"}"#.utf8)))
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

    /// A field whose labels mix `true`/`false` with others is a field of strings: its example answers write
    /// `"true"`, as the decoder must, and so cast the votes a choice among those strings counts.
    @Test func trueAmongOtherLabelsIsAString() throws {
        let examples = ["true", "false", "unknown"].enumerated().map { index, value in
            LabelledExample(record: TaggingRecord(id: "\(index)", text: .success("t\(index)")),
                            gold: .fields(["confirmed": value, "flag": index == 2 ? "true" : value]))
        }
        let schema = EvaluationTask.schema(for: examples)
        let result = try #require(EvaluationTask.result(for: .fields(["confirmed": "true", "flag": "true"]), in: schema))
        #expect(result.jsonString == #"{"confirmed": "true", "flag": true}"#)
        #expect(ExampleIndex.choiceLiterals(of: result)["confirmed"] == [Array(#""true""#.utf8)])
        #expect(ExampleIndex.choiceLiterals(of: result)["flag"] == [Array("true".utf8)])
        // A user's schema of Boolean choices (`enum` or `const` of true and false) writes them bare, as the decoder does.
        let user = try GenerationSchema.importing(jsonSchema: #"""
            {"type":"object","properties":{"confirmed":{"enum":[true,false]},"flag":{"const":true}},"required":["confirmed","flag"]}
            """#).schema
        let bare = try #require(EvaluationTask.result(for: .fields(["confirmed": "false", "flag": "true"]), in: user))
        #expect(bare.jsonString == #"{"confirmed": false, "flag": true}"#)
    }

    /// Lines that cannot be examples (a label outside the schema, no text, another schema's result) are named,
    /// so the command can say which of the user's examples went unused.
    @Test func unusedExampleLinesAreReportedByNumber() throws {
        let schema = EvaluationTask.schema(for: [
            LabelledExample(record: TaggingRecord(id: "1", text: .success("a")), gold: .single("spam")),
            LabelledExample(record: TaggingRecord(id: "2", text: .success("b")), gold: .single("ham")),
        ])
        let input = Array("""
            {"text":"Win a free prize now","label":"spam"}
            {"text":"See you at lunch","label":"Ham"}

            {"label":"ham"}
            {"text":"Meeting moved","result":{"topic":"work"}}
            {"text":"Call me back","label":"ham"}
            """.utf8)
        let (pool, unused) = ExampleIndex.Example.parseReportingUnused(input: input, schema: schema)
        #expect(pool.map(\.text) == ["Win a free prize now", "Call me back"])
        #expect(unused == [2, 4, 5])
    }

    /// Gold label lists become examples only within the schema's limits on a list (how many labels, repeats), as
    /// `result` objects do: an example must never show an answer the decoder forbids. A list of one label is that
    /// label where the schema answers one.
    @Test func goldLabelListsMeetTheSchemasLimits() throws {
        let limited = try GenerationSchema.importing(jsonSchema: """
            {"type":"object","properties":{"labels":{"type":"array","items":{"enum":["a","b","c"]},
            "minItems":2,"maxItems":2,"uniqueItems":true}},"required":["labels"]}
            """).schema
        let input = Array("""
            {"text":"none","labels":[]}
            {"text":"one","labels":["a"]}
            {"text":"twice","labels":["a","a"]}
            {"text":"three","labels":["a","b","c"]}
            {"text":"two","labels":["a","b"]}
            """.utf8)
        let (pool, unused) = ExampleIndex.Example.parseReportingUnused(input: input, schema: limited)
        #expect(pool.map(\.text) == ["two"])
        #expect(unused == [1, 2, 3, 4])
        let single = try GenerationSchema.importing(jsonSchema: #"{"type":"object","properties":{"label":{"enum":["ham","spam"]}},"required":["label"]}"#).schema
        let listed = ExampleIndex.Example.parseReportingUnused(input: Array(#"{"text":"win now","labels":["spam"]}"#.utf8), schema: single)
        #expect(listed.examples.map(\.result.jsonString) == [#"{"label": "spam"}"#])
    }

    /// A schema whose answer is the label itself takes gold labels as examples too.
    @Test func goldLabelsBecomeExamplesOfARootEnumeration() throws {
        let schema = try GenerationSchema.importing(jsonSchema: #"{"type":"string","enum":["pos","neg"]}"#).schema
        #expect(EvaluationTask.result(for: .single("pos"), in: schema)?.jsonString == #""pos""#)
        #expect(EvaluationTask.result(for: .single("neutral"), in: schema) == nil)
    }

    /// A user's schema limits the examples the same way, whatever form its label sets take: string choices
    /// without a type, a list of choices, a Bool field, a root that names its definition.
    @Test func goldLabelsOutsideAUsersSchemaAreNoExamples() throws {
        func imported(_ json: String) throws -> GenerationSchema { try GenerationSchema.importing(jsonSchema: json).schema }
        let untyped = try imported(#"{"type":"object","properties":{"label":{"enum":["pos","neg"]}},"required":["label"]}"#)
        #expect(EvaluationTask.result(for: .single("pos"), in: untyped)?.jsonString == #"{"label": "pos"}"#)
        #expect(EvaluationTask.result(for: .single("neutral"), in: untyped) == nil)
        let typed = try imported(#"{"type":"object","properties":{"label":{"type":"string","enum":["pos","neg"]}},"required":["label"]}"#)
        #expect(EvaluationTask.result(for: .single("neutral"), in: typed) == nil)
        let list = try imported(#"{"type":"object","properties":{"labels":{"type":"array","items":{"enum":["rock","metal"]}}},"required":["labels"]}"#)
        #expect(EvaluationTask.result(for: .set(["rock"]), in: list)?.jsonString == #"{"labels": ["rock"]}"#)
        #expect(EvaluationTask.result(for: .set(["rock", "stone"]), in: list) == nil)
        let flag = try imported(#"{"type":"object","properties":{"spam":{"type":"boolean"}},"required":["spam"]}"#)
        #expect(EvaluationTask.result(for: .fields(["spam": "true"]), in: flag)?.jsonString == #"{"spam": true}"#)
        #expect(EvaluationTask.result(for: .fields(["spam": "yes"]), in: flag) == nil)
        let named = try imported(##"{"$ref":"#/$defs/R","$defs":{"R":{"type":"object","properties":{"label":{"enum":["pos","neg"]}},"required":["label"]}}}"##)
        #expect(EvaluationTask.result(for: .single("neg"), in: named)?.jsonString == #"{"label": "neg"}"#)
        #expect(EvaluationTask.result(for: .single("neutral"), in: named) == nil)
    }

    /// A schema the user chose is checked against the gold labels: values it cannot write, fields it lacks and
    /// which field is compared are said; a schema made from the labels has nothing to say.
    @Test func scoringWarningsNameWhatASchemaCannotScore() throws {
        func example(_ gold: LabelledExample.Gold) -> LabelledExample {
            LabelledExample(record: TaggingRecord(id: "1", text: .success("x")), gold: gold)
        }
        let spam = [example(.single("ham")), example(.single("spam")), example(.single("spam"))]
        #expect(EvaluationTask.scoringWarnings(for: spam, schema: EvaluationTask.schema(for: spam)).isEmpty)
        let moderation = try GenerationSchema.importing(jsonSchema: """
            {"type":"object","properties":{"flag":{"type":"string","enum":["none","review","remove"]},
             "reason":{"type":"string"}},"required":["flag","reason"]}
            """).schema
        let warnings = EvaluationTask.scoringWarnings(for: spam, schema: moderation)
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.contains { $0.contains("compared with the field `flag`") && $0.contains("reason are not scored") }, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("3 of 3 examples") && $0.contains("(ham, spam)") && $0.contains("allows none, review, remove") },
                "\(warnings)")
        let tickets = [example(.fields(["topic": "billing", "tone": "calm"])), example(.fields(["topic": "login"]))]
        let ticketSchema = try GenerationSchema.importing(jsonSchema: """
            {"type":"object","properties":{"topic":{"type":"string","enum":["billing","bug"]}},"required":["topic"]}
            """).schema
        #expect(EvaluationTask.scoringWarnings(for: tickets, schema: ticketSchema) == [
            "The schema has no field `tone`; its 1 gold values count as missing answers.",
            "1 of 2 examples have a gold value that the field `topic` cannot write (login); it allows billing, bug. Those examples count as wrong whatever the model answers.",
        ])
        let tags = [example(.set(["soup", "boiling"]))]
        let tagSchema = try GenerationSchema.importing(jsonSchema: """
            {"type":"object","properties":{"actions":{"type":"array","items":{"type":"string"}},
             "objects":{"type":"array","items":{"type":"string"}}},"required":["actions","objects"]}
            """).schema
        #expect(EvaluationTask.scoringWarnings(for: tags, schema: tagSchema)
                    == ["Each gold label set is compared with the list `actions`, the schema's first; objects are not scored."])
        #expect(EvaluationTask.scoringWarnings(for: tags, schema: ticketSchema)
                    == ["The schema has no list to compare the gold label sets with; every example scores 0."])
        // Tags are compared as scored: `Food-Safety` is the allowed `food safety`.
        let allowedTags = try GenerationSchema.importing(jsonSchema: """
            {"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","enum":["food safety","baking"]}}},"required":["tags"]}
            """).schema
        #expect(EvaluationTask.scoringWarnings(for: [example(.set(["Food-Safety", "baking"]))], schema: allowedTags).isEmpty)
        #expect(EvaluationTask.scoringWarnings(for: [example(.set(["Food-Safety", "grilling"]))], schema: allowedTags).first?
                    .contains("cannot write (grilling)") == true)
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
        // `fm tag` output of a labelled file: the gold label is the example's answer, not the model's result, as
        // `fm eval` scores it; a gold label the schema cannot write leaves the result.
        let tagged = Array("""
            {"id":"d","text":"Win a prize","label":"spam","result":{"label":"ham"}}
            {"id":"e","text":"Lunch?","label":"unsure","result":{"label":"ham"}}
            """.utf8)
        #expect(ExampleIndex.Example.parse(input: tagged, schema: schema).map(\.result.jsonString)
                    == [#"{"label": "spam"}"#, #"{"label": "ham"}"#])
    }
}
