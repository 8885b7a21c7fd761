import FMLlama
@testable import FoundationModels
import Testing

/// How generation options reach the in-process sampler.
struct SamplingOptionsTests {
    private func sampling(_ options: GenerationOptions, _ useCase: SystemLanguageModel.UseCase = .general) -> SamplingParameters {
        SystemTurn.sampling(for: options, useCase: useCase)
    }

    @Test func noOptionsFollowTheUseCase() {
        #expect(sampling(GenerationOptions(), .contentTagging) == .greedy)
        #expect(sampling(GenerationOptions()).strategy == .nucleus(GenerationOptions.SamplingMode.defaultProbabilityThreshold))
        #expect(sampling(GenerationOptions()).temperature == 0.7)
    }

    /// A temperature of 0 leaves nothing random, so it is greedy in every mode, with greedy's whole-value choices.
    @Test func temperatureZeroIsGreedy() {
        #expect(sampling(GenerationOptions(temperature: 0)) == .greedy)
        #expect(sampling(GenerationOptions(temperature: -2)) == .greedy)
        #expect(sampling(GenerationOptions(samplingMode: .random(top: 8, seed: 3), temperature: 0)) == .greedy)
        #expect(sampling(GenerationOptions(samplingMode: .random(probabilityThreshold: 0.5), temperature: 0), .contentTagging) == .greedy)
        let sampled = sampling(GenerationOptions(samplingMode: .random(top: 8, seed: 3), temperature: 0.4))
        #expect(sampled == SamplingParameters(strategy: .topK(8), temperature: 0.4, seed: 3))
    }
}
