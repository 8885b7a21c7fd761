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
        var estimator = BudgetEstimator(definitions: definitions)
        let estimate = estimator.estimate(root, depth: 0)
        return min(Self.largestResponseBudget, max(Self.smallestResponseBudget, 2 * estimate))
    }
}

/// The length estimate behind ``SchemaDocument/responseTokenBudget``, remembered per definition and depth: a union
/// of many references to a union of many references would otherwise be walked once per path (a billion walks for
/// three levels of a thousand).
private struct BudgetEstimator {
    let definitions: [String: SchemaNode]
    private var known: [Key: Int] = [:]

    private struct Key: Hashable {
        var name: String
        var depth: Int
    }

    /// Estimates saturate here, far above any budget, so nested arrays cannot overflow.
    private static let saturation = 1 << 24

    init(definitions: [String: SchemaNode]) { self.definitions = definitions }

    mutating func estimate(_ node: SchemaNode, depth: Int) -> Int {
        min(Self.saturation, unsaturatedEstimate(node, depth: depth))
    }

    private mutating func unsaturatedEstimate(_ node: SchemaNode, depth: Int) -> Int {
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
            return 2 + count * (1 + estimate(items, depth: depth))
        case .tuple(let prefix, let items, let minimumCount, let maximumCount):
            var total = 2
            for element in prefix { total += 1 + estimate(element, depth: depth) }
            if let items {
                let extra = min(max(minimumCount, maximumCount ?? prefix.count + 8) - prefix.count, 64)
                total += max(0, extra) * (1 + estimate(items, depth: depth))
            }
            return total
        case .object(let properties):
            var total = 2
            for property in properties {
                total += 2 + property.name.utf8.count / 3 + estimate(property.schema, depth: depth)
            }
            return total
        case .dictionary(let values):
            return 2 + 8 * (6 + estimate(values, depth: depth))
        case .anyOf(let alternatives):
            var largest = 2
            for (index, alternative) in alternatives.enumerated() {
                let size = estimate(alternative, depth: depth)
                largest = index == 0 ? size : max(largest, size)
            }
            return largest
        case .reference(let name):
            guard depth < 3, let target = definitions[name] else { return 16 }
            let key = Key(name: name, depth: depth)
            if let size = known[key] { return size }
            let size = estimate(target, depth: depth + 1)
            known[key] = size
            return size
        }
    }
}
