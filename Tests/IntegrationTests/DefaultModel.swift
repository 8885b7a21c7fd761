import Foundation
import FoundationModels
import Testing

/// The model for integration tests about mechanics: `SystemLanguageModel.default`, which `make test` points
/// at the tiny catalogue model (`FM_MODEL=tiny`). Missing weights fail the tests (never skip them) with
/// instructions to install.
enum DefaultModel {
    static var model: SystemLanguageModel {
        let model = SystemLanguageModel.default
        if !model.isAvailable {
            Issue.record("The default model is not installed at \(SystemLanguageModel.defaultModelURL.path). Run `fm model install tiny` (or `make test`).")
        }
        return model
    }
}

