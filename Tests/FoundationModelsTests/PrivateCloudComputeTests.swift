import Foundation
import FoundationModels
import Testing

// Private Cloud Compute cannot be reached from Linux: the model reports so, and a session that uses it fails
// with the model's own typed error before anything runs.
@Suite struct PrivateCloudComputeTests {
    @Test func theModelIsUnavailableOnLinux() {
        let model = PrivateCloudComputeLanguageModel()
        #expect(model.availability == .unavailable(.deviceNotEligible))
        #expect(!model.isAvailable)
        #expect(!model.quotaUsage.isLimitReached)
        #expect(model.quotaUsage.resetDate == nil)
        #expect(model.supportedLanguages.isEmpty)
        #expect(!model.supportsLocale(Locale(identifier: "en_US")))
        #expect(!model.supportsLocale())
        #expect(model.capabilities.contains(.guidedGeneration))
        #expect(model.executorConfiguration == PrivateCloudComputeLanguageModel().executorConfiguration)
    }

    @Test func aSessionFailsWithServiceUnavailable() async throws {
        let session = LanguageModelSession(model: PrivateCloudComputeLanguageModel(), instructions: "Be brief.")
        session.prewarm()
        await #expect {
            _ = try await session.respond(to: "Hello")
        } throws: { error in
            guard case PrivateCloudComputeLanguageModel.Error.serviceUnavailable(let info) = error else { return false }
            return info.debugDescription.contains("Linux")
                && (error as? any LocalizedError)?.errorDescription?.hasPrefix("Private Cloud Compute is not available.") == true
        }
        #expect(session.transcript.count == 1, "a failed request leaves only the instructions")
    }

    @Test func theContextSizeIsNotReported() async {
        await #expect(throws: PrivateCloudComputeLanguageModel.Error.self) {
            _ = try await PrivateCloudComputeLanguageModel().contextSize
        }
    }

    @Test func codeThatFallsBackByAvailabilityTakesTheLocalModel() {
        let cloud = PrivateCloudComputeLanguageModel()
        let session = cloud.isAvailable ? LanguageModelSession(model: cloud) : LanguageModelSession(model: SystemLanguageModel.default)
        #expect(session.transcript.isEmpty)
    }

    @Test func quotaErrorsCarryTheirDetails() {
        let reset = Date(timeIntervalSince1970: 1_800_000_000)
        let error = PrivateCloudComputeLanguageModel.Error.quotaLimitReached(.init(resetDate: reset, debugDescription: "daily quota"))
        #expect(error.debugDescription == "daily quota")
        #expect(error.errorDescription == "The Private Cloud Compute quota is used up. daily quota")
        guard case .quotaLimitReached(let info) = error else { return }
        #expect(info.resetDate == reset && info.limitIncreaseSuggestion == nil)
        let network = PrivateCloudComputeLanguageModel.Error.networkFailure(.init(debugDescription: "offline"))
        #expect(network.errorDescription == "The connection to Private Cloud Compute failed. offline")
    }
}
