import Foundation
import FoundationModels
import Testing

struct GeneratedContentTests {
    @Test func propertiesKeepTheirOrder() {
        let content = GeneratedContent(properties: ["zeta": 1, "alpha": "a", "mid": true, "beta": [1, 2]])
        guard case .structure(_, let keys) = content.kind else {
            Issue.record("expected a structure")
            return
        }
        #expect(keys == ["zeta", "alpha", "mid", "beta"])
        #expect(content.jsonString == #"{"zeta": 1, "alpha": "a", "mid": true, "beta": [1, 2]}"#)
    }

    /// Numbers are written in plain decimal notation, as the decoder's grammar writes them and schemas check
    /// them, and read back to the same value.
    @Test(arguments: [
        (0.00005, "0.00005"), (1.5e-7, "0.00000015"), (1234567890123456.0, "1234567890123456"),
        (0x1p54 + 4, "18014398509481988"), (1e20, "100000000000000000000"), (-2.5e-5, "-0.000025"), (0.1, "0.1"),
        (123.456, "123.456"), (-0.0, "0"),
    ])
    func numbersAreWrittenWithoutExponents(value: Double, text: String) throws {
        let content = GeneratedContent(kind: .number(value))
        #expect(content.jsonString == text)
        guard case .number(let read) = try GeneratedContent(json: content.jsonString).kind else { Issue.record("not a number"); return }
        #expect(read == value)
    }

    /// A literal beyond Double's range is refused rather than read as an infinity that is written back as null.
    @Test func numbersBeyondDoublesRangeAreRefused() {
        for json in [#"{"x": 1e400}"#, "-1e309", String(repeating: "9", count: 400)] {
            #expect(throws: DecodingError.self, "\(json)") { _ = try GeneratedContent(json: json) }
        }
    }

    /// Standard values that sit at the edge of what a JSON number holds read back as themselves.
    @Test func edgeValuesRoundTrip() throws {
        #expect(try Int(Int.max.generatedContent) == .max)
        #expect(try Int(Int.min.generatedContent) == .min)
        #expect(Float(0.1).generatedContent.jsonString == "0.1")
        #expect(try Float(Float(0.1).generatedContent) == 0.1)
        #expect(try Decimal(GeneratedContent(json: "1e-120")) > 0)
        // Beyond Decimal's exponents: refused, not read as 0.
        #expect(throws: DecodingError.self) { try Decimal(GeneratedContent(json: "1e-130")) }
        #expect(Decimal.nan.generatedContent.jsonString == "null")
    }

    /// A saved value whose JSON text was cut off is a damaged file, not a value to read on.
    @Test func decodingRefusesCutOffJSON() throws {
        let decoder = JSONDecoder()
        #expect(throws: DecodingError.self) { _ = try decoder.decode(GeneratedContent.self, from: Data(#""{\"a\":1,\"b\":\"x""#.utf8)) }
        let whole = try decoder.decode(GeneratedContent.self, from: Data(#""{\"a\":1}""#.utf8))
        #expect(whole.jsonString == #"{"a": 1}"#)
    }

    @Test func duplicateKeysKeepTheFirstPositionAndLastValue() {
        let content = GeneratedContent(properties: ["a": 1, "b": 2, "a": 3])
        #expect(content.jsonString == #"{"a": 3, "b": 2}"#)
    }

    @Test func uniquingKeysCombinesDuplicates() throws {
        let pairs: [(String, any ConvertibleToGeneratedContent)] = [("a", 1), ("b", 2), ("a", 3)]
        let content = try GeneratedContent(properties: pairs) { first, second in
            try first.value(Int.self) + second.value(Int.self)
        }
        #expect(content.jsonString == #"{"a": 4, "b": 2}"#)

        struct Conflict: Error {}
        #expect(throws: Conflict.self) {
            try GeneratedContent(properties: pairs) { _, _ -> String in throw Conflict() }
        }
    }

    @Test func elementsAndKindInitializers() {
        let elements: [any ConvertibleToGeneratedContent] = ["x", 2.5, false]
        #expect(GeneratedContent(elements: elements).jsonString == #"["x", 2.5, false]"#)
        let id = GenerationID()
        #expect(GeneratedContent(kind: .null, id: id).id == id)
        #expect(GeneratedContent("text", id: id).id == id)
        #expect(GeneratedContent("text").id == nil)
        #expect(GeneratedContent.null.jsonString == "null")
    }

    @Test func structureKindIsNormalized() {
        let content = GeneratedContent(kind: .structure(
            properties: ["b": GeneratedContent(2), "a": GeneratedContent(1), "c": GeneratedContent(3)],
            orderedKeys: ["c", "missing", "c"]
        ))
        #expect(content.jsonString == #"{"c": 3, "a": 1, "b": 2}"#)
    }

    @Test(arguments: [
        (1.0, "1"), (-0.5, "-0.5"), (30, "30"), (1e20, "100000000000000000000"), (0.1, "0.1"), (-1234567, "-1234567"),
        (Double.infinity, "null"),
    ])
    func numbersPrintCompactly(_ value: Double, _ expected: String) {
        #expect(GeneratedContent(kind: .number(value)).jsonString == expected)
    }

    @Test func stringsAreEscaped() {
        let content = GeneratedContent("quote \" backslash \\ newline \n tab \t bell \u{07} é 😀")
        #expect(content.jsonString == #""quote \" backslash \\ newline \n tab \t bell \u0007 é 😀""#)
    }

    @Test func readsTypedValues() throws {
        let content = try GeneratedContent(json: #"{"name":"Ada","age":36,"tags":["a","b"],"ratio":0.5,"ok":true}"#)
        #expect(try content.value(String.self, forProperty: "name") == "Ada")
        #expect(try content.value(Int.self, forProperty: "age") == 36)
        #expect(try content.value([String].self, forProperty: "tags") == ["a", "b"])
        #expect(try content.value(Double.self, forProperty: "ratio") == 0.5)
        #expect(try content.value(Float.self, forProperty: "ratio") == 0.5)
        #expect(try content.value(Decimal.self, forProperty: "ratio") == Decimal(string: "0.5"))
        #expect(try content.value(Bool.self, forProperty: "ok"))
        #expect(try content.value(String?.self, forProperty: "missing") == nil)
        #expect(try content.value(String?.self, forProperty: "name") == "Ada")
        #expect(try content.value(GeneratedContent.self) == content)
    }

    @Test func optionalPropertyIsNilForNull() throws {
        let content = try GeneratedContent(json: #"{"nickname":null}"#)
        #expect(try content.value(String?.self, forProperty: "nickname") == nil)
    }

    @Test func missingPropertyErrorNamesTheKey() {
        let content = GeneratedContent(properties: ["name": "Ada"])
        do {
            _ = try content.value(Int.self, forProperty: "age")
            Issue.record("expected an error")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == "age")
            #expect(context.debugDescription.contains("\"age\""))
            #expect(context.debugDescription.contains("Int"))
            #expect(context.debugDescription.contains("\"name\""))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func mistypedPropertyErrorHasTheCodingPath() {
        let content = GeneratedContent(properties: ["tags": GeneratedContent(elements: ["a", 2] as [any ConvertibleToGeneratedContent])])
        do {
            _ = try content.value([String].self, forProperty: "tags")
            Issue.record("expected an error")
        } catch DecodingError.typeMismatch(let type, let context) {
            #expect(ObjectIdentifier(type) == ObjectIdentifier(String.self))
            #expect(context.codingPath.map(\.stringValue) == ["tags", "Index 1"])
            #expect(context.debugDescription.contains("Expected a string but found a number"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func readingAPropertyOfANonStructureThrows() {
        #expect(throws: DecodingError.self) { try GeneratedContent("text").value(String.self, forProperty: "x") }
        #expect(throws: DecodingError.self) { try GeneratedContent("text").value(String?.self, forProperty: "x") }
    }

    @Test(arguments: [2.5, 1e300])
    func intRejectsNonIntegralNumbers(_ value: Double) {
        #expect(throws: DecodingError.self) { try Int(GeneratedContent(kind: .number(value))) }
    }

    @Test func equalityIgnoresIdentifiersButNotCompleteness() throws {
        #expect(GeneratedContent("a", id: GenerationID()) == GeneratedContent("a"))
        #expect(try GeneratedContent(json: #""a""#) == GeneratedContent("a"))
        #expect(try GeneratedContent(json: #""a"#) != GeneratedContent("a"))
        #expect(GeneratedContent(properties: ["a": 1, "b": 2]) != GeneratedContent(properties: ["b": 2, "a": 1]))
    }

    @Test func codableRoundTripKeepsOrder() throws {
        let content = GeneratedContent(properties: ["zeta": 1, "alpha": GeneratedContent(properties: ["x": [true, false]]), "mid": "é"])
        let data = try JSONEncoder().encode(content)
        let decoded = try JSONDecoder().decode(GeneratedContent.self, from: data)
        #expect(decoded == content)
        #expect(decoded.jsonString == content.jsonString)
    }

    @Test func debugDescriptionShowsJSONAndCompleteness() throws {
        #expect(GeneratedContent(properties: ["a": 1]).debugDescription == #"GeneratedContent({"a": 1})"#)
        #expect(try GeneratedContent(json: #"{"a":"#).debugDescription == "GeneratedContent({}, incomplete)")
    }

    @Test func generableValuesRoundTripThroughContent() throws {
        let cat = Cat(name: "Tom", age: 3, toys: [Toy(kind: .ball)])
        #expect(cat.generatedContent.jsonString == #"{"name": "Tom", "age": 3, "nickname": null, "toys": [{"kind": "ball"}]}"#)
        #expect(try Cat(cat.generatedContent) == cat)
        let partial = cat.asPartiallyGenerated()
        #expect(partial.name == "Tom")
        #expect(partial.toys?.first?.kind == .ball)
    }

    @Test func optionalAndNeverConversions() throws {
        let none: Int? = nil
        #expect(none.generatedContent == .null)
        #expect(try Int?(GeneratedContent.null) == nil)
        #expect(try Int?(GeneratedContent(4)) == 4)
        #expect(throws: DecodingError.self) { try Never(GeneratedContent.null) }
    }

    /// Apple's `jsonString` writes a space after each colon and comma (same order, numbers and escaping);
    /// the model reads and writes the compact form.
    @Test func jsonStringIsSpacedLikeApplesAndCompactJSONIsNot() throws {
        let content = try GeneratedContent(json: #"{"a":1,"b":[1,2],"c":{"d":"x, y: z"},"e":[],"f":{}}"#)
        #expect(content.jsonString == #"{"a": 1, "b": [1, 2], "c": {"d": "x, y: z"}, "e": [], "f": {}}"#)
        #expect(content.compactJSONString == #"{"a":1,"b":[1,2],"c":{"d":"x, y: z"},"e":[],"f":{}}"#)
        #expect(try GeneratedContent(json: content.jsonString) == content)
    }
}
