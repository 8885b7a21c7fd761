import FMEngine
import FMLlama
import FMTagging
import Foundation
import FoundationModels
import Testing

/// Few-shot examples and calibration: a job's texts are read after examples, so its calibration texts are too —
/// each after the fixed examples and its own most similar ones — or the prior divided out is not the one the
/// job's answers carry.
@Suite("Calibration of few-shot jobs", .serialized, .timeLimit(.minutes(10)))
struct FewShotCalibrationTests {
    private func result(_ label: String) throws -> GeneratedContent {
        try GeneratedContent(json: #"{"label":"\#(label)"}"#)
    }

    private func configuration(calibrationTexts: [String] = []) throws -> TaggingConfiguration {
        let index = ExampleIndex(examples: [
            .init(id: "a", text: "WIN a free phone! Text WIN to 80080 now", result: try result("spam")),
            .init(id: "b", text: "Running late, see you at the station", result: try result("ham")),
            .init(id: "c", text: "Your prize is waiting, call 09061 now to claim", result: try result("spam")),
            .init(id: "d", text: "Did you feed the cat this morning?", result: try result("ham")),
        ], shots: 2)
        return TaggingConfiguration(
            model: SystemLanguageModel(useCase: .contentTagging), schema: BatchCalibrationTests.schema,
            examples: [(text: "Lunch tomorrow at noon?", result: try result("ham"))], exampleIndex: index,
            calibrationTexts: calibrationTexts)
    }

    /// A transcript's example turns as role and text, the way a session renders them.
    private func turns(of transcript: Transcript) -> [String] {
        transcript.compactMap { entry in
            switch entry {
            case .prompt(let prompt):
                prompt.segments.compactMap { if case .text(let text) = $0 { "user: " + text.content } else { nil } }.joined()
            case .response(let response):
                response.segments.compactMap { if case .structure(let value) = $0 { "assistant: " + value.content.compactJSONString } else { nil } }.joined()
            default:
                nil
            }
        }
    }

    @Test func aCalibrationTextGetsTheTurnsAJobTextGets() throws {
        let tagger = Tagger(configuration: try configuration())
        let context = try #require(tagger.calibrationContext)
        for text in ["Free prize, call now to WIN", "Running late again, sorry", "Did you feed the cat this morning?"] {
            let turns = context.turns(text).map { $0.role + ": " + $0.content }
            #expect(turns == self.turns(of: tagger.startingTranscript(for: text)), "\(text)")
            #expect(turns.count == 6, "the fixed example and two of the index")
            #expect(!turns.contains("user: " + text), "a calibration text is never its own example")
        }
        // Without examples a calibration text is read after the instructions alone.
        let plain = Tagger(configuration: TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging),
                                                                schema: BatchCalibrationTests.schema))
        #expect(plain.calibrationContext == nil)
        // Indexes of the same examples share a calibration table (in this process and, stored, in later ones);
        // an index of other examples does not.
        let same = Tagger(configuration: try configuration())
        #expect(same.calibrationContext?.key == context.key)
        var relabelled = try configuration()
        relabelled.exampleIndex = ExampleIndex(examples: try relabelled.exampleIndex!.examples.map {
            var example = $0
            if example.id == "d" { example.result = try result("spam") }
            return example
        }, shots: 2)
        #expect(Tagger(configuration: relabelled).calibrationContext?.key != context.key)
    }

    @Test func examplesMoveThePriorOfEveryCalibrationText() async throws {
        _ = DefaultModel.model
        // The same job calibrated by the same sample, its calibration texts read with and without their
        // examples: the two priors differ, so every decision's lead moves, and by one constant.
        let configuration = try configuration(calibrationTexts: BatchCalibrationTests.ordinary)
        let tagger = Tagger(configuration: configuration)
        func leads(context: CalibrationSample.Context?) async throws -> [Double] {
            var leads: [Double] = []
            for message in BatchCalibrationTests.messages {
                let session = LanguageModelSession(model: configuration.model, transcript: tagger.startingTranscript(for: message))
                let response = try await CalibrationSample.$texts.withValue(configuration.calibrationTexts) {
                    try await CalibrationSample.$context.withValue(context) {
                        try await LanguageModelSession.$recordsDecisionMargins.withValue(true) {
                            try await session.respond(to: message, schema: configuration.schema, options: configuration.options)
                        }
                    }
                }
                let margin = try #require(session.lastStatistics?.margins.first?.margin)
                leads.append(try response.content.value(String.self, forProperty: "label") == "spam" ? margin : -margin)
            }
            return leads
        }
        // A prompt evaluated from another cached prefix rounds differently (0.01 in a lead on one machine, 0.24
        // on an AVX-512 one). First passes compute both calibration tables (whose runs leave their own prefixes
        // in the cache) and leave the cache as each measured pass then finds it, so each message is evaluated
        // from the same prefix both times and only the prior differs.
        _ = try await leads(context: tagger.calibrationContext)
        _ = try await leads(context: nil)
        let withExamples = try await leads(context: tagger.calibrationContext)
        let without = try await leads(context: nil)
        let shifts = zip(withExamples, without).map { $0 - $1 }
        print("spam leads, calibration texts read with examples: \(withExamples)\nwithout: \(without)")
        // One constant, while the prior moved each lead by about 0.5.
        let shift = shifts.sorted()[shifts.count / 2]
        #expect(abs(shift) > 0.1, "the examples change the prior: \(shifts)")
        #expect(shifts.allSatisfy { abs($0 - shift) < 0.05 }, "\(shifts)")
    }
}
