import FMDecoding

/// Where a response chooses among a few fixed values — enumeration and Bool properties — and the JSON
/// literals to choose from.
///
/// Greedy decoding picks such a value by its first token, which favours values that share a likely first
/// token and splits the probability of multi-token labels. With choice points known, the generator scores
/// every candidate's whole token sequence at once and takes the most likely one (see ``Generator``).
package struct ChoicePoints: Sendable, Hashable {
    /// The most candidates scored in full; larger sets are decoded token by token.
    static let maximumCandidates = 16

    /// JSON literals (quoted strings, `true`/`false`) per property name.
    private(set) var literals: [String: [[UInt8]]] = [:]

    /// The choice points of a document. A property name counts only if every property of that name in the
    /// document is a choice of the same values, so the suffix `"name":` identifies the choice.
    init(document: SchemaDocument) {
        var found: [String: Set<[UInt8]>] = [:]
        var ambiguous: Set<String> = []
        var visited: Set<String> = []
        func visit(_ node: SchemaNode) {
            switch node {
            case .object(let properties):
                for property in properties {
                    if let values = Self.literals(of: property.schema, definitions: document.definitions) {
                        if let known = found[property.name], known != values { ambiguous.insert(property.name) }
                        found[property.name] = values
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
        for (name, values) in found where !ambiguous.contains(name) && values.count > 1 {
            literals[name] = values.sorted { $0.lexicographicallyPrecedes($1) }
        }
    }

    private static func literals(of node: SchemaNode, definitions: [String: SchemaNode]) -> Set<[UInt8]>? {
        switch node {
        case .boolean:
            return [Array("true".utf8), Array("false".utf8)]
        case .string(.choices(let values)):
            return Set(values.map(JSONText.quoted))
        case .reference(let name):
            return definitions[name].flatMap { literals(of: $0, definitions: definitions) }
        default:
            return nil
        }
    }

    var isEmpty: Bool { literals.isEmpty }

    /// The candidates open at the end of `output`: the rest of each literal that the value written so far
    /// (after the last `"name":`) begins, or `nil` when `output` is not inside a choice.
    func remainders(after output: [UInt8]) -> [[UInt8]]? {
        guard let colon = output.lastIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
        let written = output[(colon + 1)...]
        // The key right before the colon: `"name"`.
        guard output[colon - 1] == UInt8(ascii: "\""),
              let open = output[..<(colon - 1)].lastIndex(of: UInt8(ascii: "\"")) else { return nil }
        let name = String(decoding: output[(open + 1)..<(colon - 1)], as: UTF8.self)
        guard let values = literals[name] else { return nil }
        let candidates = values.filter { $0.starts(with: written) && $0.count > written.count }
        guard candidates.count > 1 else { return nil }
        return candidates.map { Array($0.dropFirst(written.count)) }
    }
}
