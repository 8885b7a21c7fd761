package import Foundation

/// Where models, adapters, cached results and calibration tables live.
package enum CacheDirectory {
    /// `${XDG_CACHE_HOME:-$HOME/.cache}/foundation-models`. A relative `XDG_CACHE_HOME` is ignored, as the XDG
    /// specification asks: it would move the models and caches with the working directory. `$HOME` is read as the
    /// shell and the install scripts read it; the account's home directory stands in when it is unset or relative.
    package static var root: URL {
        let environment = ProcessInfo.processInfo.environment
        func absolute(_ variable: String) -> String? { environment[variable].flatMap { $0.hasPrefix("/") ? $0 : nil } }
        let base = absolute("XDG_CACHE_HOME") ?? (absolute("HOME") ?? NSHomeDirectory()) + "/.cache"
        return URL(fileURLWithPath: base).appendingPathComponent("foundation-models")
    }
}
