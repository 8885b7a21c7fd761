@testable import FMEngine
import FMDecoding
import Testing

/// Choice points: where greedy decoding scores whole enumeration and Bool values.
struct ChoicePointsTests {
    let document = SchemaDocument(root: .object(properties: [
        SchemaProperty(name: "label", schema: .string(.choices(["ham", "spam", "spa"]))),
        SchemaProperty(name: "urgent", schema: .boolean),
        SchemaProperty(name: "note", schema: .string(.any)),
    ]))

    private func remainders(_ output: String) -> [String]? {
        ChoicePoints(document: document).remainders(after: Array(output.utf8))?.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func enumerationAndBoolValuesAreChoices() {
        #expect(remainders(#"{"label":"#) == [#""ham""#, #""spa""#, #""spam""#])
        #expect(remainders(#"{"label":""#) == [#"ham""#, #"spa""#, #"spam""#])
        #expect(remainders(#"{"label":"ham","urgent":"#) == ["false", "true"])
    }

    @Test func anArrayElementKnowsTheElementsWrittenBeforeIt() {
        let points = ChoicePoints(document: SchemaDocumentFixtures.labelsArray)
        let first = points.open(after: Array(#"{"labels":["#.utf8))
        #expect(first?.earlier == [])
        let third = points.open(after: Array(#"{"labels":["joy","anger","#.utf8))
        #expect(third?.earlier == [Array(#""joy""#.utf8), Array(#""anger""#.utf8)])
        #expect(third?.site.written == [])
        // A single value has no earlier elements.
        #expect(ChoicePoints(document: document).open(after: Array(#"{"label":"#.utf8))?.earlier == [])
    }

    @Test func definitionsThatOnlyNameEachOtherHoldNoChoice() {
        let cycle = SchemaDocument(
            root: .object(properties: [
                SchemaProperty(name: "x", schema: .reference("A")),
                SchemaProperty(name: "y", schema: .reference("C")),
                SchemaProperty(name: "label", schema: .reference("D")),
            ]),
            definitions: ["A": .reference("B"), "B": .reference("A"), "C": .reference("C"), "D": .string(.choices(["ham", "spam"]))])
        let points = ChoicePoints(document: cycle)
        #expect(points.remainders(after: Array(#"{"x":"#.utf8)) == nil)
        #expect(points.remainders(after: Array(#"{"label":"#.utf8))?.count == 2)
    }

    @Test func aDocumentOffersOnlyBooleansWhenEveryChoiceIsTrueOrFalse() {
        #expect(!ChoicePoints(document: document).offersOnlyBooleans)
        let flags = SchemaDocument(root: .object(properties: [
            SchemaProperty(name: "urgent", schema: .boolean),
            SchemaProperty(name: "checks", schema: .array(items: .boolean, minimumCount: 0, maximumCount: nil, uniqueItems: false)),
            SchemaProperty(name: "note", schema: .string(.any)),
        ]))
        #expect(ChoicePoints(document: flags).offersOnlyBooleans)
        let none = SchemaDocument(root: .object(properties: [SchemaProperty(name: "note", schema: .string(.any))]))
        #expect(!ChoicePoints(document: none).offersOnlyBooleans)
    }

    @Test func colonsInsideStringsAreText() {
        let times = SchemaDocument(root: .object(properties: [
            SchemaProperty(name: "note", schema: .string(.any)),
            SchemaProperty(name: "slot", schema: .string(.choices(["10:30", "10:45", "11:00"]))),
        ]))
        let points = ChoicePoints(document: times)
        func open(_ output: String) -> [String]? {
            points.remainders(after: Array(output.utf8))?.map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(open(#"{"note":"at 9:15","slot":"10:"#) == [#"30""#, #"45""#])
        #expect(open(#"{"note":"a "slot":"#) == nil)
    }

    @Test func aValueNarrowedToOneIsNoLongerAChoice() {
        #expect(remainders(#"{"label":"h"#) == nil)
        #expect(remainders(#"{"label":"spa"#) == [#"""#, #"m""#])
    }

    @Test func freeStringsAndAmbiguousNamesAreNot() {
        #expect(remainders(#"{"label":"ham","urgent":true,"note":"#) == nil)
        let clash = SchemaDocument(root: .object(properties: [
            SchemaProperty(name: "label", schema: .string(.choices(["a", "b"]))),
            SchemaProperty(name: "inner", schema: .object(properties: [SchemaProperty(name: "label", schema: .string(.any))])),
        ]))
        #expect(ChoicePoints(document: clash).isEmpty)
    }

    @Test func tokenExtensionsFindLongerAllowedTokens() {
        let extensions = TokenExtensions(tokenBytes: ["a", "ab", "abc", "b", ""].map { Array($0.utf8) })
        var mask = TokenMask(count: 5)
        mask.insert(2)
        #expect(extensions.hasAllowedExtension(of: 0, in: mask))
        #expect(extensions.hasAllowedExtension(of: 1, in: mask))
        #expect(!extensions.hasAllowedExtension(of: 2, in: mask))
        #expect(!extensions.hasAllowedExtension(of: 3, in: mask))
        mask.remove(2)
        mask.insert(3)
        #expect(!extensions.hasAllowedExtension(of: 0, in: mask))
    }
}
