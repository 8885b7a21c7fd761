public import Foundation
import FMDecoding

extension SystemLanguageModel {
    /// The languages the model declares in its GGUF metadata (`general.languages`); English when the file
    /// declares none, as SmolLM2 — an English model — does.
    public var supportedLanguages: Set<Locale.Language> {
        let declared = (try? GGUFMetadataReader(contentsOf: modelURL))?.strings(for: "general.languages") ?? []
        let codes = declared.isEmpty ? ["en"] : declared
        return Set(codes.map { Locale.Language(identifier: $0) })
    }

    /// Whether the model supports `locale`'s language; regional variants (`en-AU`, `en-NZ`) count as
    /// their language.
    public func supportsLocale(_ locale: Locale = Locale.current) -> Bool {
        guard let code = locale.language.languageCode?.identifier else { return false }
        return supportedLanguages.contains { $0.languageCode?.identifier == code }
    }
}
