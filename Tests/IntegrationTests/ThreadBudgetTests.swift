import FMLlama
import Foundation
import FoundationModels
import Testing

/// One thread budget per process: two models answering at the same time take turns on the cores instead of
/// each putting every thread on them at once.
@Suite(.serialized) struct ThreadBudgetTests {
    @Test func twoModelsAnsweringAtOnceNeverEvaluateAtTheSameMoment() async throws {
        _ = DefaultModel.model
        // A second path to the same weights is a second model to the registry: its own engine and loop.
        let directory = FileManager.default.temporaryDirectory.appending(path: "fm-thread-budget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let second = directory.appending(path: "second.gguf")
        try FileManager.default.linkItem(at: SystemLanguageModel.defaultModelURL, to: second)

        let models = [SystemLanguageModel.default, SystemLanguageModel(modelURL: second)]
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for model in models {
                group.addTask {
                    let session = LanguageModelSession(model: model)
                    let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 48)
                    return try await session.respond(to: "Write three sentences about rivers.", options: options).content
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 2 && answers.allSatisfy { !$0.isEmpty })
        #expect(LlamaComputeGate.peakConcurrentEvaluations == 1)
        #expect(LlamaThreads.processDefault >= 1)
    }
}
