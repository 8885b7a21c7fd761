import Foundation

/// A suite's command-line options, checked once: every option known to the suite, every value present and
/// every count a positive whole number, so the suites read values without parsing again.
struct BenchOptions {
    /// Each suite's options that take a value.
    static let valued: [String: Set<String>] = [
        "runtime": [], "all": ["--walks", "--vocabulary", "--texts", "--parallel", "--file"],
        "decoding": ["--walks", "--vocabulary"], "tagging": ["--texts", "--parallel", "--file"],
        "throughput": ["--model", "--texts", "--parallel", "--file", "--requests"],
    ]
    /// The options whose value is a count.
    static let counts: Set<String> = ["--walks", "--texts", "--parallel"]
    /// Each suite's options without a value.
    static let switches: [String: Set<String>] = ["tagging": ["--tags", "--show-flips"], "all": ["--tags", "--show-flips"]]

    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    /// The options of `suite` in `arguments`, or why they are not usable.
    init(suite: String, arguments: [String]) throws(BenchmarkFailure) {
        guard let allowed = Self.valued[suite] else { throw BenchmarkFailure("unknown suite '\(suite)'") }
        var position = 0
        while position < arguments.count {
            let name = arguments[position]
            if Self.switches[suite, default: []].contains(name) {
                flags.insert(name)
                position += 1
                continue
            }
            guard allowed.contains(name) else { throw BenchmarkFailure("unknown option '\(name)' for '\(suite)'") }
            guard position + 1 < arguments.count else { throw BenchmarkFailure("\(name) needs a value") }
            let value = arguments[position + 1]
            if Self.counts.contains(name), (Int(value) ?? 0) < 1 {
                throw BenchmarkFailure("\(name) takes a positive whole number, not '\(value)'")
            }
            if name == "--vocabulary", !["smol", "gemma", "all"].contains(value) {
                throw BenchmarkFailure("--vocabulary takes smol, gemma or all, not '\(value)'")
            }
            // The first occurrence counts, as it always has.
            if values[name] == nil { values[name] = value }
            position += 2
        }
    }

    /// The value of `name`, if given.
    func value(_ name: String) -> String? { values[name] }

    /// The count `name`, if given (checked positive).
    func count(_ name: String) -> Int? { values[name].flatMap(Int.init) }

    /// Whether the switch `name` was given.
    func contains(_ name: String) -> Bool { flags.contains(name) }
}
