import FMEngine
import FMTagging
import Foundation
import FoundationModels
import Synchronization
import Testing

/// Batch calibration: a tagging job's enumeration choices are calibrated by the model's mean preference over a
/// sample of the job's own texts (``TaggingConfiguration/calibrationTexts``), so the label the model favours
/// whatever the text no longer wins every text. The tests read the lead of each decision, which a prior moves.
@Suite("Batch calibration with the real tiny model", .serialized, .timeLimit(.minutes(10)))
struct BatchCalibrationTests {
    /// Short messages, half of them unsolicited offers.
    static let messages = [
        "Are we still on for lunch tomorrow at noon?",
        "WINNER!! You have been selected for a free cruise. Call 0800 555 0199 now to claim your prize.",
        "Can you pick up milk on the way home?",
        "URGENT: your account has been suspended. Reply with your PIN to reactivate it today.",
        "Happy birthday! Hope you have a great day.",
        "Congratulations, you won a £1000 gift card. Text CLAIM to 80082 before midnight.",
        "The meeting moved to 3pm, same room.",
        "Cheap loans approved in minutes, no credit check. Visit quick-cash.example now!",
    ]

    static let schema = GenerationSchema(root: .object(.init(name: "Message", properties: [
        .init(name: "label", description: "Whether the message is unsolicited advertising or fraud",
              node: .enumeration(.init(name: "Label", choices: ["ham", "spam"]))),
    ])))

    /// Ordinary messages, and unsolicited ones, to calibrate by.
    static let ordinary = [
        "See you at the station at six.", "Thanks for dinner last night, it was lovely.", "Did you feed the cat?",
        "I'll be ten minutes late, sorry.", "Mum says hi and asks when you're visiting.", "The keys are under the mat.",
        "Can we move our call to Friday?", "Good luck with the exam tomorrow!",
    ]
    static let unsolicited = [
        "FREE entry to win a new phone! Text WIN to 87121 now.", "You have won a holiday. Call 09061 701 461 to claim.",
        "Lowest mortgage rates guaranteed, apply online today!", "Your parcel is held. Pay the £2.99 fee at parcel-release.example",
        "Hot singles in your area are waiting. Reply YES.", "Claim your £500 bonus now, limited time only, T&Cs apply.",
        "Act now: your bank account will be closed unless you verify at secure-login.example",
        "Get rich quick! Earn £3000 a week from home, text JOB to 60000.",
    ]

    /// The label of each message and the decision's lead for "spam" over "ham" (negative when "ham" won).
    private func spamLeads(calibrationTexts: [String]) async throws -> [(label: String, lead: Double)] {
        let configuration = TaggingConfiguration(
            model: SystemLanguageModel(useCase: .contentTagging), schema: Self.schema, calibrationTexts: calibrationTexts)
        var leads: [(label: String, lead: Double)] = []
        for message in Self.messages {
            let session = LanguageModelSession(model: configuration.model)
            // Tables computed in this run, never read from the disk store an earlier run of this binary filled: a
            // computed table leaves its last run's prompt in the cache, which moves the first message's lead (llama.cpp's
            // products differ with the batch size a cached prefix was evaluated in).
            let response = try await CalibrationStore.$current.withValue(nil) {
                try await CalibrationSample.$texts.withValue(calibrationTexts) {
                    try await LanguageModelSession.$recordsDecisionMargins.withValue(true) {
                        try await session.respond(to: message, schema: configuration.schema, options: configuration.options)
                    }
                }
            }
            let label = try response.content.value(String.self, forProperty: "label")
            // The label is the response's only decision: everything around it is forced.
            let margins = session.lastStatistics?.margins ?? []
            #expect(margins.count == 1, "\(response.rawContent.compactJSONString): \(margins)")
            let margin = try #require(margins.first?.margin)
            leads.append((label, label == "spam" ? margin : -margin))
        }
        return leads
    }

    @Test func theSampleIsThePriorThatChoicesAreDividedBy() async throws {
        _ = DefaultModel.model
        // Calibrated by unsolicited messages, "spam" is the label the model expects anyway and has to be earned;
        // calibrated by ordinary ones, "ham" is. Dividing out a prior moves every text's lead for "spam" by the
        // same amount, the difference between the two priors' log-odds: so the leads under the two samples
        // differ by one constant, and not by zero.
        let strict = try await spamLeads(calibrationTexts: Self.unsolicited)
        let lenient = try await spamLeads(calibrationTexts: Self.ordinary)
        let shifts = zip(strict, lenient).map { $1.lead - $0.lead }
        print("spam leads calibrated by unsolicited messages: \(strict.map(\.lead))\nby ordinary messages: \(lenient.map(\.lead))")
        let shift = try #require(shifts.first)
        // The tiny model barely reads the text, so its two priors differ little; but they differ, in this direction.
        #expect(shift > 1e-4, "the ordinary messages' prior favours spam less: \(shifts)")
        for (message, other) in zip(Self.messages, shifts) {
            #expect(abs(other - shift) < 1e-6, "\(message): shifted by \(other), the first message by \(shift)")
        }
    }

    @Test func tooSmallASampleFallsBackToTheReferenceTexts() async throws {
        _ = DefaultModel.model
        // Seven texts are under the minimum: the result is a single request's, as with no texts at all.
        let few = try await spamLeads(calibrationTexts: Array(Self.unsolicited.prefix(7)))
        let none = try await spamLeads(calibrationTexts: [])
        #expect(few.map(\.lead) == none.map(\.lead))
    }

    @Test func aSingleRequestIsCalibratedByTheReferenceTexts() async throws {
        _ = DefaultModel.model
        // Without a sample, the prior is the mean over the ordinary texts of `CalibrationSample.reference`: the
        // same leads as a job that samples exactly those texts, and other leads than a job sampling unsolicited ones.
        let single = try await spamLeads(calibrationTexts: [])
        let reference = try await spamLeads(calibrationTexts: CalibrationSample.reference)
        let unsolicited = try await spamLeads(calibrationTexts: Self.unsolicited)
        for (message, (one, other)) in zip(Self.messages, zip(single, reference)) {
            #expect(abs(one.lead - other.lead) < 1e-6, "\(message): \(one.lead) alone, \(other.lead) sampled")
        }
        #expect(zip(single, unsolicited).allSatisfy { abs($0.lead - $1.lead) > 1e-4 }, "\(single) \(unsolicited)")
    }

    @Test func aTaggerIsToldHowFarCalibrationHasGotOnce() async throws {
        _ = DefaultModel.model
        // Texts no other test calibrates by, so the table is computed here and not read from the model's cache.
        let texts = Self.ordinary.map { $0 + " (progress)" }
        let calls = Mutex<[[Int]]>([])
        var tagger = Tagger(
            configuration: TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: Self.schema,
                                                calibrationTexts: texts),
            calibrationProgress: { done, total in calls.withLock { $0.append([done, total]) } })
        // A table an earlier run of this test stored would be read instead of computed.
        tagger.storesCalibration = false
        for message in Self.messages.prefix(2) {
            guard case .success(let content) = await tagger.tag(message) else { Issue.record("\(message) failed"); return }
            #expect(["ham", "spam"].contains(try content.value(String.self, forProperty: "label")))
        }
        // One report when the eight runs start and one after each; the second text reads the stored table.
        #expect(calls.withLock { $0 } == (0...texts.count).map { [$0, texts.count] })
        // A text that needs no table tells nothing.
        let free = Tagger(configuration: TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging),
                                                              schema: TaggingPreset.contentTagging.schema, calibrationTexts: texts),
                          calibrationProgress: { done, total in calls.withLock { $0.append([done, total]) } })
        _ = await free.tag(Self.messages[0])
        #expect(calls.withLock { $0.count } == texts.count + 1)
    }

    /// The stability experiment's `.general` conditions prompt differently from its `.contentTagging` ones, so each
    /// use case computes a table of its own, and the caller is told how far each has got; the greedy and sampled
    /// conditions and every run share their use case's table.
    @Test func theStabilityExperimentTellsHowFarEachCalibrationHasGot() async throws {
        _ = DefaultModel.model
        let texts = Self.ordinary.map { $0 + " (stability)" }
        let calls = Mutex<[[Int]]>([])
        let experiment = StabilityExperiment(
            base: TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: Self.schema, calibrationTexts: texts),
            runs: 2, seed: 3)
        let examples = Self.messages.prefix(2).enumerated().map { index, text in
            LabelledExample(record: TaggingRecord(id: "\(index)", text: .success(text)), gold: .single(index == 0 ? "ham" : "spam"))
        }
        var tagged = 0
        // Computed here, not read from a table an earlier run of this test stored.
        let report = try await CalibrationStore.$current.withValue(nil) {
            try await experiment.run(examples, progress: { tagged += 1 },
                                     calibrationProgress: { done, total in calls.withLock { $0.append([done, total]) } })
        }
        #expect(tagged == examples.count * 2 * experiment.conditions.count)
        #expect(report.conditions.count == 4)
        let sequence = (0...texts.count).map { [$0, texts.count] }
        #expect(calls.withLock { $0 } == sequence + sequence)
    }

    @Test func calibrationTextsKeyTheCache() {
        let base = TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: Self.schema)
        var sampled = base
        sampled.calibrationTexts = TaggingConfiguration.sample(of: Self.messages)
        #expect(base.fingerprint != sampled.fingerprint)
        // Free tags have no choices to calibrate: the texts change nothing, so results stay shared between jobs.
        var tags = base, sampledTags = sampled
        tags.schema = TaggingPreset.contentTagging.schema
        sampledTags.schema = TaggingPreset.contentTagging.schema
        #expect(tags.fingerprint == sampledTags.fingerprint)
        // Too few texts are calibrated as a single request, as with none.
        var few = base
        few.calibrationTexts = Array(Self.messages.prefix(7))
        #expect(few.fingerprint == base.fingerprint)
    }
}
