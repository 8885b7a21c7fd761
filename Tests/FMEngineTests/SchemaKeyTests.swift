import FMDecoding
@testable import FMEngine
import Testing

struct SchemaKeyTests {
    /// Swift's `==` finds "é" and "e\u{301}" equal, and so the documents; their keys tell them apart, as JSON does.
    @Test func canonicallyEquivalentStringsGiveDifferentKeys() {
        let precomposed = SchemaDocument(root: .string(.choices(["caf\u{E9}"])))
        let decomposed = SchemaDocument(root: .string(.choices(["cafe\u{301}"])))
        #expect(precomposed == decomposed)
        #expect(SchemaKey(precomposed) != SchemaKey(decomposed))
        #expect(SchemaKey(SchemaDocument(root: .literal("\"caf\u{E9}\""))) != SchemaKey(SchemaDocument(root: .literal("\"cafe\u{301}\""))))
    }

    /// Equal documents give equal keys, however their definitions were gathered.
    @Test func equalDocumentsGiveEqualKeys() {
        var forward: [String: SchemaNode] = [:]
        var backward: [String: SchemaNode] = [:]
        let names = (0..<40).map { "D\($0)" }
        for name in names { forward[name] = .literal("\"\(name)\"") }
        for name in names.reversed() { backward[name] = .literal("\"\(name)\"") }
        let one = SchemaDocument(root: .reference("D0"), definitions: forward)
        let other = SchemaDocument(root: .reference("D0"), definitions: backward)
        #expect(SchemaKey(one) == SchemaKey(other))
        #expect(SchemaKey(one).hashValue == SchemaKey(other).hashValue)
    }
}
