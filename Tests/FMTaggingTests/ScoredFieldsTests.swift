import FoundationModels
import FMTagging
import Testing

/// Which result fields gold answers are compared with: by name first, in a schema and in a result read from a
/// file alike, and through a nullable field or one of any value.
struct ScoredFieldsTests {
    private func schema(_ json: String) throws -> GenerationSchema {
        try GenerationSchema.importing(jsonSchema: json).schema
    }

    @Test func aSchemaIsScoredFromTheFieldsNamedLabelAndLabels() throws {
        let named = try schema("""
            {"type":"object","properties":{"reason":{"type":"string"},"label":{"type":"string","enum":["a","b"]},
             "keywords":{"type":"array","items":{"type":"string"}},"labels":{"type":"array","items":{"type":"string"}}},
             "required":["reason","label","keywords","labels"]}
            """)
        #expect(ScoredFields(schema: named) == ScoredFields(label: "label", list: "labels"))
        let unnamed = try schema("""
            {"type":"object","properties":{"topics":{"type":"array","items":{"type":"string"}},"flag":{"type":"boolean"}},
             "required":["topics","flag"]}
            """)
        #expect(ScoredFields(schema: unnamed) == ScoredFields(label: "flag", list: "topics"))
    }

    /// `{"type": ["string", "null"]}`, OpenAI's strict way to make a field optional, is a union: it still holds
    /// the label, as does a field of any value.
    @Test func nullableAndUntypedFieldsCanHoldTheAnswer() throws {
        let nullable = try schema("""
            {"type":"object","properties":{"reason":{"type":"string"},"label":{"type":["string","null"]},
             "labels":{"type":["array","null"],"items":{"type":"string"}}},"required":["reason","label","labels"]}
            """)
        #expect(ScoredFields(schema: nullable) == ScoredFields(label: "label", list: "labels"))
        let untyped = try schema(#"{"type":"object","properties":{"answer":{}},"required":["answer"]}"#)
        #expect(ScoredFields(schema: untyped) == ScoredFields(label: "answer", list: "answer"))
        // A field of the kind itself goes before one that can merely hold it.
        let mixed = try schema("""
            {"type":"object","properties":{"meta":{},"category":{"type":"string","enum":["a","b"]},
             "keywords":{"type":"array","items":{"type":"string"}}},"required":["meta","category","keywords"]}
            """)
        #expect(ScoredFields(schema: mixed) == ScoredFields(label: "category", list: "keywords"))
        #expect(ScoredFields(schema: try schema(#"{"type":"string"}"#)) == nil)

        let result = try GeneratedContent(json: #"{"reason":"looks like b","label":"a","labels":null}"#)
        let prediction = EvaluationTask.prediction(shapedLike: .single("a"), in: result, scoring: ScoredFields(schema: nullable))
        #expect(prediction == .single("a"))
    }

    /// A result from a file is read by the same names wherever they stand in its object; other fields only in
    /// their absence.
    @Test func aResultIsReadByNameWhateverItsOrder() throws {
        let result = try GeneratedContent(json: #"{"other":["x"],"reason":"r","labels":["a","b"],"label":"a"}"#)
        #expect(ScoredFields(result: result) == ScoredFields(label: "label", list: "labels"))
        #expect(EvaluationTask.prediction(shapedLike: .set(["a", "b"]), in: result, scoring: nil) == .set(["a", "b"]))
        let other = try GeneratedContent(json: #"{"topics":["x"],"labl":"b"}"#)
        #expect(ScoredFields(result: other) == ScoredFields(label: "labl", list: "topics"))
        // A named field that a nullable schema left null is a missing answer, as in a run of the model.
        let nulls = try GeneratedContent(json: #"{"reason":"r","keywords":["k"],"label":null,"labels":null}"#)
        #expect(ScoredFields(result: nulls) == ScoredFields(label: "label", list: "labels"))
        #expect(EvaluationTask.prediction(shapedLike: .single("a"), in: nulls, scoring: nil) == .single(EvaluationReport.missingLabel))
        #expect(EvaluationTask.prediction(shapedLike: .set(["k"]), in: nulls, scoring: nil) == .set([]))
    }

    /// The scoring warnings name the list that is compared, and why.
    @Test func theWarningsNameTheComparedList() throws {
        let tags = [LabelledExample(record: TaggingRecord(id: "1", text: .success("x")), gold: .set(["soup"]))]
        let keywordsFirst = try schema("""
            {"type":"object","properties":{"keywords":{"type":"array","items":{"type":"string"}},
             "tags":{"type":"array","items":{"type":"string"}}},"required":["keywords","tags"]}
            """)
        #expect(EvaluationTask.scoringWarnings(for: tags, schema: keywordsFirst)
                    == ["Each gold label set is compared with the list `tags`, by its name; keywords are not scored."])
    }

    /// A nullable field's values are still checked against the gold's; a root that is a union of objects is read
    /// from each result's fields, so nothing is said about fields the schema cannot tell.
    @Test func warningsLookThroughUnions() throws {
        let spam = [LabelledExample(record: TaggingRecord(id: "1", text: .success("x")), gold: .single("spam"))]
        let nullable = try schema("""
            {"type":"object","properties":{"label":{"type":["string","null"],"enum":["ham","junk",null]}},"required":["label"]}
            """)
        let warnings = EvaluationTask.scoringWarnings(for: spam, schema: nullable)
        #expect(warnings.count == 1 && warnings[0].contains("cannot write (spam)") && warnings[0].contains("allows ham, junk"), "\(warnings)")
        let union = try schema("""
            {"anyOf":[{"type":"object","properties":{"label":{"type":"string"}},"required":["label"]},
                      {"type":"object","properties":{"category":{"type":"string"}},"required":["category"]}]}
            """)
        #expect(ScoredFields(schema: union) == nil)
        #expect(EvaluationTask.scoringWarnings(for: spam, schema: union).isEmpty)
        let result = try GeneratedContent(json: #"{"label":"spam"}"#)
        #expect(EvaluationTask.prediction(shapedLike: .single("spam"), in: result, scoring: ScoredFields(schema: union)) == .single("spam"))
    }
}
