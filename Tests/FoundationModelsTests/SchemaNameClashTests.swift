import FoundationModels
import Testing

/// Two nested types of one short name (`Left.Item`, `Right.Item`) inside one schema each keep their own shape:
/// the second is defined under a name of its own, so generated values still parse into both types.
struct SchemaNameClashTests {
    enum Left {
        @Generable struct Item { var x: Int }
    }
    enum Right {
        @Generable struct Item { var name: String }
    }
    @Generable struct Pair {
        var a: Left.Item
        var b: Right.Item
        var c: Left.Item
        var d: [Right.Item]
    }
    @Generable enum Either {
        case left(Left.Item)
        case right(Right.Item)
    }
    /// A property whose type shares the enclosing type's name.
    @Generable struct Item {
        var inner: Left.Item
    }

    @Test func aStructKeepsBothShapes() throws {
        let validator = try StructuredOutputValidator(schema: Pair.generationSchema)
        let content = try validator.validate(#"{"a":{"x":1},"b":{"name":"n"},"c":{"x":2},"d":[{"name":"m"}]}"#)
        let pair = try Pair(content)
        #expect(pair.a.x == 1 && pair.b.name == "n" && pair.c.x == 2 && pair.d.map(\.name) == ["m"])
        #expect(throws: (any Error).self) { try validator.validate(#"{"a":{"x":1},"b":{"x":1},"c":{"x":2},"d":[]}"#) }
        let names = Pair.generationSchema.definitions.map(\.name)
        #expect(names == ["Item", "Item2"], "\(names)")
    }

    @Test func anEnumOfBothBuildsItsSchema() throws {
        let validator = try StructuredOutputValidator(schema: Either.generationSchema)
        guard case .right(let item) = try Either(validator.validate(#"{"right":{"name":"n"}}"#)) else {
            Issue.record("not the right case")
            return
        }
        #expect(item.name == "n")
        #expect(throws: (any Error).self) { try validator.validate(#"{"right":{"x":1}}"#) }
    }

    @Test func aPartNamedLikeTheEnclosingTypeIsRenamed() throws {
        let validator = try StructuredOutputValidator(schema: Item.generationSchema)
        #expect(try Item(validator.validate(#"{"inner":{"x":3}}"#)).inner.x == 3)
        #expect(throws: (any Error).self) { try validator.validate(#"{"inner":{"inner":{"x":3}}}"#) }
    }
}
