@testable import FMEngine
import Testing

/// The quality switches' fingerprint, which keys cached results.
struct QualityLeversTests {
    @Test func everySwitchAndScoreChangesTheFingerprint() {
        let base = QualityLevers()
        let switches: [WritableKeyPath<QualityLevers, Bool>] = [
            \.holdsBackBoundaryTokens, \.usesTaggingExamples, \.describesTaggingSchemaInSystemText, \.scoresChoices,
            \.taskAwarePrompts, \.sortsChoices, \.calibratesChoices, \.calibratesByBatch, \.calibratesByReference,
            \.shortlistsLargeChoiceSets, \.draftsFromPrompt,
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
}
