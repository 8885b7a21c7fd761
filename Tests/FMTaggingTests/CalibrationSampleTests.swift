import FMTagging
import FoundationModels
import Testing

/// How many of a job's texts estimate the label prior of batch calibration.
struct CalibrationSampleTests {
    private let texts = (0..<200).map { "text \($0)" }

    private func schema(labels: Int) -> GenerationSchema {
        let examples = (0..<labels).map {
            LabelledExample(record: TaggingRecord(id: "\($0)", text: .success("text \($0)")), gold: .single("label\($0)"))
        }
        return EvaluationTask.schema(for: examples)
    }

    @Test func smallLabelSetsSampleTwentyFourTexts() {
        #expect(TaggingConfiguration.sample(of: texts, for: schema(labels: 2)).count == 24)
        #expect(TaggingConfiguration.sample(of: texts, for: schema(labels: 16)).count == 24)
        #expect(TaggingConfiguration.sample(of: texts) == TaggingConfiguration.sample(of: texts, for: schema(labels: 3)))
    }

    @Test func largeLabelSetsSampleFortyEightTexts() {
        let sample = TaggingConfiguration.sample(of: texts, for: schema(labels: 17))
        #expect(sample.count == 48)
        #expect(Set(sample).count == 48)
        #expect(TaggingConfiguration.sample(of: texts, for: schema(labels: 150)).count == 48)
        // Multi-label sets count their label set, not the array.
        let multi = EvaluationTask.schema(for: [LabelledExample(record: TaggingRecord(id: "1", text: .success("x")),
                                                                gold: .set((0..<28).map { "emotion\($0)" }))])
        #expect(TaggingConfiguration.sample(of: texts, for: multi).count == 48)
    }

    @Test func shortInputsKeepEveryTextAndTagListsTakeTheUsualSample() {
        #expect(TaggingConfiguration.sample(of: Array(texts.prefix(30)), for: schema(labels: 150)).count == 30)
        #expect(TaggingConfiguration.sample(of: texts, for: TaggingPreset.contentTagging.schema).count == 24)
    }
}
