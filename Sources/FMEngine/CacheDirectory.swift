package import Foundation

/// Where models, adapters, cached results and calibration tables live.
package enum CacheDirectory {
    /// `${XDG_CACHE_HOME:-~/.cache}/foundation-models`.
    package static var root: URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.cache"
        return URL(fileURLWithPath: base).appendingPathComponent("foundation-models")
    }
}
