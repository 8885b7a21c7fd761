import FMDecoding

/// Where a response chooses among a few fixed values — enumeration and Bool properties — and the JSON
/// literals to choose from.
///
/// Greedy decoding picks such a value by its first token, which favours values that share a likely first
/// token and splits the probability of multi-token labels. With choice points known, the generator scores
/// every candidate's whole token sequence at once and takes the most likely one (see ``Generator``).
package struct ChoicePoints: Sendable, Hashable {
    /// The spare sequences a context keeps for scoring candidates side by side; larger sets are scored in
    /// several rounds.
    static let maximumCandidates = 16

    /// JSON literals (quoted strings, `true`/`false`) per property name.
    private(set) var literals: [String: [[UInt8]]] = [:]
    /// JSON literals per property name, for properties that are arrays of choices (chosen element by element).
    private(set) var elementLiterals: [String: [[UInt8]]] = [:]

    /// Where a choice is made: the property, and what of the value (or array element) is written already.
    struct Site: Hashable, Sendable, Codable {
        var property: String
        var written: [UInt8]
        /// The site's channel scores (``Generator/channelScores(property:literals:text:context:spares:)``),
        /// calibrated apart from its direct ones.
        var channel = false
    }

    /// An open choice: its site, and the candidates' full literals with the part still to write.
    struct OpenChoice {
        var site: Site
        var literals: [[UInt8]]
        var remainders: [[UInt8]]
        /// In an array of choices, the elements written before this one; empty for a single value.
        var earlier: [[UInt8]] = []
    }

    /// The choice points of a document. A property name counts only if every property of that name in the
    /// document is a choice of the same values, so the suffix `"name":` identifies the choice.
    init(document: SchemaDocument) {
        var found: [String: Set<[UInt8]>] = [:]
        var foundElements: [String: Set<[UInt8]>] = [:]
        var ambiguous: Set<String> = []
        var visited: Set<String> = []
        func visit(_ node: SchemaNode) {
            switch node {
            case .object(let properties):
                for property in properties {
                    if let values = Self.literals(of: property.schema, definitions: document.definitions) {
                        if let known = found[property.name], known != values { ambiguous.insert(property.name) }
                        found[property.name] = values
                    } else if case .array(let items, _, _, _) = Self.resolved(property.schema, definitions: document.definitions),
                        let values = Self.literals(of: items, definitions: document.definitions) {
                        if let known = foundElements[property.name], known != values { ambiguous.insert(property.name) }
                        foundElements[property.name] = values
                    } else {
                        ambiguous.insert(property.name)
                    }
                    visit(property.schema)
                }
            case .array(let items, _, _, _):
                visit(items)
            case .anyOf(let choices):
                choices.forEach(visit)
            case .reference(let name):
                if visited.insert(name).inserted, let definition = document.definitions[name] { visit(definition) }
            default:
                break
            }
        }
        visit(document.root)
        for (name, values) in found where !ambiguous.contains(name) && values.count > 1 && foundElements[name] == nil {
            literals[name] = values.sorted { $0.lexicographicallyPrecedes($1) }
        }
        for (name, values) in foundElements where !ambiguous.contains(name) && values.count > 1 && found[name] == nil {
            elementLiterals[name] = values.sorted { $0.lexicographicallyPrecedes($1) }
        }
    }

    private static func resolved(_ node: SchemaNode, definitions: [String: SchemaNode]) -> SchemaNode {
        if case .reference(let name) = node, let target = definitions[name] { return target }
        return node
    }

    private static func literals(of node: SchemaNode, definitions: [String: SchemaNode]) -> Set<[UInt8]>? {
        // A chain of references is followed once: definitions that only name each other (`A: {"$ref": A}`) are
        // valid input, and hold no choice.
        var node = node
        var followed: Set<String> = []
        while case .reference(let name) = node {
            guard followed.insert(name).inserted, let target = definitions[name] else { return nil }
            node = target
        }
        switch node {
        case .boolean:
            return [Array("true".utf8), Array("false".utf8)]
        case .string(.choices(let values)):
            return Set(values.map(JSONText.quoted))
        default:
            return nil
        }
    }

    var isEmpty: Bool { literals.isEmpty && elementLiterals.isEmpty }

    /// Whether a choice among `literals` is a Bool's: `true` or `false`.
    static func areBooleans(_ literals: [[UInt8]]) -> Bool {
        Set(literals) == [Array("true".utf8), Array("false".utf8)]
    }

    /// Whether every choice is between `true` and `false` (and there is at least one).
    var offersOnlyBooleans: Bool {
        !isEmpty && literals.values.allSatisfy(Self.areBooleans) && elementLiterals.values.allSatisfy(Self.areBooleans)
    }

    /// The candidates open at the end of `output`: the rest of each literal that the value written so far
    /// (after the last `"name":`, or after the array's complete elements) begins, or `nil` when `output` is
    /// not inside a choice.
    func remainders(after output: [UInt8]) -> [[UInt8]]? {
        open(after: output)?.remainders
    }

    /// The choice open at the end of `output`, or `nil` when `output` is not inside a choice.
    func open(after output: [UInt8]) -> OpenChoice? {
        // The last colon that is structure: one inside a string (a value such as `"10:30"`) is text.
        var lexical = JSONLexicalState()
        var lastColon: Int?
        for (index, byte) in output.enumerated() where lexical.consume(byte) == .structure && byte == UInt8(ascii: ":") {
            lastColon = index
        }
        guard let colon = lastColon, colon > 0 else { return nil }
        var written = output[(colon + 1)...]
        // The key right before the colon: `"name"`.
        guard output[colon - 1] == UInt8(ascii: "\""),
              let open = output[..<(colon - 1)].lastIndex(of: UInt8(ascii: "\"")) else { return nil }
        let name = String(decoding: output[(open + 1)..<(colon - 1)], as: UTF8.self)
        let values: [[UInt8]]
        var earlier: [[UInt8]] = []
        if let scalars = literals[name] {
            values = scalars
        } else if let elements = elementLiterals[name], written.first == UInt8(ascii: "[") {
            // Skip the complete elements: `[` then `literal,` repeated.
            written = written.dropFirst()
            while let element = elements.first(where: { written.starts(with: $0 + [UInt8(ascii: ",")]) }) {
                written = written.dropFirst(element.count + 1)
                earlier.append(element)
            }
            values = elements
        } else {
            return nil
        }
        let candidates = values.filter { $0.starts(with: written) && $0.count > written.count }
        guard candidates.count > 1 else { return nil }
        return OpenChoice(
            site: Site(property: name, written: Array(written)),
            literals: candidates,
            remainders: candidates.map { Array($0.dropFirst(written.count)) },
            earlier: earlier)
    }
}
