@testable import FMEngine
import FMDecoding
import FMLlama
import Foundation
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
        calibration.add([site: [Array("\"a\"".utf8): [-1.0, -2.0]]])
        calibration.add([site: [Array("\"a\"".utf8): [-3.0, -4.0]]])
        #expect(calibration.prior(at: site, literal: Array("\"a\"".utf8)) == [-2.0, -3.0])
        #expect(calibration.prior(at: site, literal: Array("\"b\"".utf8)) == nil)
    }

    @Test func batchCalibrationAveragesProbabilities() throws {
        let site = ChoicePoints.Site(property: "label", written: [])
        let a = Array("\"a\"".utf8), b = Array("\"b\"".utf8)
        var calibration = ChoiceCalibration()
        calibration.add([site: [a: [log(0.9)]]], averagingProbabilities: true)
        calibration.add([site: [a: [log(0.1)], b: [log(0.2)]]], averagingProbabilities: true)
        calibration.add([site: [a: [log(0.2)], b: [log(0.4)]]], averagingProbabilities: true)
        // The mean probability of the three runs, not the mean log-probability (which would be log 0.26).
        let prior = try #require(calibration.prior(at: site, literal: a))
        #expect(abs(prior[0] - log(0.4)) < 1e-12)
        // A candidate some runs never reached averages the runs that did.
        let second = try #require(calibration.prior(at: site, literal: b))
        #expect(abs(second[0] - log(0.3)) < 1e-12)
    }

    @Test func calibrationTablesAreKeptApartByTheJobsLevers() {
        // Levers change what a calibration run records, and a process may run jobs under different ones.
        var job = GenerationJob(messages: [ChatMessage(role: "system", content: "Label it."), ChatMessage(role: "user", content: "x")],
                                sampling: .greedy, maximumTokens: nil, constraint: nil)
        let plain = Engine.calibrationKey(for: job, texts: ["a", "b"], context: nil)
        job.levers.channel = .only
        #expect(Engine.calibrationKey(for: job, texts: ["a", "b"], context: nil) != plain)
        job.levers.channel = .off
        #expect(Engine.calibrationKey(for: job, texts: ["a", "b"], context: nil) == plain)
        // Switches that only choose the texts or how a prior is applied share the table.
        job.levers.calibratesByBatch = false
        job.levers.calibrationWeight = 0.5
        #expect(Engine.calibrationKey(for: job, texts: ["a", "b"], context: nil) == plain)
        #expect(Engine.calibrationKey(for: job, texts: ["a", "c"], context: nil) != plain)
    }

    @Test func channelScoresAverageArithmeticallyEvenInABatch() {
        let site = Generator.channelSite(ChoicePoints.Site(property: "label", written: []))
        #expect(site != ChoicePoints.Site(property: "label", written: []))
        let spam = Array("\"spam\"".utf8)
        var calibration = ChoiceCalibration()
        calibration.add([site: [spam: [4.0]]], averagingProbabilities: true)
        calibration.add([site: [spam: [-2.0]]], averagingProbabilities: true)
        // Centred log-likelihoods of different texts: their plain mean, not the log of a mean probability.
        #expect(calibration.prior(at: site, literal: spam) == [1.0])
    }

    @Test func channelRequestsNameTheValueWithoutJSONQuoting() {
        #expect(Generator.label(of: Array(#""offensive_language""#.utf8)) == "offensive_language")
        #expect(Generator.label(of: Array(#""say \"hi\"""#.utf8)) == #"say "hi""#)
        #expect(Generator.label(of: Array("true".utf8)) == "true")
    }

    @Test func logMeanExpIsStableForVeryUnlikelyValues() {
        #expect(abs(ChoiceCalibration.logMeanExp(-1000, weight: 1, -1000) - (-1000)) < 1e-9)
        #expect(abs(ChoiceCalibration.logMeanExp(-1000, weight: 3, 0) - log(0.25)) < 1e-9)
        #expect(ChoiceCalibration.logMeanExp(-.infinity, weight: 1, -.infinity) == -.infinity)
    }

    @Test func calibrationSampleSpansTheInput() {
        let texts = (0..<100).map { "text \($0)" }
        let sample = CalibrationSample.sample(of: texts)
        #expect(sample.count == CalibrationSample.maximumCount)
        #expect(sample.first == "text 0")
        // Evenly spaced: no gap wider than the input over the sample size, and the tail is covered.
        let positions = sample.compactMap { texts.firstIndex(of: $0) }
        let gap = (texts.count + CalibrationSample.maximumCount - 1) / CalibrationSample.maximumCount
        #expect(zip(positions, positions.dropFirst()).allSatisfy { $1 > $0 && $1 - $0 <= gap })
        #expect(positions.last! >= texts.count - gap)
        #expect(CalibrationSample.sample(of: Array(texts.prefix(5))) == Array(texts.prefix(5)))
    }

    @Test func choiceLogLinesAreOneJSONObjectAfterAMarker() throws {
        let entry = ChoiceLogEntry(
            calibration: true, property: "label", written: "\"", text: "Win £100 now! Reply \"YES\"\nto claim.",
            candidates: [.init(value: #""ham""#, tokens: [-0.5, -2.0]), .init(value: #""spam""#, tokens: [-1.25])])
        let line = entry.line
        #expect(line.hasPrefix("--- choice {"))
        #expect(line.hasSuffix("}\n"))
        #expect(line.filter { $0 == "\n" }.count == 1, "a text's newline must not split the entry")
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.dropFirst("--- choice ".count).utf8)) as? [String: Any])
        #expect(object["calibration"] as? Bool == true)
        #expect(object["text"] as? String == entry.text)
        let candidates = try #require(object["candidates"] as? [[String: Any]])
        #expect(candidates.map { $0["value"] as? String } == [#""ham""#, #""spam""#])
        #expect(candidates.map { $0["tokens"] as? [Double] } == [[-0.5, -2.0], [-1.25]])
    }
}

enum SchemaDocumentFixtures {
    static let labelsArray = SchemaDocument(root: .object(properties: [
        SchemaProperty(name: "labels", schema: .array(items: .string(.choices(["joy", "anger", "love"])), minimumCount: 1,
                                                      maximumCount: 3, uniqueItems: true)),
    ]))
}
