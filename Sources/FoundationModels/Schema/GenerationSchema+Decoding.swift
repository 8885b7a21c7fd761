package import FMDecoding

// Bridges from a schema to the decoder and to the prompt.

/// An error lowering a schema into the decoder's representation.
///
/// The session reports ``Code-swift.enum/unsupportedGuide`` as `GenerationError.unsupportedGuide`.
package struct SchemaLoweringError: Error, CustomStringConvertible {
    /// The kind of problem.
    package enum Code: Sendable, Hashable {
        /// A guide can't be enforced: a pattern whose text is unknown, or guides no value can satisfy.
        case unsupportedGuide
        /// A reference names no definition.
        case undefinedReference
    }

    /// The kind of problem.
    package var code: Code
    /// What is wrong, naming the property or type.
    package var message: String

    /// Creates an error.
    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    package var description: String { message }
}

extension GenerationSchema {
    /// The name under which the "any JSON value" shape is defined when a schema needs it.
    package static let anyValueDefinitionName = "GeneratedContent.Any"

    /// The longest string a `maxLength` is enforced up to; a larger maximum generates strings at most this long.
    package static let maximumEnforcedLength = 256

    /// The magnitude limit of integers without bounds (15 digits, as the grammar writes them).
    package static let unboundedIntegerLimit = 999_999_999_999_999
    /// The largest integer a `Double` holds together with every smaller one (2^53 − 1): integers are generated
    /// within ±this, so each reads back as the value written.
    package static let largestExactInteger = 9_007_199_254_740_991

    /// The most multiples an integer `multipleOf` lists; beyond it, the ones closest to zero are generated.
    package static let maximumListedMultiples = 1_024

    /// Lowers the schema into the decoder's representation.
    ///
    /// Strings become `.string` (a `constant` is a one-element `.choices`), whole numbers `.integer`, other numbers
    /// `.number`, string enumerations `.string(.choices)`, unions `.anyOf`, structures `.object` with properties in
    /// order, and nested or recursive types `.reference`s into `definitions`. Optional properties are optional;
    /// with explicit nil they are required but may be `null`.
    ///
    /// - Returns: The decoder's schema document.
    /// - Throws: ``SchemaLoweringError`` for a pattern whose source text is unknown, guides no value satisfies, or
    ///   a reference to a missing definition.
    package func decodingDocument() throws -> SchemaDocument {
        var lowering = Lowering(aliases: aliases)
        let rootNode = try lowering.lower(root, at: root.typeName ?? "root")
        var definitions: [String: SchemaNode] = [:]
        for definition in self.definitions {
            definitions[definition.name] = try lowering.lower(definition.node, at: definition.name)
        }
        if let name = root.typeName, lowering.references.contains(name), definitions[name] == nil {
            definitions[name] = rootNode
        }
        if lowering.usesAnyValue {
            definitions[Self.anyValueDefinitionName] = Self.anyValueNode
        }
        if let missing = lowering.references.sorted().first(where: { definitions[$0] == nil }) {
            throw SchemaLoweringError(code: .undefinedReference, message: "The schema refers to an undefined type \"\(missing)\".")
        }
        return SchemaDocument(root: rootNode, definitions: definitions)
    }

    /// Definitions that only name another (`"A": {"$ref": "#/$defs/B"}`), each with the first definition down its
    /// chain that is more than a name (or the undefined name the chain ends at). A reference to an alias is
    /// written to that one, so a chain of aliases does not count as nesting in the decoder. Names in a cycle of
    /// aliases are left as they are: the decoder finds that they hold no value.
    private var aliases: [String: String] {
        let nodes = Dictionary(definitions.map { ($0.name, $0.node) }, uniquingKeysWith: { first, _ in first })
        var aliases: [String: String] = [:]
        for definition in definitions {
            guard case .reference(var target) = definition.node else { continue }
            var followed: Set<String> = [definition.name]
            while case .reference(let next)? = nodes[target], followed.insert(target).inserted { target = next }
            if !followed.contains(target) { aliases[definition.name] = target }
        }
        return aliases
    }

    /// Any JSON value.
    private static var anyValueNode: SchemaNode {
        let any = SchemaNode.reference(anyValueDefinitionName)
        return .anyOf([
            .string(.any), .number(minimum: nil, maximum: nil), .boolean, .null,
            .array(items: any, minimumCount: 0, maximumCount: nil, uniqueItems: false), .dictionary(values: any),
        ])
    }
}

/// The state of one lowering pass.
private struct Lowering {
    /// Every definition name referred to.
    var references: Set<String> = []
    /// Whether some node accepts any JSON value.
    var usesAnyValue = false
    /// Definitions that only name another, with the definition their chain leads to.
    let aliases: [String: String]

    mutating func lower(_ node: GenerationSchema.Node, at path: String) throws -> SchemaNode {
        switch node {
        case .string(let guides):
            return try lowerString(guides, at: path)
        case .integer(let bounds):
            return try lowerInteger(bounds, at: path)
        case .number(let bounds):
            if bounds.multipleOf != nil { return try lowerInteger(bounds, at: path) }
            var minimum = bounds.minimum
            var maximum = bounds.maximum
            if bounds.isMinimumExclusive, let value = minimum { minimum = Self.decimal(above: value) }
            if bounds.isMaximumExclusive, let value = maximum { maximum = -Self.decimal(above: -value) }
            if let minimum, let maximum, minimum > maximum {
                throw SchemaLoweringError(code: .unsupportedGuide, message: "The range at \(path) allows no number.")
            }
            return .number(minimum: minimum, maximum: maximum)
        case .boolean:
            return .boolean
        case .null:
            return .null
        case .any:
            usesAnyValue = true
            return .reference(GenerationSchema.anyValueDefinitionName)
        case .constant(let text):
            return .literal(text)
        case .array(let array):
            let minimum = max(array.minimumCount ?? 0, 0)
            if let maximum = array.maximumCount, maximum < minimum {
                throw SchemaLoweringError(code: .unsupportedGuide,
                                          message: "The count guides at \(path) allow no array length.")
            }
            let items = try lower(array.items, at: path + "[]")
            if !array.prefixItems.isEmpty {
                let prefix = try array.prefixItems.enumerated().map { try lower($1, at: "\(path)[\($0)]") }
                return .tuple(prefix: prefix, items: items, minimumCount: minimum, maximumCount: array.maximumCount)
            }
            return .array(items: items, minimumCount: minimum, maximumCount: array.maximumCount,
                          uniqueItems: array.uniqueItems)
        case .object(let object):
            // Keys beyond declared properties cannot be told apart from them token by token, so a map's values
            // are generated only for objects that declare none.
            if object.properties.isEmpty, let values = object.additionalValues {
                return .dictionary(values: try lower(values, at: path + "[]"))
            }
            return .object(properties: try object.properties.map { property in
                var schema = try lower(property.node, at: "\(path).\(property.name)")
                var isOptional = property.isOptional
                if isOptional, object.representsNilExplicitly {
                    // Explicit nil: the key is always written, holding null when there is no value.
                    schema = .anyOf([schema, .null])
                    isOptional = false
                }
                return SchemaProperty(name: property.name, schema: schema, isOptional: isOptional)
            })
        case .enumeration(let enumeration):
            guard !enumeration.choices.isEmpty else {
                throw SchemaLoweringError(code: .unsupportedGuide, message: "The enumeration \(path) has no cases.")
            }
            return .string(.choices(enumeration.choices))
        case .anyOf(let union):
            return .anyOf(try union.choices.enumerated().map { try lower($1, at: "\(path)|\($0)") })
        case .reference(let name):
            let target = aliases[name] ?? name
            references.insert(target)
            return .reference(target)
        }
    }

    /// The decoder's pattern text of a regex guide.
    private static func source(of pattern: RegexPattern, at path: String) throws -> String {
        guard let source = pattern.source else {
            throw SchemaLoweringError(
                code: .unsupportedGuide,
                message: "The pattern guide at \(path) has no recoverable source text; use a regex literal "
                    + "in @Guide, or GenerationGuide._pattern(_:source:).")
        }
        return source
    }

    private func lowerString(_ guides: GenerationSchema.StringGuides, at path: String) throws -> SchemaNode {
        if var choices = guides.choices {
            // A pattern beside choices (`.anyOf` or `.constant` with `.pattern`) keeps the choices it matches.
            if let pattern = guides.pattern {
                let source = try Self.source(of: pattern, at: path)
                do {
                    let matcher = try PatternMatcher(pattern: source)
                    choices = choices.filter(matcher.matches)
                } catch {
                    throw SchemaLoweringError(code: .unsupportedGuide, message: "The pattern at \(path): \(error.message)")
                }
            }
            guard !choices.isEmpty else {
                throw SchemaLoweringError(code: .unsupportedGuide, message: "The string guides at \(path) allow no value.")
            }
            return .string(.choices(choices))
        }
        var patterns: [String] = []
        if let pattern = guides.pattern { patterns.append(try Self.source(of: pattern, at: path)) }
        guard guides.hasJSONSchemaGuides else { return patterns.first.map { .string(.pattern($0)) } ?? .string(.any) }
        for search in guides.searchPatterns {
            do {
                patterns.append(try PatternMatcher.wholeMatchSource(searching: search))
            } catch {
                throw SchemaLoweringError(code: .unsupportedGuide, message: "The pattern at \(path): \(error.message)")
            }
        }
        if let format = guides.format, let pattern = JSONSchemaFormat.pattern(for: format) { patterns.append(pattern) }
        let minimum = max(guides.minimumLength ?? 0, 0)
        // Long maximums are generated as shorter strings: each allowed length costs automaton states.
        let maximum = guides.maximumLength.map { min($0, max(minimum, GenerationSchema.maximumEnforcedLength)) }
        if let maximum, maximum < minimum {
            throw SchemaLoweringError(code: .unsupportedGuide, message: "The length guides at \(path) allow no string.")
        }
        return .string(.matching(patterns: patterns, minimumLength: minimum, maximumLength: maximum))
    }

    /// Whether `divisor` is 1/n for a whole n: whether 1 is a whole multiple of it.
    private static func isReciprocalOfWholeNumber(_ divisor: Double) -> Bool {
        divisor <= 1 && JSONSchemaMultiple.isMultiple(1, of: divisor) == true
    }

    /// Integers, and numbers whose `multipleOf` makes them whole (generated as integers).
    private func lowerInteger(_ bounds: GenerationSchema.NumericBounds, at path: String) throws -> SchemaNode {
        // A lower bound at or past `Int.max` (or an upper one at `Int.min`) saturates, and stepping past an
        // exclusive one would wrap to the other end and allow every integer: no integer the decoder writes is
        // that large anyway.
        if let value = bounds.minimum, value.rounded(.up) >= Double(Int.max) {
            throw SchemaLoweringError(
                code: .unsupportedGuide,
                message: "The range at \(path) starts at \(value), beyond the largest integer the decoder writes.")
        }
        if let value = bounds.maximum, value.rounded(.down) <= Double(Int.min) {
            throw SchemaLoweringError(
                code: .unsupportedGuide,
                message: "The range at \(path) ends at \(value), beyond the smallest integer the decoder writes.")
        }
        var minimum = bounds.minimum.map { Self.integer($0.rounded(.up)) }
        var maximum = bounds.maximum.map { Self.integer($0.rounded(.down)) }
        if bounds.isMinimumExclusive, let value = bounds.minimum, value == value.rounded() { minimum = minimum.map { $0 &+ 1 } }
        if bounds.isMaximumExclusive, let value = bounds.maximum, value == value.rounded() { maximum = maximum.map { $0 &- 1 } }
        // Generated numbers are read as `Double`s, which hold every integer only up to 2^53: past it a value
        // written could read back as its neighbour, outside the range (bounds given past it are already rounded).
        let exact = GenerationSchema.largestExactInteger
        if let value = minimum, value > exact {
            throw SchemaLoweringError(
                code: .unsupportedGuide,
                message: "The range at \(path) starts at \(value), beyond \(exact), the largest integer read back exactly.")
        }
        if let value = maximum, value < -exact {
            throw SchemaLoweringError(
                code: .unsupportedGuide,
                message: "The range at \(path) ends at \(value), beyond -\(exact), the smallest integer read back exactly.")
        }
        minimum = minimum.map { max($0, -exact) }
        maximum = maximum.map { min($0, exact) }
        // An open side past a bound beyond the unbounded digits would otherwise reach the decoder's 18 digits.
        if maximum == nil, let value = minimum, value > GenerationSchema.unboundedIntegerLimit { maximum = exact }
        if minimum == nil, let value = maximum, value < -GenerationSchema.unboundedIntegerLimit { minimum = -exact }
        if let minimum, let maximum, minimum > maximum {
            // A number whose multipleOf is 1/n is generated as integers (docs/json-schema.md); its fractional
            // multiples in the range are valid values the decoder does not write.
            if let divisor = bounds.multipleOf, divisor > 0, divisor < 1 {
                // A divisor that is neither whole nor 1/n is refused for itself, whatever the range.
                guard Self.isReciprocalOfWholeNumber(divisor) else {
                    throw SchemaLoweringError(
                        code: .unsupportedGuide,
                        message: "The multipleOf \(divisor) at \(path) is neither a whole number nor 1/n of one.")
                }
                throw SchemaLoweringError(code: .unsupportedGuide, message:
                    "The range at \(path) holds no whole number; a number with multipleOf \(divisor) is generated as whole numbers only, not as fractional multiples.")
            }
            throw SchemaLoweringError(code: .unsupportedGuide, message: "The range at \(path) allows no integer.")
        }
        guard let divisor = bounds.multipleOf, divisor != 1 else { return .integer(minimum: minimum, maximum: maximum) }
        let step: Int
        if divisor > 0, divisor == divisor.rounded(), divisor < 1e15 {
            step = Int(divisor)
        } else if divisor > 0, divisor < 1, Self.isReciprocalOfWholeNumber(divisor) {
            // Every integer is a multiple of 1/n; fractional multiples are not generated.
            return .integer(minimum: minimum, maximum: maximum)
        } else {
            throw SchemaLoweringError(
                code: .unsupportedGuide,
                message: "The multipleOf \(divisor) at \(path) is neither a whole number nor 1/n of one.")
        }
        let limit = GenerationSchema.unboundedIntegerLimit
        // Given bounds are already within ±(2^53 − 1); an open side ends at the unbounded digits.
        let low = Self.ceilingDivision(minimum ?? -limit, step)
        let high = Self.floorDivision(maximum ?? limit, step)
        guard low <= high else {
            throw SchemaLoweringError(
                code: .unsupportedGuide, message: "The range at \(path) holds no multiple of \(step).")
        }
        // The multiples closest to zero, when there are too many to list.
        var factors: [Int] = []
        let nearest = min(max(0, low), high)
        var below = nearest - 1
        var above = nearest
        while factors.count < GenerationSchema.maximumListedMultiples, below >= low || above <= high {
            if above <= high, above - nearest <= nearest - below || below < low {
                factors.append(above)
                above += 1
            } else {
                factors.append(below)
                below -= 1
            }
        }
        return .anyOf(factors.sorted().map { .literal(String($0 * step)) })
    }

    private static func floorDivision(_ value: Int, _ divisor: Int) -> Int {
        let quotient = value / divisor
        return value % divisor != 0 && value < 0 ? quotient - 1 : quotient
    }

    private static func ceilingDivision(_ value: Int, _ divisor: Int) -> Int {
        let quotient = value / divisor
        return value % divisor != 0 && value > 0 ? quotient + 1 : quotient
    }

    /// The smallest number the grammar can write (at most its fraction digits) that is greater than `value`.
    private static func decimal(above value: Double) -> Double {
        let scale = Self.fractionScale
        var candidate = ((value * scale).rounded(.down) + 1) / scale
        // Rounding in the scaling must never let the bound slip to `value` or below.
        while candidate <= value { candidate = candidate.nextUp }
        return candidate
    }

    private static let fractionScale: Double = {
        var scale = 1.0
        for _ in 0..<Grammar.Options().maximumFractionDigits { scale *= 10 }
        return scale
    }()

    /// A whole-valued bound as an `Int`, clamped to `Int`'s range.
    private static func integer(_ value: Double) -> Int {
        if value >= Double(Int.max) { return Int.max }
        if value <= Double(Int.min) { return Int.min }
        return Int(value)
    }
}
