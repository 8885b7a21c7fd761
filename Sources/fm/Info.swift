import ArgumentParser
import FoundationModels

extension FM {
    /// `fm info`: what model and runtime would answer.
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Describe the model and the llama.cpp runtime.")

        // Only the model: describing it checks nothing, so `--guardrails` is not an option here.
        @OptionGroup var modelChoice: ModelChoice

        func run() async throws {
            let info: SystemLanguageModel.RuntimeInfo
            do { info = try SystemLanguageModel(modelURL: modelChoice.modelURL).runtimeInfo() } catch let error as LanguageModelSession.GenerationError {
                throw CommandFailure(error.errorDescription ?? "\(error)")
            }
            print("model:       \(info.path)")
            if let name = info.name { print("name:        \(name)") }
            print("summary:     \(info.summary)")
            print("parameters:  \(info.parameterCount)")
            print("size:        \(info.sizeInBytes) bytes")
            print("context:     \(info.contextSize) tokens (trained with \(info.trainingContextSize))")
            print("vocabulary:  \(info.vocabularySize) tokens")
            print("llama.cpp:   \(info.runtime)")
        }
    }
}
