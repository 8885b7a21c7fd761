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

/// The catalogue's default model, for tests about answer quality (whatever `FM_MODEL` says).
enum QualityModel {
    static var url: URL {
        let entry = ModelCatalog.defaultEntry
        if entry.installState != .installed {
            Issue.record("The default model '\(entry.name)' is not installed at \(entry.fileURL.path). Run `fm model install default`.")
        }
        return entry.fileURL
    }

    /// The default model with the content-tagging use case.
    static var tagger: SystemLanguageModel { SystemLanguageModel(modelURL: url, useCase: .contentTagging) }
}
