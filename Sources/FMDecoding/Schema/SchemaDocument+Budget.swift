extension SchemaDocument {
    /// The fewest response tokens a budget derived from a schema gives.
    public static let smallestResponseBudget = 256
    /// The most response tokens a budget derived from a schema gives: beyond this a batch job is looking at
    /// a runaway, not an answer.
    public static let largestResponseBudget = 2_048

    /// A response-token budget for values of this schema when the caller sets none: twice a generous
    /// estimate of a typical value's length, within ``smallestResponseBudget``…``largestResponseBudget``.
    ///
    /// A grammar bounds the shape but not the size of a value wherever the schema leaves an array or a map
    /// open, and a small model can fill such an array until the context window is full. The estimate counts
    /// about 3 bytes per token, 48 tokens for a free string, 8 elements for an array without `maxItems` (at
    /// most 64 with one), 8 entries for a map, and the largest alternative of a union; recursion is followed 3
    /// levels deep.
    public var responseTokenBudget: Int {
        let estimate = Self.estimate(root, definitions: definitions, depth: 0)
        return min(Self.largestResponseBudget, max(Self.smallestResponseBudget, 2 * estimate))
    }

    /// Estimates saturate here, far above any budget, so nested arrays cannot overflow.
    private static let saturation = 1 << 24

    private static func estimate(_ node: SchemaNode, definitions: [String: SchemaNode], depth: Int) -> Int {
        min(saturation, unsaturatedEstimate(node, definitions: definitions, depth: depth))
    }

    private static func unsaturatedEstimate(_ node: SchemaNode, definitions: [String: SchemaNode], depth: Int) -> Int {
        switch node {
        case .string(let constraint):
            switch constraint {
            case .any, .pattern: return 48
            case .choices(let values): return 2 + (values.map(\.utf8.count).max() ?? 0) / 3
            case .matching(_, _, let maximumLength): return 2 + min(maximumLength ?? 144, 1_024) / 3
            }
        case .integer, .number: return 8
        case .boolean, .null: return 2
        case .literal(let text): return 1 + text.utf8.count / 3
        case .array(let items, let minimumCount, let maximumCount, _):
            let count = min(max(minimumCount, maximumCount ?? 8), 64)
            return 2 + count * (1 + estimate(items, definitions: definitions, depth: depth))
        case .tuple(let prefix, let items, let minimumCount, let maximumCount):
            var total = 2 + prefix.reduce(0) { $0 + 1 + estimate($1, definitions: definitions, depth: depth) }
            if let items {
                let extra = min(max(minimumCount, maximumCount ?? prefix.count + 8) - prefix.count, 64)
                total += max(0, extra) * (1 + estimate(items, definitions: definitions, depth: depth))
            }
            return total
        case .object(let properties):
            return 2 + properties.reduce(0) { $0 + 2 + $1.name.utf8.count / 3 + estimate($1.schema, definitions: definitions, depth: depth) }
        case .dictionary(let values):
            return 2 + 8 * (6 + estimate(values, definitions: definitions, depth: depth))
        case .anyOf(let alternatives):
            return alternatives.map { estimate($0, definitions: definitions, depth: depth) }.max() ?? 2
        case .reference(let name):
            guard depth < 3, let target = definitions[name] else { return 16 }
            return estimate(target, definitions: definitions, depth: depth + 1)
        }
    }
}
