public import Foundation

/// An installed adapter package: the Linux stand-in for Background Assets' `AssetPack`.
///
/// Apple delivers adapters as asset packs hosted by the App Store; Linux has no Background Assets, so an asset
/// pack here is simply an identifier in ``SystemLanguageModel/Adapter/adapterDirectory`` (the file
/// `<identifier>.gguf`) or an explicit file. ``SystemLanguageModel/Adapter/isCompatible(_:)`` takes one.
public struct AssetPack: Sendable, Hashable {
    /// The asset pack's identifier, as returned by ``SystemLanguageModel/Adapter/compatibleAdapterIdentifiers(name:)``.
    public let id: String
    /// The adapter file the pack holds.
    public let fileURL: URL

    /// The pack with this identifier in ``SystemLanguageModel/Adapter/adapterDirectory``.
    public init(id: String) {
        self.id = id
        fileURL = SystemLanguageModel.Adapter.adapterDirectory.appendingPathComponent(id + ".gguf")
    }

    /// A pack for an adapter file anywhere on disk; its identifier is the file name without extension.
    public init(fileURL: URL) {
        id = fileURL.deletingPathExtension().lastPathComponent
        self.fileURL = fileURL
    }
}

extension SystemLanguageModel.Adapter {
    /// Whether `assetPack` holds a LoRA adapter made for the current base model.
    ///
    /// Like Apple's, the check reads only the pack's name and metadata (here: the GGUF header), so loading the
    /// adapter with ``init(fileURL:)`` or ``SystemLanguageModel/init(adapter:guardrails:)`` can still fail.
    public static func isCompatible(_ assetPack: AssetPack) -> Bool {
        (try? SystemLanguageModel.Adapter(fileURL: assetPack.fileURL)) != nil
    }
}
