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

    /// The first 4 MiB of the model's file, written to `cut.gguf` in `directory`: a GGUF header, then nothing
    /// llama.cpp can load.
    static func cutCopy(in directory: URL) throws -> URL {
        let cut = directory.appendingPathComponent("cut.gguf")
        let handle = try FileHandle(forReadingFrom: model.modelURL)
        defer { try? handle.close() }
        try handle.read(upToCount: 4 << 20)?.write(to: cut)
        return cut
    }
}

