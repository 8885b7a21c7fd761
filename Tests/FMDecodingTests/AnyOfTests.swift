import FMDecoding
import Testing

/// anyOf with alternatives sharing prefixes: the library never picks; the model's bytes decide.
struct AnyOfTests {
    let vocabulary = TestVocabularies.synthetic

    func token(_ text: String) -> Int {
        (0..<vocabulary.count).first { Array(vocabulary.bytes(of: $0)) == Array(text.utf8) && vocabulary.isUsableInText($0) } ?? -1
    }

    @Test func alternativesStayOpenUntilTheModelDecides() throws {
        let document = SchemaNode.anyOf([
            .object(properties: [SchemaProperty(name: "a", schema: .integer(minimum: 0, maximum: 9))]),
            .object(properties: [SchemaProperty(name: "ab", schema: .string(.any))]),
            .object(properties: [SchemaProperty(name: "abc", schema: .boolean, isOptional: true)]),
        ]).document
        var matcher = try document.matcher()
        #expect(String(decoding: matcher.forcedBytes(), as: UTF8.self) == "{")
        #expect(true == matcher.accept(bytes: Array(#"{"a"#.utf8)))
        var mask = TokenMask(count: vocabulary.count)
        matcher.fillMask(into: &mask)
        let quote = token("\"")
        let quoteColon = token("\":")
        #expect(mask.contains(quote) && mask.contains(token("b")) && mask.contains(quoteColon))
        #expect(true == matcher.accept(bytes: Array("b".utf8)))
        matcher.fillMask(into: &mask)
        #expect(mask.contains(token("\":\"")) && mask.contains(token("c")))
        #expect(true == matcher.accept(bytes: Array("c".utf8)))
        #expect(String(decoding: matcher.forcedBytes(), as: UTF8.self) == "\":")
        // `{}` is only valid through the third alternative (its property is optional).
        #expect(try document.accepts("{}"))
    }
}
