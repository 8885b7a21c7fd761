public import FMCache
public import Foundation
import FoundationModels

extension ResultCache {
    /// Where `fm` keeps cached results: `cache.sqlite` in ``FoundationModels/SystemLanguageModel/cacheDirectory``
    /// (`${XDG_CACHE_HOME:-~/.cache}/foundation-models`), beside the models.
    public static var defaultURL: URL {
        SystemLanguageModel.cacheDirectory.appendingPathComponent("cache.sqlite")
    }
}
