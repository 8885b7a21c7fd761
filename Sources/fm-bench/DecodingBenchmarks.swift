import FMDecoding
import Foundation
import FoundationModels

/// `fm-bench decoding`: compile time, per-token mask time (first visit and warm) and forced share for the
/// seed schemas on real vocabularies, measured along random valid generations.
enum DecodingBenchmarks {
    struct Seed {
        var name: String
        var document: SchemaDocument
    }

    static let seeds: [Seed] = {
        func strings(_ maximum: Int) -> SchemaNode {
            .array(items: .string(.any), minimumCount: 0, maximumCount: maximum, uniqueItems: true)
        }
        let tagging = SchemaNode.object(properties: [
            SchemaProperty(name: "actions", schema: strings(2)),
            SchemaProperty(name: "emotions", schema: strings(3)),
            SchemaProperty(name: "objects", schema: strings(5)),
            SchemaProperty(name: "topics", schema: .array(items: .string(.any), minimumCount: 1, maximumCount: 2, uniqueItems: true)),
        ])
        let ticket = SchemaNode.object(properties: [
            SchemaProperty(name: "category", schema: .string(.choices(["billing", "bug", "feature request", "account", "other"]))),
            SchemaProperty(name: "priority", schema: .string(.choices(["low", "medium", "high", "urgent"]))),
            SchemaProperty(name: "confidence", schema: .number(minimum: 0, maximum: 1)),
            SchemaProperty(name: "summary", schema: .string(.any)),
        ])
        let email = SchemaNode.object(properties: [
            SchemaProperty(name: "intent", schema: .string(.choices(["meeting", "question", "invoice", "newsletter", "spam"]))),
            SchemaProperty(name: "urgent", schema: .boolean),
            SchemaProperty(name: "replyNeeded", schema: .boolean),
            SchemaProperty(name: "sender", schema: .object(properties: [
                SchemaProperty(name: "name", schema: .string(.any)),
                SchemaProperty(name: "organization", schema: .string(.any), isOptional: true),
            ])),
            SchemaProperty(name: "entities", schema: .array(
                items: .object(properties: [
                    SchemaProperty(name: "text", schema: .string(.any)),
                    SchemaProperty(name: "kind", schema: .string(.choices(["person", "place", "date", "amount"]))),
                ]), minimumCount: 0, maximumCount: 5, uniqueItems: false)),
            SchemaProperty(name: "deadline", schema: .string(.pattern(#"\d{4}-\d{2}-\d{2}"#)), isOptional: true),
        ])
        let recursive = SchemaDocument(
            root: .reference("Node"),
            definitions: ["Node": .object(properties: [
                SchemaProperty(name: "name", schema: .string(.any)),
                SchemaProperty(name: "size", schema: .integer(minimum: 0, maximum: 1000), isOptional: true),
                SchemaProperty(name: "children", schema: .array(items: .reference("Node"), minimumCount: 0, maximumCount: nil, uniqueItems: false)),
            ])])
        let patterned = SchemaNode.object(properties: [
            SchemaProperty(name: "sku", schema: .string(.pattern(#"[A-Z]{2,4}-\d{3,6}"#))),
            SchemaProperty(name: "path", schema: .string(.pattern(#"[a-z]{1,8}(\.[a-z]{1,8}){0,3}"#))),
            SchemaProperty(name: "quantity", schema: .integer(minimum: 1, maximum: 100)),
            SchemaProperty(name: "delta", schema: .number(minimum: -1.5, maximum: 2.25)),
        ])
        // What content tagging really decodes: a unique list of one-to-three-word lowercase tags.
        let tags = SchemaNode.object(properties: [
            SchemaProperty(name: "topics", schema: .array(
                items: .string(.pattern("[a-z0-9]{1,24}( [a-z0-9]{1,24}){0,2}")), minimumCount: 1, maximumCount: 3,
                uniqueItems: true)),
        ])
        return [
            Seed(name: "content-tagging", document: SchemaDocument(root: tagging)),
            Seed(name: "tag-pattern", document: SchemaDocument(root: tags)),
            Seed(name: "support-ticket", document: SchemaDocument(root: ticket)),
            Seed(name: "email-triage", document: SchemaDocument(root: email)),
            Seed(name: "recursive-tree", document: recursive),
            Seed(name: "pattern-{m,n}", document: SchemaDocument(root: patterned)),
        ]
    }()

    static func run(options: BenchOptions) {
        let walks = options.count("--walks") ?? 40
        let which = options.value("--vocabulary") ?? "all"
        let cache = ModelCatalog.directory.path
        let environment = ProcessInfo.processInfo.environment
        var vocabularies: [(String, String)] = []
        if which == "all" || which == "smol" {
            vocabularies.append(("SmolLM2", environment["FM_SMOL_MODEL_PATH"] ?? "\(cache)/SmolLM2-135M-Instruct.Q4_1.gguf"))
        }
        if which == "all" || which == "gemma" {
            vocabularies.append(("Gemma-3", environment["FM_GEMMA_MODEL_PATH"] ?? "\(cache)/gemma-3-270m-q4_k_m.gguf"))
        }

        print("Schema compile time (Grammar(compiling:), 300 runs, µs)")
        for seed in seeds {
            var samples: [Double] = []
            for _ in 0..<300 {
                let start = DispatchTime.now().uptimeNanoseconds
                let grammar = try? Grammar(compiling: seed.document)
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
                precondition(grammar != nil)
            }
            let states = (try? Grammar(compiling: seed.document))?.stateCount ?? 0
            print("  \(pad(seed.name, 18)) p50 \(pad(format(percentile(samples, 0.5)), 6)) p99 \(pad(format(percentile(samples, 0.99)), 6)) (\(states) NFA states)")
        }

        for (label, path) in vocabularies {
            let loadStart = DispatchTime.now().uptimeNanoseconds
            guard let vocabulary = try? TokenVocabulary(ggufAt: path) else {
                print("\n\(label): cannot load \(path) (run `fm model install tiny gemma`)")
                continue
            }
            let loadTime = Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1e6
            print("\n\(label): \(vocabulary.count) tokens, loaded and indexed in \(format(loadTime)) ms; \(walks) random walks per schema")
            print("  \(pad("schema", 16)) \(pad("all p50", 8)) \(pad("all p99", 8)) \(pad("warm p50", 9)) \(pad("warm p99", 9)) \(pad("first p50", 10)) \(pad("first p99", 10)) \(pad("first max", 10)) \(pad("step p50", 9)) \(pad("states", 6)) \(pad("forced", 7)) \(pad("tok/walk", 8)) \(pad("precompute", 10))")
            for seed in seeds {
                let result = measure(seed, vocabulary: vocabulary, walks: walks)
                print("  \(pad(seed.name, 16)) \(pad(format(result.allP50), 8)) \(pad(format(result.allP99), 8)) \(pad(format(result.warmP50), 9)) \(pad(format(result.warmP99), 9)) \(pad(format(result.firstP50), 10)) \(pad(format(result.firstP99), 10)) \(pad(format(result.firstMax), 10)) \(pad(format(result.stepP50), 9)) \(pad("\(result.states)", 6)) \(pad(String(format: "%.0f%%", result.forcedShare * 100), 7)) \(pad(String(format: "%.1f", result.tokensPerWalk), 8)) \(result.precompute)")
            }
            print("  (times in µs; all = every fillMask of the walks, which start from an empty cache;")
            print("   warm = mask already cached for the state, first = computed on first visit;")
            print("   step = forcedBytes + accept; forced = share of output bytes appended without sampling;")
            print("   precompute = TokenConstraint.precomputeMasks() for all byte-reachable states, ms)")
        }
    }

    struct Result {
        var allP50 = 0.0, allP99 = 0.0, warmP50 = 0.0, warmP99 = 0.0, firstP50 = 0.0, firstP99 = 0.0, firstMax = 0.0, stepP50 = 0.0
        var states = 0
        var forcedShare = 0.0
        var tokensPerWalk = 0.0
        var precompute = ""
    }

    static func measure(_ seed: Seed, vocabulary: TokenVocabulary, walks: Int) -> Result {
        let grammar = try! Grammar(compiling: seed.document)
        let constraint = TokenConstraint(grammar: grammar, vocabulary: vocabulary)
        var rng = SplitMix(state: 42)
        var warm: [Double] = []
        var first: [Double] = []
        var steps: [Double] = []
        var forcedBytes = 0
        var totalBytes = 0
        var sampled = 0
        let closers = (0..<vocabulary.count).filter { id in
            let bytes = vocabulary.bytes(of: id)
            return vocabulary.isUsableInText(id) && !bytes.isEmpty && bytes.count <= 3
                && bytes.allSatisfy { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "]") || $0 == UInt8(ascii: "}") }
        }
        var mask = TokenMask(count: vocabulary.count)
        let verbose = ProcessInfo.processInfo.environment["FM_BENCH_VERBOSE"] != nil
        for _ in 0..<walks {
            var matcher = constraint.makeMatcher()
            for step in 0..<250 {
                if matcher.isComplete { break }
                let stepStart = DispatchTime.now().uptimeNanoseconds
                let forced = matcher.forcedBytes()
                if !forced.isEmpty {
                    _ = matcher.accept(bytes: forced)
                    forcedBytes += forced.count
                    steps.append(Double(DispatchTime.now().uptimeNanoseconds - stepStart) / 1000)
                    continue
                }
                let before = constraint.cachedMaskCount
                let start = DispatchTime.now().uptimeNanoseconds
                matcher.fillMask(into: &mask)
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1000
                if constraint.cachedMaskCount > before { first.append(elapsed) } else { warm.append(elapsed) }
                if verbose, constraint.cachedMaskCount > before, elapsed > 100 {
                    print("    slow first mask \(format(elapsed)) µs after …\(String(decoding: matcher.generatedBytes.suffix(60), as: UTF8.self))")
                }
                if verbose, constraint.cachedMaskCount == before, elapsed > 200 {
                    print("    slow warm mask \(format(elapsed)) µs after …\(String(decoding: matcher.generatedBytes.suffix(60), as: UTF8.self))")
                }
                var token: Int
                let closing = Double(step) / 60
                if rng.unit() < closing, let pick = closers.filter({ mask.contains($0) }).randomElement(using: &rng) {
                    token = pick
                } else if rng.unit() < closing, let eos = vocabulary.eosTokenIDs.first(where: { mask.contains($0) }) {
                    token = eos
                } else {
                    token = Int.random(in: 0..<vocabulary.count, using: &rng)
                    while !mask.contains(token) { token = (token + 1) % vocabulary.count }
                }
                let acceptStart = DispatchTime.now().uptimeNanoseconds
                precondition(matcher.accept(token: token), "mask allowed a rejected token")
                steps.append(Double(DispatchTime.now().uptimeNanoseconds - acceptStart) / 1000)
                sampled += 1
                if matcher.isTerminated { break }
            }
            totalBytes += matcher.generatedBytes.count
        }
        if ProcessInfo.processInfo.environment["FM_BENCH_VERBOSE"] != nil {
            print("    \(seed.name) masks (allowed/dependent/always):", constraint.maskStatistics.map { "\($0.allowed)/\($0.dependent)/\($0.alwaysChecked)" }.joined(separator: " "))
        }
        var result = Result()
        result.allP50 = percentile(warm + first, 0.5)
        result.allP99 = percentile(warm + first, 0.99)
        result.warmP50 = percentile(warm, 0.5)
        result.warmP99 = percentile(warm, 0.99)
        result.firstP50 = percentile(first, 0.5)
        result.firstP99 = percentile(first, 0.99)
        result.firstMax = first.max() ?? 0
        result.stepP50 = percentile(steps, 0.5)
        result.states = constraint.cachedMaskCount
        result.forcedShare = totalBytes == 0 ? 0 : Double(forcedBytes) / Double(totalBytes)
        result.tokensPerWalk = Double(sampled) / Double(walks)
        // Eager alternative: every byte-reachable state, on a fresh constraint.
        let fresh = TokenConstraint(grammar: grammar, vocabulary: vocabulary)
        let start = DispatchTime.now().uptimeNanoseconds
        let count = fresh.precomputeMasks(maximumStates: 3_000)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        result.precompute = "\(format(elapsed)) ms / \(count) states"
        return result
    }

    static func percentile(_ samples: [Double], _ p: Double) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
    }

    static func format(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    }
}
