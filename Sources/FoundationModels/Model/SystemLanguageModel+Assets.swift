import Foundation

extension SystemLanguageModel {
    /// The identifiers recorded in each response's `assetIDs`: the model file (and adapter, if any).
    var assetIDs: [String] {
        [modelURL.lastPathComponent] + (adapter.map { [$0.fileURL.lastPathComponent] } ?? [])
    }
}
