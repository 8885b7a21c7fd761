package import Foundation

/// Where models, adapters, cached results and calibration tables live.
package enum CacheDirectory {
    /// `${XDG_CACHE_HOME:-~/.cache}/foundation-models`. A relative `XDG_CACHE_HOME` is ignored, as the XDG
    /// specification asks: it would move the models and caches with the working directory.
    package static var root: URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory() + "/.cache"
        return URL(fileURLWithPath: base).appendingPathComponent("foundation-models")
    }
}
