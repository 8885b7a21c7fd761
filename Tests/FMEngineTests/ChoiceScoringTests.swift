@testable import FMEngine
import FMDecoding
import Testing

/// Whole-value choice scoring: element-by-element choices, how scores combine, contextual calibration.
struct ChoiceScoringTests {
    @Test func enumerationArraysAreChoicesElementByElement() {
        let document = SchemaDocumentFixtures.labelsArray
        let points = ChoicePoints(document: document)
        let open = points.open(after: Array(#"{"labels":["joy","#.utf8))
        #expect(open?.site.property == "labels")
        #expect(open?.remainders.map { String(decoding: $0, as: UTF8.self) } == [#""anger""#, #""joy""#, #""love""#])
        #expect(points.open(after: Array(#"{"labels":["#.utf8))?.literals.count == 3)
    }

    @Test func scoresCombineByTheChosenMethod() {
        let tokens = [-1.0, -0.5, -0.1]
        #expect(Generator.combine(tokens, .total) == -1.6)
        #expect(abs(Generator.combine(tokens, .mean) - (-1.6 / 3)) < 1e-12)
        #expect(Generator.combine(tokens, .first) > Generator.combine([-1.0, -2.0], .first))
    }

    @Test func calibrationAveragesContentFreeRuns() {
        let site = ChoicePoints.Site(property: "label", written: [])
        var calibration = ChoiceCalibration()
        calibration.add([site: [Array("\"a\"".utf8): [-1.0, -2.0]]], runs: 0)
        calibration.add([site: [Array("\"a\"".utf8): [-3.0, -4.0]]], runs: 1)
        #expect(calibration.prior(at: site, literal: Array("\"a\"".utf8)) == [-2.0, -3.0])
        #expect(calibration.prior(at: site, literal: Array("\"b\"".utf8)) == nil)
    }
}

enum SchemaDocumentFixtures {
    static let labelsArray = SchemaDocument(root: .object(properties: [
        SchemaProperty(name: "labels", schema: .array(items: .string(.choices(["joy", "anger", "love"])), minimumCount: 1,
                                                      maximumCount: 3, uniqueItems: true)),
    ]))
}
