@testable import FMEngine
import Testing

/// The quality switches' fingerprint, which keys cached results.
struct QualityLeversTests {
    /// A misspelt switch or value in the environment is named; the valid ones are not.
    @Test func environmentMistakesAreNamed() {
        #expect(QualityLevers.environmentMistakes(in: [:]).isEmpty)
        // An empty value is how a variable is unset for one command.
        #expect(QualityLevers.environmentMistakes(in: ["FM_SHORTLIST": "", "FM_CHANNEL": "", "FM_DISABLE": ""]).isEmpty)
        #expect(QualityLevers.environmentMistakes(in: [
            "FM_DISABLE": "calibration, label-glossary", "FM_ENABLE": "prompt-lookup", "FM_CHANNEL": "only",
            "FM_CHOICE_SCORE": QualityLevers.ChoiceScore.allCases[0].rawValue, "FM_SHORTLIST": "32", "FM_CALIBRATION_WEIGHT": "0.5",
            "FM_CALIBRATION_SAMPLE": "\(CalibrationSample.minimumCount)",
        ]).isEmpty)
        let mistakes = QualityLevers.environmentMistakes(in: [
            "FM_DISABLE": "calibration,exampels", "FM_ENABLE": "lookup", "FM_CHANNEL": "both", "FM_SHORTLIST": "1",
            "FM_CALIBRATION_WEIGHT": "heavy", "FM_CALIBRATION_SAMPLE": "many",
        ])
        #expect(mistakes.count == 6, "\(mistakes)")
        #expect(mistakes.contains { $0.hasPrefix("FM_CALIBRATION_SAMPLE=many is not a whole number") }, "\(mistakes)")
        let small = QualityLevers.environmentMistakes(in: ["FM_CALIBRATION_SAMPLE": "-1"])
        let fewest = CalibrationSample.minimumCount
        #expect(small == ["FM_CALIBRATION_SAMPLE=-1 is below \(fewest), the fewest texts a prior is estimated from."])
        #expect(QualityLevers.environmentMistakes(in: ["FM_CALIBRATION_WEIGHT": "inf"]).count == 1)
        #expect(QualityLevers.environmentMistakes(in: ["FM_LOG_CHOICES": "1", "FM_LOG_THREADS": "0"]).isEmpty)
        #expect(QualityLevers.environmentMistakes(in: ["FM_LOG_CHOICES": "true", "FM_LOG_THREADS": "yes"]).count == 2)
        #expect(QualityLevers.environmentMistakes(in: ["FM_CALIBRATION_CACHE": "/dev/null"]).count == 1)
        #expect(QualityLevers.environmentMistakes(in: ["FM_CALIBRATION_CACHE": "/tmp", "FM_LOG_CHOICES": ""]).isEmpty)
        #expect(mistakes.contains { $0.hasPrefix("FM_DISABLE names 'exampels'") }, "\(mistakes)")
        #expect(mistakes.contains { $0.hasPrefix("FM_CHANNEL=both is not one of") }, "\(mistakes)")
    }

    @Test func everySwitchAndScoreChangesTheFingerprint() {
        let base = QualityLevers()
        let switches: [WritableKeyPath<QualityLevers, Bool>] = [
            \.holdsBackBoundaryTokens, \.usesTaggingExamples, \.describesTaggingSchemaInSystemText, \.scoresChoices,
            \.taskAwarePrompts, \.sortsChoices, \.calibratesChoices, \.calibratesByBatch, \.calibratesByReference,
            \.shortlistsLargeChoiceSets, \.describesLabels, \.discountsBooleanPriors, \.draftsFromPrompt,
        ]
        var fingerprints: Set<String> = [base.fingerprint]
        for key in switches {
            var levers = base
            levers[keyPath: key].toggle()
            fingerprints.insert(levers.fingerprint)
        }
        for score in [QualityLevers.ChoiceScore.first, .mean] {
            var levers = base
            levers.choiceScore = score
            fingerprints.insert(levers.fingerprint)
        }
        #expect(fingerprints.count == 1 + switches.count + 2, "\(fingerprints.sorted())")
        #expect(QualityLevers().fingerprint == base.fingerprint)
    }

    @Test func aBooleanChoiceTakesHalfOfItsJobsPriorAndNoneOfAnother() {
        let boolean = [Array("false".utf8), Array("true".utf8)]
        let labels = [Array("\"ham\"".utf8), Array("\"spam\"".utf8)]
        var batch = ChoiceCalibration()
        batch.isFromJobTexts = true
        let reference = ChoiceCalibration()
        var levers = QualityLevers()
        levers.calibrationWeight = 0.8
        #expect(Generator.priorWeight(choosingAmong: boolean, calibration: batch, levers: levers) == 0.4)
        #expect(Generator.priorWeight(choosingAmong: boolean.reversed(), calibration: batch, levers: levers) == 0.4)
        #expect(Generator.priorWeight(choosingAmong: boolean, calibration: reference, levers: levers) == 0)
        #expect(Generator.priorWeight(choosingAmong: labels, calibration: batch, levers: levers) == 0.8)
        #expect(Generator.priorWeight(choosingAmong: labels, calibration: reference, levers: levers) == 0.8)
        // Choices that only include the two (one property name holding a Bool in one place and labels in another)
        // are calibrated as enumerations are.
        #expect(Generator.priorWeight(choosingAmong: boolean + labels, calibration: reference, levers: levers) == 0.8)
        levers.discountsBooleanPriors = false
        #expect(Generator.priorWeight(choosingAmong: boolean, calibration: batch, levers: levers) == 0.8)
        #expect(Generator.priorWeight(choosingAmong: boolean, calibration: reference, levers: levers) == 0.8)
    }
}
