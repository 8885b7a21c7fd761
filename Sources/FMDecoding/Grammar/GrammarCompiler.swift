/// Lowers a ``SchemaDocument`` into a ``ByteNFA`` with one rule per referenced definition and per
/// `uniqueItems` element.
struct GrammarCompiler {
    let document: SchemaDocument
    let options: Grammar.Options
    var nfa = ByteNFA()
    var rules: [Grammar.Rule] = []
    var uniqueArrays: [Grammar.UniqueArray] = []
    private var definitionRules: [String: Int32] = [:]
    private var pending: [(node: SchemaNode, rule: Int32)] = []
    /// `uniqueItems` arrays whose items the schema does not list: their languages are read off the automaton
    /// once every rule is built.
    private var unlistedItems: [(array: Int, rule: Int32, minimumCount: Int)] = []
    /// Results of ``enumerate(_:depth:)`` per definition and depth: a fan-out of references to references would
    /// otherwise list the same definition once per path to it.
    private var enumerated: [EnumerationKey: [[UInt8]]?] = [:]
    /// Largest finite item language tracked exactly for `uniqueItems`.
    static let maximumFiniteValues = 4096

    private struct EnumerationKey: Hashable {
        var name: String
        var depth: Int
    }

    init(document: SchemaDocument, options: Grammar.Options) {
        self.document = document
        self.options = options
    }

    mutating func compileRoot() throws(GrammarError) -> Grammar.Rule {
        let root = newRule()
        try build(document.root, from: rules[Int(root)].start, to: rules[Int(root)].accept)
        while let (node, rule) = pending.popLast() {
            try build(node, from: rules[Int(rule)].start, to: rules[Int(rule)].accept)
        }
        try listItemLanguages()
        return rules[Int(root)]
    }

    /// Gives every `uniqueItems` array whose item language turns out small and finite (a pattern or length guide,
    /// a narrow number range, an object of such values) the exact bookkeeping of listed values, and refuses one
    /// that needs more distinct items than there are. Otherwise a repeat is refused only at an element's end,
    /// which can leave no way on (`["red","rose","r` with items `red|rose|blue`).
    private mutating func listItemLanguages() throws(GrammarError) {
        for unlisted in unlistedItems {
            guard let texts = nfa.texts(of: unlisted.rule, rules: rules, limit: Self.maximumFiniteValues) else {
                continue
            }
            let values = Self.uniqueValues(texts)
            try Self.checkUniqueCount(unlisted.minimumCount, distinct: Self.distinctCount(values))
            uniqueArrays[unlisted.array].finiteValues = values
        }
    }

    /// Texts paired with their canonical forms.
    private static func uniqueValues(_ texts: [[UInt8]]) -> [Grammar.UniqueArray.Value] {
        texts.map { Grammar.UniqueArray.Value(text: $0, canonical: JSONCanonicalizer.canonical($0)) }
    }

    /// The number of different values (texts equal after canonicalisation count once).
    private static func distinctCount(_ values: [Grammar.UniqueArray.Value]) -> Int {
        Set(values.map(\.canonical)).count
    }

    private static func checkUniqueCount(_ minimumCount: Int, distinct: Int) throws(GrammarError) {
        if minimumCount > distinct {
            throw GrammarError(
                .unsatisfiable, construct: "uniqueItems",
                "an array needs \(minimumCount) unique items but only \(distinct) distinct values exist")
        }
    }

    private mutating func newRule() -> Int32 {
        let start = nfa.addState()
        let accept = nfa.addState()
        nfa.isRuleAccept[Int(accept)] = true
        rules.append(Grammar.Rule(start: start, accept: accept))
        return Int32(rules.count - 1)
    }

    private mutating func checkSize() throws(GrammarError) {
        if nfa.stateCount > options.maximumStates {
            throw GrammarError(
                .tooLarge, construct: "schema size",
                "the automaton exceeds \(options.maximumStates) states (large repetition counts or deep nesting)")
        }
    }

    private func literal(_ text: String) -> [UInt8] { Array(text.utf8) }

    private mutating func addLiteral(_ bytes: [UInt8], from: Int32, to: Int32) {
        let end = nfa.addLiteral(bytes, from: from)
        nfa.addEpsilon(end, to)
    }

    mutating func build(_ node: SchemaNode, from: Int32, to: Int32) throws(GrammarError) {
        try checkSize()
        switch node {
        case .boolean:
            addLiteral(literal("true"), from: from, to: to)
            addLiteral(literal("false"), from: from, to: to)
        case .null:
            addLiteral(literal("null"), from: from, to: to)
        case .string(let constraint):
            try buildString(constraint, from: from, to: to)
        case .integer(let minimum, let maximum):
            let limit = Self.power10(min(options.unboundedIntegerDigits, 18)) - 1
            let hardLimit = Self.power10(18) - 1
            // The automaton writes at most 18 digits: a range wholly beyond that has no value it could write.
            if let minimum, minimum > hardLimit {
                throw GrammarError(
                    .tooLarge, construct: "integer range",
                    "integer minimum \(minimum) is beyond the largest integer the decoder writes, \(hardLimit)")
            }
            if let maximum, maximum < -hardLimit {
                throw GrammarError(
                    .tooLarge, construct: "integer range",
                    "integer maximum \(maximum) is beyond the smallest integer the decoder writes, -\(hardLimit)")
            }
            // An open side reaches past a bound given beyond the unbounded digits (up to 18 digits), or the range
            // would end before it starts.
            let openHigh = (minimum ?? 0) > limit ? hardLimit : limit
            let openLow = (maximum ?? 0) < -limit ? -hardLimit : -limit
            let low = max(minimum ?? openLow, -hardLimit)
            let high = min(maximum ?? openHigh, hardLimit)
            guard low <= high else {
                throw GrammarError(.unsatisfiable, construct: "integer range", "integer range \(low)...\(high) is empty")
            }
            nfa.addIntegerRange(low, high, from: from, to: to)
        case .number(let minimum, let maximum):
            if minimum.map({ !$0.isFinite }) == true || maximum.map({ !$0.isFinite }) == true {
                throw GrammarError(.invalidBounds, construct: "number range", "number bounds must be finite")
            }
            let limit = Self.power10(min(options.unboundedIntegerDigits, 15)) - 1
            // Bounds are clamped to what the decimal automaton writes; a range wholly beyond it has no value
            // the decoder could write, and clamping would write one outside the range.
            if let minimum, minimum > Double(limit) {
                throw GrammarError(.tooLarge, construct: "number range", "number minimum \(minimum) is beyond the largest number the decoder writes, \(limit)")
            }
            if let maximum, maximum < -Double(limit) {
                throw GrammarError(.tooLarge, construct: "number range", "number maximum \(maximum) is beyond the smallest number the decoder writes, -\(limit)")
            }
            let low = DecimalBound(minimum ?? -Double(limit), limit: limit)
            let high = DecimalBound(maximum ?? Double(limit), limit: limit)
            guard low <= high else {
                throw GrammarError(
                    .unsatisfiable, construct: "number range", "number range \(minimum ?? 0)...\(maximum ?? 0) is empty")
            }
            // The decimal automaton writes at most this many fraction digits; a range between two neighbours of
            // that grid has no value it could write (and would otherwise be reported as unbounded recursion).
            let digits = options.maximumFractionDigits
            guard low.roundedUp(fractionDigits: digits) <= high.roundedDown(fractionDigits: digits) else {
                let range = "\(minimum.map(DecimalText.plain) ?? "")...\(maximum.map(DecimalText.plain) ?? "")"
                throw GrammarError(
                    .unsatisfiable, construct: "number range",
                    "no number in \(range) has at most \(digits) fraction digits")
            }
            nfa.addDecimalRange(low, high, fractionDigits: digits, from: from, to: to)
        case .array(let items, let minimumCount, let maximumCount, let uniqueItems):
            try buildArray(items, minimumCount, maximumCount, uniqueItems, from: from, to: to)
        case .tuple(let prefix, let items, let minimumCount, let maximumCount):
            try buildTuple(prefix, items, minimumCount, maximumCount, from: from, to: to)
        case .literal(let text):
            addLiteral(literal(text), from: from, to: to)
        case .object(let properties):
            try buildObject(properties, from: from, to: to)
        case .dictionary(let values):
            try buildDictionary(values, from: from, to: to)
        case .anyOf(let alternatives):
            guard !alternatives.isEmpty else {
                throw GrammarError(.unsatisfiable, construct: "anyOf", "anyOf has no alternatives")
            }
            for alternative in alternatives { try build(alternative, from: from, to: to) }
        case .reference(let name):
            let rule = try ruleForDefinition(name)
            nfa.calls[Int(from)].append(.init(rule: rule, returnState: to, uniqueArray: -1, isFirstElement: false))
        }
    }

    private mutating func ruleForDefinition(_ name: String) throws(GrammarError) -> Int32 {
        if let rule = definitionRules[name] { return rule }
        guard let definition = document.definitions[name] else {
            throw GrammarError(.undefinedReference, construct: "reference \(name)", "no definition named `\(name)`")
        }
        let rule = newRule()
        definitionRules[name] = rule
        pending.append((definition, rule))
        return rule
    }

    private mutating func buildString(_ constraint: StringConstraint, from: Int32, to: Int32) throws(GrammarError) {
        switch constraint {
        case .any:
            let end = nfa.addAnyString(from: from)
            nfa.addEpsilon(end, to)
        case .choices(let choices):
            guard !choices.isEmpty else {
                throw GrammarError(.unsatisfiable, construct: "choices", "a string guide has no choices")
            }
            // Told apart by their bytes, as JSON tells strings apart: "é" and "e\u{301}" are two choices, though
            // Swift's `==` finds them equal.
            for literal in Set(choices.map(ByteNFA.jsonQuoted)) { addLiteral(literal, from: from, to: to) }
        case .pattern(let pattern):
            let regex = try RegexParser.parse(pattern)
            // Said here: an empty language would otherwise surface as a value that can never end.
            if regex.matchesNothing {
                throw GrammarError(.unsatisfiable, construct: "string constraints", "no string matches /\(pattern)/")
            }
            let open = nfa.addLiteral([0x22], from: from)
            let close = nfa.addState()
            try buildRegex(regex, from: open, to: close)
            addLiteral([0x22], from: close, to: to)
        case .matching(let patterns, let minimumLength, let maximumLength):
            try buildMatching(patterns, minimumLength, maximumLength, from: from, to: to)
        }
    }

    /// Patterns and lengths together: their scalar automata intersected, then spelled as JSON string bytes.
    private mutating func buildMatching(
        _ patterns: [String], _ minimumLength: Int, _ maximumLength: Int?, from: Int32, to: Int32
    ) throws(GrammarError) {
        if minimumLength < 0 || maximumLength.map({ $0 < minimumLength }) == true {
            throw GrammarError(
                .unsatisfiable, construct: "string length",
                "string length bounds \(minimumLength)...\(maximumLength.map(String.init) ?? "") are empty")
        }
        var automata: [ScalarAutomaton] = []
        for pattern in patterns { automata.append(try ScalarAutomaton(try RegexParser.parse(pattern))) }
        let product = try ScalarAutomaton.intersection(
            automata, minimumLength: minimumLength, maximumLength: maximumLength,
            maximumStates: Self.maximumStringStates)
        guard !product.isEmpty else {
            let lengths = "\(minimumLength)...\(maximumLength.map(String.init) ?? "")"
            throw GrammarError(
                .unsatisfiable, construct: "string constraints",
                "no string matches \(patterns.map { "/\($0)/" }.joined(separator: " and ")) with length \(lengths)")
        }
        let open = nfa.addLiteral([0x22], from: from)
        let close = nfa.addState()
        var states: [Int32] = [open]
        for _ in 1..<product.stateCount { states.append(nfa.addState()) }
        for (state, edges) in product.edges.enumerated() {
            for edge in edges { nfa.addScalarSet(edge.ranges, from: states[state], to: states[edge.target]) }
            if product.isAccepting[state] { nfa.addEpsilon(states[state], close) }
            try checkSize()
        }
        addLiteral([0x22], from: close, to: to)
    }

    /// Largest product automaton built for one string's patterns and length bounds.
    static let maximumStringStates = 20_000

    private mutating func buildRegex(_ node: RegexNode, from: Int32, to: Int32) throws(GrammarError) {
        try checkSize()
        switch node {
        case .set(let ranges):
            nfa.addScalarSet(ranges, from: from, to: to)
        case .concatenation(let parts):
            var current = from
            for (index, part) in parts.enumerated() {
                let next = index == parts.count - 1 ? to : nfa.addState()
                try buildRegex(part, from: current, to: next)
                current = next
            }
            if parts.isEmpty { nfa.addEpsilon(from, to) }
        case .alternation(let branches):
            for branch in branches { try buildRegex(branch, from: from, to: to) }
        case .repetition(let inner, let minimum, let maximum):
            var current = from
            for _ in 0..<minimum {
                let next = nfa.addState()
                try buildRegex(inner, from: current, to: next)
                current = next
            }
            if let maximum {
                for _ in minimum..<maximum {
                    nfa.addEpsilon(current, to)
                    let next = nfa.addState()
                    try buildRegex(inner, from: current, to: next)
                    current = next
                }
                nfa.addEpsilon(current, to)
            } else {
                let loop = nfa.addState()
                nfa.addEpsilon(current, loop)
                let back = nfa.addState()
                try buildRegex(inner, from: loop, to: back)
                nfa.addEpsilon(back, loop)
                nfa.addEpsilon(loop, to)
            }
        }
    }

    private mutating func buildArray(
        _ items: SchemaNode, _ minimumCount: Int, _ maximumCount: Int?, _ unique: Bool, from: Int32, to: Int32
    ) throws(GrammarError) {
        let minimum = max(0, minimumCount)
        if let maximumCount, maximumCount < minimum {
            throw GrammarError(
                .unsatisfiable, construct: "array count",
                "array count bounds \(minimumCount)...\(maximumCount) are empty")
        }
        var maximumCount = maximumCount
        var uniqueIndex: Int32 = -1
        var itemRule: Int32 = -1
        if unique {
            let finite = enumerate(items, depth: 0).map(Self.uniqueValues)
            if let finite {
                // Values that differ only in spelling (an object literal's member order) are one value.
                let distinct = Self.distinctCount(finite)
                try Self.checkUniqueCount(minimum, distinct: distinct)
                // No array of unique values is longer than the values there are.
                if let bound = maximumCount { maximumCount = min(bound, distinct) }
            }
            uniqueArrays.append(Grammar.UniqueArray(finiteValues: finite))
            uniqueIndex = Int32(uniqueArrays.count - 1)
            itemRule = newRule()
            if finite == nil {
                unlistedItems.append((array: uniqueArrays.count - 1, rule: itemRule, minimumCount: minimum))
            }
            try build(items, from: rules[Int(itemRule)].start, to: rules[Int(itemRule)].accept)
        }
        let open = nfa.addLiteral([UInt8(ascii: "[")], from: from)
        if minimum == 0 { addLiteral([UInt8(ascii: "]")], from: open, to: to) }
        if maximumCount == 0 { return }
        // after[k]: k elements written.
        let unrolled = maximumCount ?? max(minimum, 1)
        var previous = open
        for count in 1...unrolled {
            // An element that is a rule call adds no states of its own, so the unrolling itself is checked.
            try checkSize()
            let start = count == 1 ? open : nfa.addLiteral([UInt8(ascii: ",")], from: previous)
            let after = nfa.addState()
            try element(items, rule: itemRule, unique: uniqueIndex, first: count == 1, from: start, to: after)
            if count >= minimum { addLiteral([UInt8(ascii: "]")], from: after, to: to) }
            previous = after
        }
        if maximumCount == nil {
            let start = nfa.addLiteral([UInt8(ascii: ",")], from: previous)
            try element(items, rule: itemRule, unique: uniqueIndex, first: false, from: start, to: previous)
        }
    }

    private mutating func buildTuple(
        _ prefix: [SchemaNode], _ items: SchemaNode?, _ minimumCount: Int, _ maximumCount: Int?, from: Int32, to: Int32
    ) throws(GrammarError) {
        let minimum = max(0, minimumCount)
        // Without further items the array ends after the prefix.
        let maximum = items == nil ? min(maximumCount ?? prefix.count, prefix.count) : maximumCount
        if let maximum, maximum < minimum {
            throw GrammarError(
                .unsatisfiable, construct: "array count",
                "array count bounds \(minimumCount)...\(maximum) are empty for \(prefix.count) positional items")
        }
        let open = nfa.addLiteral([UInt8(ascii: "[")], from: from)
        if minimum == 0 { addLiteral([UInt8(ascii: "]")], from: open, to: to) }
        if maximum == 0 { return }
        let unrolled = maximum ?? max(minimum, prefix.count + 1)
        var previous = open
        for count in 1...unrolled {
            let start = count == 1 ? open : nfa.addLiteral([UInt8(ascii: ",")], from: previous)
            let after = nfa.addState()
            try build(count <= prefix.count ? prefix[count - 1] : items!, from: start, to: after)
            if count >= minimum { addLiteral([UInt8(ascii: "]")], from: after, to: to) }
            previous = after
        }
        if maximum == nil, let items {
            let start = nfa.addLiteral([UInt8(ascii: ",")], from: previous)
            try build(items, from: start, to: previous)
        }
    }

    private mutating func element(
        _ items: SchemaNode, rule: Int32, unique: Int32, first: Bool, from: Int32, to: Int32
    ) throws(GrammarError) {
        if rule >= 0 {
            nfa.calls[Int(from)].append(.init(rule: rule, returnState: to, uniqueArray: unique, isFirstElement: first))
        } else {
            try build(items, from: from, to: to)
        }
    }

    private mutating func buildObject(_ properties: [SchemaProperty], from: Int32, to: Int32) throws(GrammarError) {
        let open = nfa.addLiteral([UInt8(ascii: "{")], from: from)
        var nothingWritten: Int32? = open  // state where no property has been written yet
        var somethingWritten: Int32? = nil  // state where at least one property has been written
        for property in properties {
            let key = ByteNFA.jsonQuoted(property.name) + [UInt8(ascii: ":")]
            let valueStart = nfa.addState()
            let valueEnd = nfa.addState()
            if let nothingWritten { addLiteral(key, from: nothingWritten, to: valueStart) }
            if let somethingWritten { addLiteral([UInt8(ascii: ",")] + key, from: somethingWritten, to: valueStart) }
            try build(property.schema, from: valueStart, to: valueEnd)
            if property.isOptional {
                if let somethingWritten { nfa.addEpsilon(somethingWritten, valueEnd) }
            } else {
                nothingWritten = nil
            }
            somethingWritten = valueEnd
        }
        for state in [nothingWritten, somethingWritten].compactMap({ $0 }) {
            addLiteral([UInt8(ascii: "}")], from: state, to: to)
        }
    }

    /// `{` then any number of `"key":value` entries separated by commas, then `}`. Keys are free strings; a
    /// repeated key is valid JSON (the last value counts).
    private mutating func buildDictionary(_ values: SchemaNode, from: Int32, to: Int32) throws(GrammarError) {
        let open = nfa.addLiteral([UInt8(ascii: "{")], from: from)
        addLiteral([UInt8(ascii: "}")], from: open, to: to)
        let entry = nfa.addState()
        nfa.addEpsilon(open, entry)
        let keyEnd = nfa.addAnyString(from: entry)
        let valueStart = nfa.addLiteral([UInt8(ascii: ":")], from: keyEnd)
        let valueEnd = nfa.addState()
        try build(values, from: valueStart, to: valueEnd)
        addLiteral([UInt8(ascii: ",")], from: valueEnd, to: entry)
        addLiteral([UInt8(ascii: "}")], from: valueEnd, to: to)
    }

    /// Every text of `node`, as the automaton spells it, when there are few of them (for exact uniqueness
    /// bookkeeping).
    private mutating func enumerate(_ node: SchemaNode, depth: Int) -> [[UInt8]]? {
        guard depth < 8 else { return nil }
        switch node {
        case .boolean: return [literal("true"), literal("false")]
        case .null: return [literal("null")]
        case .literal(let text): return [literal(text)]
        case .string(.choices(let choices)): return Array(Set(choices.map { ByteNFA.jsonQuoted($0) }))
        case .integer(var minimum?, var maximum?):
            // Only the values the automaton writes (at most 18 digits, as `build` clamps them) count.
            let hardLimit = Self.power10(18) - 1
            (minimum, maximum) = (max(minimum, -hardLimit), min(maximum, hardLimit))
            guard maximum >= minimum, maximum - minimum < Self.maximumFiniteValues else { return nil }
            return (minimum...maximum).map { Array(String($0).utf8) }
        case .anyOf(let alternatives):
            var values = Set<[UInt8]>()
            for alternative in alternatives {
                guard let more = enumerate(alternative, depth: depth + 1) else { return nil }
                values.formUnion(more)
                if values.count > Self.maximumFiniteValues { return nil }
            }
            return Array(values)
        case .reference(let name):
            let key = EnumerationKey(name: name, depth: depth)
            if let known = enumerated[key] { return known }
            guard let definition = document.definitions[name] else { return nil }
            let values = enumerate(definition, depth: depth + 1)
            enumerated[key] = .some(values)
            return values
        case .string(.pattern(let pattern)):
            // Counting first avoids materialising thousands of strings for a language that is too large anyway.
            guard let regex = try? RegexParser.parse(pattern), Self.languageSize(of: regex) <= Self.maximumFiniteValues,
                let strings = Self.strings(of: regex)
            else { return nil }
            return Array(Set(strings.map { ByteNFA.jsonQuoted(String(String.UnicodeScalarView($0))) }))
        default: return nil
        }
    }

    /// An upper bound on the number of strings a regex matches, saturating just above ``maximumFiniteValues``.
    static func languageSize(of node: RegexNode) -> Int {
        let cap = maximumFiniteValues + 1
        switch node {
        case .set(let ranges):
            return min(cap, ranges.reduce(0) { $0 + $1.count })
        case .concatenation(let parts):
            return parts.reduce(1) { min(cap, $0 * languageSize(of: $1)) }
        case .alternation(let branches):
            return branches.reduce(0) { min(cap, $0 + languageSize(of: $1)) }
        case .repetition(let inner, let minimum, let maximum):
            guard let maximum else { return cap }
            let size = languageSize(of: inner)
            var total = 0
            var power = 1
            for count in 0...maximum {
                if count >= minimum { total = min(cap, total + power) }
                if total >= cap { break }
                power = min(cap, power * size)
            }
            return total
        }
    }

    /// Every string a regex matches, when there are at most ``maximumFiniteValues`` of them.
    static func strings(of node: RegexNode) -> [[Unicode.Scalar]]? {
        let limit = maximumFiniteValues
        switch node {
        case .set(let ranges):
            let size = ranges.reduce(0) { $0 + $1.count }
            guard size <= limit else { return nil }
            return ranges.flatMap { range in range.compactMap { Unicode.Scalar($0).map { [$0] } } }
        case .concatenation(let parts):
            var result: [[Unicode.Scalar]] = [[]]
            for part in parts {
                guard let options = strings(of: part), result.count * options.count <= limit else { return nil }
                result = result.flatMap { prefix in options.map { prefix + $0 } }
            }
            return result
        case .alternation(let branches):
            var result: [[Unicode.Scalar]] = []
            for branch in branches {
                guard let more = strings(of: branch), result.count + more.count <= limit else { return nil }
                result += more
            }
            return result
        case .repetition(let inner, let minimum, let maximum):
            guard let maximum, let options = strings(of: inner) else { return nil }
            var result: [[Unicode.Scalar]] = []
            var current: [[Unicode.Scalar]] = [[]]
            for count in 0...maximum {
                if count >= minimum { result += current }
                guard result.count <= limit else { return nil }
                if count == maximum { break }
                guard current.count * options.count <= limit else { return nil }
                current = current.flatMap { prefix in options.map { prefix + $0 } }
            }
            return result
        }
    }

    static func power10(_ exponent: Int) -> Int {
        var value = 1
        for _ in 0..<max(0, exponent) { value *= 10 }
        return value
    }
}
