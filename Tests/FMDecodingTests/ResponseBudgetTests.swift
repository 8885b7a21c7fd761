import FMDecoding
import Testing

/// The default response budget follows the schema's size, within its bounds.
struct ResponseBudgetEstimateTests {
    private func budget(_ root: SchemaNode, definitions: [String: SchemaNode] = [:]) -> Int {
        SchemaDocument(root: root, definitions: definitions).responseTokenBudget
    }

    @Test func smallSchemasGetTheSmallestBudget() {
        #expect(budget(.boolean) == SchemaDocument.smallestResponseBudget)
        #expect(budget(.object(properties: [SchemaProperty(name: "label", schema: .string(.choices(["a", "b"])))]))
            == SchemaDocument.smallestResponseBudget)
    }

    @Test func theBudgetGrowsWithTheSchema() {
        let point = SchemaNode.object(properties: [
            SchemaProperty(name: "latitude", schema: .number(minimum: nil, maximum: nil)),
            SchemaProperty(name: "longitude", schema: .number(minimum: nil, maximum: nil)),
        ])
        let open = budget(.array(items: point, minimumCount: 0, maximumCount: nil, uniqueItems: false))
        let bounded = budget(.array(items: point, minimumCount: 0, maximumCount: 40, uniqueItems: false))
        #expect(open >= SchemaDocument.smallestResponseBudget)
        #expect(bounded > open, "40 elements need more room than the 8 assumed for an open array")
        let longText = budget(.string(.matching(patterns: [], minimumLength: 0, maximumLength: 1_000)))
        #expect(longText > budget(.string(.any)))
    }

    @Test func hugeAndRecursiveSchemasStayWithinTheLargestBudget() {
        var node = SchemaNode.string(.any)
        for _ in 0..<20 { node = .array(items: node, minimumCount: 0, maximumCount: 10_000, uniqueItems: false) }
        #expect(budget(node) == SchemaDocument.largestResponseBudget)
        let tree = SchemaNode.object(properties: [
            SchemaProperty(name: "children", schema: .array(items: .reference("Tree"), minimumCount: 0, maximumCount: nil, uniqueItems: false)),
        ])
        let recursive = budget(.reference("Tree"), definitions: ["Tree": tree])
        #expect(recursive >= SchemaDocument.smallestResponseBudget && recursive <= SchemaDocument.largestResponseBudget)
    }

    @Test func aUnionCountsItsLargestAlternative() {
        let big = SchemaNode.array(items: .string(.any), minimumCount: 0, maximumCount: 30, uniqueItems: false)
        #expect(budget(.anyOf([.null, big])) == budget(big))
    }
}
