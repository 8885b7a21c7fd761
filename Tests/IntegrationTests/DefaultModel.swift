import Foundation
import FoundationModels
import Testing

/// The default model for integration tests. Missing weights fail the tests (never skip them) with
/// instructions to install.
enum DefaultModel {
    static var model: SystemLanguageModel {
        let model = SystemLanguageModel.default
        if !model.isAvailable {
            Issue.record("The default model is not installed at \(SystemLanguageModel.defaultModelURL.path). Run `make setup`.")
        }
        return model
    }
}
