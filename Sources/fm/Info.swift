import ArgumentParser
import FoundationModels

extension FM {
    /// `fm info`: what model and runtime would answer.
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Describe the model and the llama.cpp runtime.")

        @OptionGroup var modelOptions: ModelOptions

        func validate() throws {
            // The option group is shared with the commands that generate; describing a model checks nothing.
            if modelOptions.guardrails != .default { throw ValidationError("--guardrails has no effect on fm info, which generates nothing.") }
        }

        func run() async throws {
            let info: SystemLanguageModel.RuntimeInfo
            do { info = try modelOptions.systemModel().runtimeInfo() } catch let error as LanguageModelSession.GenerationError {
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
