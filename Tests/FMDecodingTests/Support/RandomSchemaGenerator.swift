import FMDecoding

/// A seeded, reproducible generator (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }
}

/// Random schema documents covering every node kind and guide, with nesting and recursion.
struct RandomSchemaGenerator {
    var rng: SeededGenerator
    private var definitions: [String: SchemaNode] = [:]

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    static let words = ["art", "artist", "arts", "a", "ab", "b", "say \"hi\"", "back\\slash", "tab\there", "é", "日本", "", "/", "x y"]
    static let keys = ["a", "ab", "abc", "name", "names", "n", "tags", "t", "value", "v", "é", "k\"q"]
    static let patterns = [
        #"[a-z]{1,8}"#, #"\d{3}-\d{4}"#, #"[A-Z][a-z]+( [A-Z][a-z]+)?"#, #"(?:ab|cd)+"#, #"[^"\\]{0,5}"#,
        #"\w+@\w+\.com"#, #"colou?r"#, #"[0-9a-f]{2,4}"#, #"a.c"#, #"\S\s\S"#, #"(yes|no|maybe)"#, #"x{3}|y{2}"#,
        #"[\u00e0-\u00ff]{1,3}"#, #"\"[a-z]*\""#,
    ]

    mutating func document() -> SchemaDocument {
        definitions = [:]
        if rng.chance(0.3) {
            definitions["Node"] = .object(properties: [
                SchemaProperty(name: "v", schema: scalar()),
                SchemaProperty(
                    name: "kids",
                    schema: .array(items: .reference("Node"), minimumCount: 0, maximumCount: rng.chance(0.5) ? nil : 3, uniqueItems: false),
                    isOptional: rng.chance(0.5)),
            ])
            if rng.chance(0.3) {
                definitions["Expr"] = .anyOf([
                    .object(properties: [
                        SchemaProperty(name: "op", schema: .string(.choices(["+", "-"]))),
                        SchemaProperty(name: "args", schema: .array(items: .reference("Expr"), minimumCount: 1, maximumCount: 2, uniqueItems: false)),
                    ]),
                    .object(properties: [SchemaProperty(name: "o", schema: .integer(minimum: 0, maximum: 9))]),
                    .integer(minimum: -3, maximum: 3),
                ])
            }
        }
        let root = rng.chance(0.8) ? object(depth: 0) : node(depth: 0)
        return SchemaDocument(root: root, definitions: definitions)
    }

    mutating func node(depth: Int) -> SchemaNode {
        let roll = Int.random(in: 0..<100, using: &rng)
        if depth >= 3 || roll < 40 { return scalar() }
        if roll < 54 { return array(depth: depth) }
        if roll < 60 { return tuple(depth: depth) }
        if roll < 74 { return object(depth: depth) }
        if roll < 78 { return .dictionary(values: node(depth: depth + 1)) }
        if roll < 90 { return .anyOf((0..<Int.random(in: 2...3, using: &rng)).map { _ in anyOfAlternative(depth: depth + 1) }) }
        if !definitions.isEmpty { return .reference(definitions.keys.sorted().randomElement(using: &rng)!) }
        return scalar()
    }

    private mutating func anyOfAlternative(depth: Int) -> SchemaNode {
        // Objects sharing a `{"` prefix (and often a key prefix) are the interesting case.
        rng.chance(0.5) ? object(depth: depth) : node(depth: depth)
    }

    mutating func object(depth: Int) -> SchemaNode {
        var names = Self.keys.shuffled(using: &rng)
        let count = Int.random(in: 0...4, using: &rng)
        return .object(properties: (0..<count).map { _ in
            SchemaProperty(name: names.removeLast(), schema: node(depth: depth + 1), isOptional: rng.chance(0.35))
        })
    }

    mutating func array(depth: Int) -> SchemaNode {
        let unique = rng.chance(0.4)
        let items = unique ? uniqueFriendlyItem() : node(depth: depth + 1)
        let minimum = unique ? Int.random(in: 0...1, using: &rng) : Int.random(in: 0...2, using: &rng)
        let maximum: Int? = rng.chance(0.3) ? nil : minimum + Int.random(in: 0...4, using: &rng)
        return .array(items: items, minimumCount: minimum, maximumCount: maximum, uniqueItems: unique)
    }

    mutating func tuple(depth: Int) -> SchemaNode {
        let prefix = (0..<Int.random(in: 1...3, using: &rng)).map { _ in node(depth: depth + 1) }
        let items: SchemaNode? = rng.chance(0.5) ? nil : scalar()
        let minimum = Int.random(in: 0...prefix.count, using: &rng)
        let maximum: Int? = rng.chance(0.4) ? nil : minimum + Int.random(in: 0...3, using: &rng)
        return .tuple(prefix: prefix, items: items, minimumCount: minimum, maximumCount: maximum)
    }

    static let literals = ["0", "-12.5", "true", "null", #""x\"y""#, "[1,[]]", #"{"k":{"a":false},"b":"é"}"#, "{}"]

    private mutating func uniqueFriendlyItem() -> SchemaNode {
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: return .string(.any)
        case 1: return .string(.choices(Array(Self.words.shuffled(using: &rng).prefix(Int.random(in: 1...4, using: &rng)))))
        case 2: return .integer(minimum: 0, maximum: Int.random(in: 0...6, using: &rng))
        case 3: return .boolean
        case 4: return .string(.pattern(Self.patterns.randomElement(using: &rng)!))
        case 5: return .number(minimum: -1, maximum: 1)
        default: return .object(properties: [SchemaProperty(name: "k", schema: .string(.any))])
        }
    }

    mutating func scalar() -> SchemaNode {
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return .string(.any)
        case 1: return .string(.choices(Array(Self.words.shuffled(using: &rng).prefix(Int.random(in: 1...5, using: &rng)))))
        case 2: return .string(.pattern(Self.patterns.randomElement(using: &rng)!))
        case 3:
            let low = rng.chance(0.2) ? nil : Int.random(in: -1200...50, using: &rng)
            let high = rng.chance(0.2) ? nil : (low ?? 0) + Int.random(in: 0...2000, using: &rng)
            return .integer(minimum: low, maximum: high)
        case 4:
            let low = rng.chance(0.2) ? nil : Double(Int.random(in: -400...100, using: &rng)) / 8
            let high = rng.chance(0.2) ? nil : (low ?? 0) + Double(Int.random(in: 0...400, using: &rng)) / 16
            return .number(minimum: low, maximum: high)
        case 5: return .boolean
        case 6: return .null
        case 7: return .string(.any)
        case 8: return .integer(minimum: 0, maximum: Int.random(in: 0...20, using: &rng))
        case 9: return .number(minimum: 0, maximum: 1)
        case 10: return .literal(Self.literals.randomElement(using: &rng)!)
        default:
            let patterns = rng.chance(0.3) ? [] : Array(Self.patterns.shuffled(using: &rng).prefix(Int.random(in: 1...2, using: &rng)))
            let minimum = Int.random(in: 0...3, using: &rng)
            let maximum: Int? = rng.chance(0.3) ? nil : minimum + Int.random(in: 0...6, using: &rng)
            let node = SchemaNode.string(.matching(patterns: patterns, minimumLength: minimum, maximumLength: maximum))
            // Random patterns and lengths may exclude each other; keep only satisfiable combinations.
            return (try? Grammar(compiling: SchemaDocument(root: node))) != nil ? node : .string(.any)
        }
    }
}
