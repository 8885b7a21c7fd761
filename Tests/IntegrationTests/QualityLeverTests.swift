import FMEngine
import FMTagging
import Foundation
import FoundationModels
import Testing

/// The quality switches are configuration: set in-process for one task or one `TaggingConfiguration`, they
/// reach the engine's thread, and they key cached results. No environment variable is involved.
@Suite("Quality switches set in-process", .serialized, .timeLimit(.minutes(10)))
struct QualityLeverTests {
    /// Each message's decision margin in `schema` under `levers`: positive when `isPositive` says the answer is
    /// the one the lead is measured for, negative otherwise.
    private func leads(
        schema: GenerationSchema, levers: QualityLevers, calibrationTexts: [String],
        isPositive: (GeneratedContent) throws -> Bool
    ) async throws -> [Double] {
        var leads: [Double] = []
        for message in BatchCalibrationTests.messages {
            let session = LanguageModelSession(model: SystemLanguageModel(useCase: .contentTagging))
            // Tables of this run only (see BatchCalibrationTests.spamLeads).
            let response = try await CalibrationStore.$current.withValue(nil) { try await QualityLevers.$current.withValue(levers) {
                try await CalibrationSample.$texts.withValue(calibrationTexts) {
                    try await LanguageModelSession.$recordsDecisionMargins.withValue(true) {
                        try await session.respond(to: message, schema: schema, options: GenerationOptions(samplingMode: .greedy))
                    }
                }
            } }
            let margin = try #require(session.lastStatistics?.margins.first?.margin)
            leads.append(try isPositive(response.content) ? margin : -margin)
        }
        return leads
    }

    /// Each message's lead for "spam" over "ham" under `levers` (negative when "ham" won).
    private func spamLeads(levers: QualityLevers, calibrationTexts: [String] = []) async throws -> [Double] {
        try await leads(schema: BatchCalibrationTests.schema, levers: levers, calibrationTexts: calibrationTexts) {
            try $0.value(String.self, forProperty: "label") == "spam"
        }
    }

    /// A yes/no field, scored for the same messages.
    private static let booleanSchema = GenerationSchema(root: .object(.init(name: "Message", properties: [
        .init(name: "isSpam", description: "Whether the message is unsolicited advertising or fraud", node: .boolean),
    ])))

    /// Each message's lead for `true` over `false` in ``booleanSchema`` under `levers`.
    private func booleanLeads(levers: QualityLevers, calibrationTexts: [String] = []) async throws -> [Double] {
        try await leads(schema: Self.booleanSchema, levers: levers, calibrationTexts: calibrationTexts) {
            try $0.value(Bool.self, forProperty: "isSpam")
        }
    }

    @Test func aBooleanFieldDividesOutHalfOfItsJobsPriorAndNoneOfTheOrdinaryTexts() async throws {
        _ = DefaultModel.model
        let sample = BatchCalibrationTests.ordinary + BatchCalibrationTests.unsolicited
        var whole = QualityLevers()
        whole.discountsBooleanPriors = false
        var none = QualityLevers()
        none.calibratesChoices = false
        let half = try await booleanLeads(levers: QualityLevers(), calibrationTexts: sample)
        let full = try await booleanLeads(levers: whole, calibrationTexts: sample)
        let raw = try await booleanLeads(levers: none, calibrationTexts: sample)
        // Each lead is the raw one less a share of the prior's log-odds: half of it lies midway.
        for index in half.indices {
            #expect(abs(half[index] - (full[index] + raw[index]) / 2) < 0.05,
                    "\(BatchCalibrationTests.messages[index]): \(raw[index]) \(half[index]) \(full[index])")
        }
        // The prior moves the leads by more than the tolerance above, so the midpoint tells half from whole.
        #expect(zip(full, raw).contains { abs($0 - $1) > 0.2 }, "the batch prior barely moved a lead: \(full) \(raw)")
        // Without a sample of the job's texts the prior is the ordinary texts', and none of it is divided out.
        let single = try await booleanLeads(levers: QualityLevers())
        let singleRaw = try await booleanLeads(levers: none)
        let singleWhole = try await booleanLeads(levers: whole)
        #expect(zip(single, singleRaw).allSatisfy { abs($0 - $1) < 0.05 }, "\(single) \(singleRaw)")
        #expect(zip(single, singleWhole).contains { abs($0 - $1) > 0.2 }, "\(single) \(singleWhole)")
    }

    @Test func switchingCalibrationOffInProcessChangesEveryLeadByOnePrior() async throws {
        _ = DefaultModel.model
        var uncalibrated = QualityLevers()
        uncalibrated.calibratesChoices = false
        let on = try await spamLeads(levers: QualityLevers())
        let off = try await spamLeads(levers: uncalibrated)
        // Calibration subtracts the prior's log-odds from every lead, so every lead moves (by about
        // one constant: cached prefixes evaluated along other paths move the last digits).
        let shifts = zip(on, off).map { $0 - $1 }
        for shift in shifts { #expect(abs(shift) > 1e-3, "calibration off left a lead unchanged: \(on) \(off)") }
        #expect(shifts.allSatisfy { $0 > 0 } || shifts.allSatisfy { $0 < 0 }, "\(shifts)")
    }

    @Test func channelScoresJoinOrReplaceTheDirectOnes() async throws {
        _ = DefaultModel.model
        // Uncalibrated, a lead is the difference of the two values' scores: the direct one, the channel one, or
        // their sum. So combined minus direct is the channel's lead, on every message.
        var direct = QualityLevers()
        direct.calibratesChoices = false
        var only = direct, combined = direct
        only.channel = .only
        combined.channel = .combined
        let directLeads = try await spamLeads(levers: direct)
        let channelLeads = try await spamLeads(levers: only)
        let combinedLeads = try await spamLeads(levers: combined)
        print("direct \(directLeads)\nchannel \(channelLeads)\ncombined \(combinedLeads)")
        for index in directLeads.indices {
            // Cached prefixes evaluated along other paths move the last digits of the direct scores.
            #expect(abs(combinedLeads[index] - directLeads[index] - channelLeads[index]) < 0.05,
                    "\(BatchCalibrationTests.messages[index]): \(directLeads[index]) + \(channelLeads[index]) ≠ \(combinedLeads[index])")
        }
        #expect(channelLeads != directLeads)
        var keyed = TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: BatchCalibrationTests.schema)
        let plain = keyed.fingerprint
        keyed.levers.channel = .combined
        #expect(keyed.fingerprint != plain)
    }

    @Test func batchCalibrationSwitchedOffIgnoresTheSample() async throws {
        _ = DefaultModel.model
        var unsampled = QualityLevers()
        unsampled.calibratesByBatch = false
        let sampled = try await spamLeads(levers: QualityLevers(), calibrationTexts: BatchCalibrationTests.unsolicited)
        let ignored = try await spamLeads(levers: unsampled, calibrationTexts: BatchCalibrationTests.unsolicited)
        let single = try await spamLeads(levers: QualityLevers())
        #expect(ignored == single)
        #expect(sampled != single)
    }

    @Test func referenceCalibrationSwitchedOffUsesContentFreeInputs() async throws {
        _ = DefaultModel.model
        var contentFree = QualityLevers()
        contentFree.calibratesByReference = false
        let reference = try await spamLeads(levers: QualityLevers())
        let empty = try await spamLeads(levers: contentFree)
        // Another prior: every lead moves, all by about the difference of the two priors' log-odds.
        let shifts = zip(reference, empty).map { $0 - $1 }
        let shift = try #require(shifts.first)
        #expect(abs(shift) > 1e-4, "\(reference) \(empty)")
        for other in shifts { #expect(abs(other - shift) < 0.05, "\(shifts)") }
        // A sample of the job's own texts still wins over either.
        let sampled = try await spamLeads(levers: contentFree, calibrationTexts: BatchCalibrationTests.unsolicited)
        let sampledByDefault = try await spamLeads(levers: QualityLevers(), calibrationTexts: BatchCalibrationTests.unsolicited)
        #expect(zip(sampled, sampledByDefault).allSatisfy { abs($0 - $1) < 1e-6 }, "\(sampled) \(sampledByDefault)")
    }

    @Test func aConfigurationsSwitchesKeyItsResults() {
        let base = TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: BatchCalibrationTests.schema)
        var ablation = base
        ablation.levers.taskAwarePrompts = false
        #expect(base.fingerprint != ablation.fingerprint)
        // With batch calibration off the sample changes nothing, so it does not split the cache either.
        var off = base
        off.levers.calibratesByBatch = false
        var offSampled = off
        offSampled.calibrationTexts = BatchCalibrationTests.unsolicited
        #expect(off.fingerprint == offSampled.fingerprint)
    }

    @Test func aConfigurationTakesTheSwitchesOfTheTaskThatMakesIt() {
        var levers = QualityLevers()
        levers.choiceScore = .mean
        let configuration = QualityLevers.$current.withValue(levers) {
            TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: BatchCalibrationTests.schema)
        }
        #expect(configuration.levers.choiceScore == .mean)
    }
}
