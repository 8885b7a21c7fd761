import FMDecoding
import Testing

/// Table-driven: each schema accepts exactly the listed complete texts.
struct GrammarAcceptanceTests {
    static let person = SchemaNode.object(properties: [
        SchemaProperty(name: "name", schema: .string(.any)),
        SchemaProperty(name: "age", schema: .integer(minimum: 0, maximum: 150), isOptional: true),
        SchemaProperty(name: "tags", schema: .array(items: .string(.any), minimumCount: 0, maximumCount: 2, uniqueItems: false)),
    ])

    static let cases: [(String, SchemaNode, String, Bool)] = [
        ("bool true", .boolean, "true", true),
        ("bool false", .boolean, "false", true),
        ("bool prefix", .boolean, "tru", false),
        ("null", .null, "null", true),
        ("null wrong", .null, "nul", false),
        ("string any", .string(.any), #""hello""#, true),
        ("string empty", .string(.any), #""""#, true),
        ("string escapes", .string(.any), #""a\"b\\c\/d\b\f\n\r\t\u00e9""#, true),
        ("string unicode", .string(.any), "\"héllo 世界 🎉\"", true),
        ("string raw newline", .string(.any), "\"a\nb\"", false),
        ("string bad escape", .string(.any), #""\x41""#, false),
        ("string lone surrogate escape", .string(.any), #""\ud800""#, false),
        ("string unterminated", .string(.any), #""abc"#, false),
        ("choices exact", .string(.choices(["art", "artist"])), #""art""#, true),
        ("choices longer", .string(.choices(["art", "artist"])), #""artist""#, true),
        ("choices prefix", .string(.choices(["art", "artist"])), #""arti""#, false),
        ("choices other", .string(.choices(["art", "artist"])), #""bob""#, false),
        // JSON tells these apart, though Swift's `==` finds them equal.
        ("choices precomposed", .string(.choices(["caf\u{E9}", "cafe\u{301}"])), "\"caf\u{E9}\"", true),
        ("choices decomposed", .string(.choices(["caf\u{E9}", "cafe\u{301}"])), "\"cafe\u{301}\"", true),
        ("choices decomposed only", .string(.choices(["cafe\u{301}"])), "\"caf\u{E9}\"", false),
        ("choices escaped", .string(.choices(["say \"hi\"", "a\\b"])), #""say \"hi\"""#, true),
        ("choices escaped 2", .string(.choices(["say \"hi\"", "a\\b"])), #""a\\b""#, true),
        ("object", person, #"{"name":"Ada","age":36,"tags":["x"]}"#, true),
        ("object optional absent", person, #"{"name":"Ada","tags":[]}"#, true),
        ("object optional order", person, #"{"age":36,"name":"Ada","tags":[]}"#, false),
        ("object missing required", person, #"{"name":"Ada","age":3}"#, false),
        ("object whitespace", person, #"{"name": "Ada","tags":[]}"#, false),
        ("object too many tags", person, #"{"name":"A","tags":["a","b","c"]}"#, false),
        ("object leading comma", .object(properties: [
            SchemaProperty(name: "a", schema: .null, isOptional: true),
            SchemaProperty(name: "b", schema: .null, isOptional: true),
        ]), #"{"b":null}"#, true),
        ("object all optional empty", .object(properties: [
            SchemaProperty(name: "a", schema: .null, isOptional: true),
        ]), "{}", true),
        ("object no leading comma", .object(properties: [
            SchemaProperty(name: "a", schema: .null, isOptional: true),
            SchemaProperty(name: "b", schema: .null, isOptional: true),
        ]), #"{,"b":null}"#, false),
        ("empty object", .object(properties: []), "{}", true),
        ("map empty", .dictionary(values: .boolean), "{}", true),
        ("map entries", .dictionary(values: .boolean), #"{"a":true,"b c":false,"":true}"#, true),
        ("map repeated key", .dictionary(values: .boolean), #"{"a":true,"a":false}"#, true),
        ("map wrong value", .dictionary(values: .boolean), #"{"a":1}"#, false),
        ("map leading comma", .dictionary(values: .boolean), #"{,"a":true}"#, false),
        ("map trailing comma", .dictionary(values: .boolean), #"{"a":true,}"#, false),
        ("map key without value", .dictionary(values: .boolean), #"{"a"}"#, false),
        ("unique maps", .array(items: .dictionary(values: .integer(minimum: nil, maximum: nil)), minimumCount: 0, maximumCount: nil, uniqueItems: true), #"[{"a":1},{"a":2},{"b":1},{"a":1,"b":1}]"#, true),
        ("unique maps permuted", .array(items: .dictionary(values: .integer(minimum: nil, maximum: nil)), minimumCount: 0, maximumCount: nil, uniqueItems: true), #"[{"a":1,"b":2},{"b":2,"a":1}]"#, false),
        ("unique maps nested permuted", .array(items: .dictionary(values: .dictionary(values: .boolean)), minimumCount: 0, maximumCount: nil, uniqueItems: true), #"[{"x":{"a":true,"b":false}},{"x":{"b":false,"a":true}}]"#, false),
        ("unique maps repeated key", .array(items: .dictionary(values: .integer(minimum: nil, maximum: nil)), minimumCount: 0, maximumCount: nil, uniqueItems: true), #"[{"a":1},{"a":2,"a":1}]"#, false),
        ("map of maps", .dictionary(values: .dictionary(values: .null)), #"{"a":{"b":null},"c":{}}"#, true),
        ("array min", .array(items: .boolean, minimumCount: 2, maximumCount: nil, uniqueItems: false), "[true]", false),
        ("array unbounded", .array(items: .boolean, minimumCount: 2, maximumCount: nil, uniqueItems: false), "[true,false,true,true]", true),
        ("array empty", .array(items: .boolean, minimumCount: 0, maximumCount: 0, uniqueItems: false), "[]", true),
        ("array max 0", .array(items: .boolean, minimumCount: 0, maximumCount: 0, uniqueItems: false), "[true]", false),
        ("unique ok", .array(items: .string(.any), minimumCount: 0, maximumCount: nil, uniqueItems: true), #"["a","b"]"#, true),
        ("unique dup", .array(items: .string(.any), minimumCount: 0, maximumCount: nil, uniqueItems: true), #"["a","b","a"]"#, false),
        ("unique dup escaped", .array(items: .string(.any), minimumCount: 0, maximumCount: nil, uniqueItems: true), #"["a","\u0061"]"#, false),
        ("unique ints", .array(items: .integer(minimum: nil, maximum: nil), minimumCount: 0, maximumCount: 5, uniqueItems: true), "[1,2,1]", false),
        ("unique numbers", .array(items: .number(minimum: 0, maximum: 10), minimumCount: 0, maximumCount: 5, uniqueItems: true), "[1.5,1.5]", false),
        ("unique choices", .array(items: .string(.choices(["x", "y"])), minimumCount: 0, maximumCount: 3, uniqueItems: true), #"["x","y"]"#, true),
        ("unique choices dup", .array(items: .string(.choices(["x", "y"])), minimumCount: 0, maximumCount: 3, uniqueItems: true), #"["x","x"]"#, false),
        ("unique objects", .array(items: .object(properties: [SchemaProperty(name: "k", schema: .string(.any))]), minimumCount: 0, maximumCount: nil, uniqueItems: true), #"[{"k":"a"},{"k":"a"}]"#, false),
        ("unique objects ok", .array(items: .object(properties: [SchemaProperty(name: "k", schema: .string(.any))]), minimumCount: 0, maximumCount: nil, uniqueItems: true), #"[{"k":"a"},{"k":"b"}]"#, true),
        ("anyOf shared prefix A", anyOfObjects, #"{"a":1}"#, true),
        ("anyOf shared prefix B", anyOfObjects, #"{"ab":"x"}"#, true),
        ("anyOf mixed", anyOfObjects, #"{"a":"x"}"#, false),
        ("anyOf scalar", .anyOf([.integer(minimum: 0, maximum: 5), .string(.any), .null]), "null", true),
        ("pattern", .string(.pattern(#"^[a-z]{2,3}-\d+$"#)), #""ab-12""#, true),
        ("pattern fail", .string(.pattern(#"^[a-z]{2,3}-\d+$"#)), #""abcd-12""#, false),
        ("pattern escaped quote", .string(.pattern(#"a"b"#)), #""a\"b""#, true),
        ("pattern raw quote", .string(.pattern(#"a"b"#)), #""a"b""#, false),
        ("pattern newline escaped", .string(.pattern(#"a\nb"#)), #""a\nb""#, true),
    ]

    static let anyOfObjects = SchemaNode.anyOf([
        .object(properties: [SchemaProperty(name: "a", schema: .integer(minimum: nil, maximum: nil))]),
        .object(properties: [SchemaProperty(name: "ab", schema: .string(.any))]),
    ])

    @Test(arguments: cases)
    func acceptsExactly(_ testCase: (String, SchemaNode, String, Bool)) throws {
        let (name, node, text, expected) = testCase
        #expect(try node.document.accepts(text) == expected, "\(name): \(text)")
        // The validator must agree on every row.
        let validator = SchemaValidator(document: node.document)
        #expect((validator.violation(in: Array(text.utf8)) == nil) == expected, "validator disagrees: \(name)")
    }

    @Test func recursiveReferences() throws {
        let document = SchemaDocument(
            root: .reference("Node"),
            definitions: [
                "Node": .object(properties: [
                    SchemaProperty(name: "v", schema: .integer(minimum: 0, maximum: 9)),
                    SchemaProperty(
                        name: "kids", schema: .array(items: .reference("Node"), minimumCount: 0, maximumCount: nil, uniqueItems: false),
                        isOptional: true),
                ])
            ])
        #expect(try document.accepts(#"{"v":1}"#))
        #expect(try document.accepts(#"{"v":1,"kids":[{"v":2},{"v":3,"kids":[{"v":4,"kids":[]}]}]}"#))
        #expect(try !document.accepts(#"{"v":1,"kids":[{"v":22}]}"#))
        // Depth limit: nesting beyond the limit is cut off but shallower values stay possible.
        let grammar = try Grammar(compiling: document, options: .init(maximumNestingDepth: 3))
        var matcher = TokenConstraint(grammar: grammar, vocabulary: TestVocabularies.synthetic).makeMatcher()
        #expect(true == matcher.accept(bytes: Array(#"{"v":1,"kids":[{"v":2,"kids":[{"v":3"#.utf8)))
        #expect(false == matcher.accept(bytes: Array(#","kids":[{"#.utf8)))
        #expect(true == matcher.accept(bytes: Array(#"}]}]}"#.utf8)))
        #expect(matcher.isComplete)
    }

    @Test func unconditionalRecursionIsRejected() {
        let document = SchemaDocument(
            root: .reference("A"),
            definitions: ["A": .object(properties: [SchemaProperty(name: "a", schema: .reference("A"))])])
        #expect(throws: GrammarError.self) { try Grammar(compiling: document) }
    }

    @Test func undefinedReferenceIsNamed() {
        do {
            _ = try Grammar(compiling: SchemaDocument(root: .reference("Missing")))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .undefinedReference)
            #expect(error.construct.contains("Missing"))
        }
    }
}
