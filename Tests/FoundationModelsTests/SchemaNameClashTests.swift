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
    enum R { @Generable struct Item { var z: Bool } }
    enum P {
        @Generable struct Item { var sub: Sub }
        @Generable struct Sub { var a: Int }
    }
    enum Q {
        @Generable struct Item { var sub: Sub }
        @Generable struct Sub { var b: String }
    }
    /// `Q.Item` reads like the renamed `P.Item` until its own `Sub` is renamed too.
    @Generable struct Three {
        var r: R.Item
        var p: P.Item
        var q: Q.Item
    }
    @Generable struct Wrapper { var item: Right.Item }
    /// The same type twice, holding a renamed part: defined once.
    @Generable struct Twice {
        var a: Left.Item
        var w1: Wrapper
        var w2: Wrapper
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

    @Test func aPartIsComparedWithTheNamesOfWhatItHolds() throws {
        let validator = try StructuredOutputValidator(schema: Three.generationSchema)
        let three = try Three(validator.validate(#"{"r":{"z":true},"p":{"sub":{"a":1}},"q":{"sub":{"b":"x"}}}"#))
        #expect(three.q.sub.b == "x" && three.p.sub.a == 1)
        #expect(throws: (any Error).self) { try validator.validate(#"{"r":{"z":true},"p":{"sub":{"a":1}},"q":{"sub":{"a":1}}}"#) }
    }

    @Test func aTypeUsedTwiceIsDefinedOnce() throws {
        #expect(Twice.generationSchema.definitions.map(\.name) == ["Item", "Wrapper", "Item2"])
        let validator = try StructuredOutputValidator(schema: Twice.generationSchema)
        let twice = try Twice(validator.validate(#"{"a":{"x":1},"w1":{"item":{"name":"m"}},"w2":{"item":{"name":"n"}}}"#))
        #expect(twice.w2.item.name == "n")
    }
}
