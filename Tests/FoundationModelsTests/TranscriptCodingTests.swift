import Foundation
import FoundationModels
import Testing

@Suite("Transcript JSON form")
struct TranscriptCodingTests {
    static func sample() throws -> Transcript {
        let parameters = try GenerationSchema(root: DynamicGenerationSchema(name: "Arguments", properties: [
            .init(name: "city", schema: DynamicGenerationSchema(type: String.self)),
        ]), dependencies: [])
        let arguments = try GeneratedContent(json: #"{"city":"Paris"}"#)
        return Transcript(entries: [
            .instructions(.init(segments: [.text(.init(content: "Be brief."))],
                                toolDefinitions: [.init(name: "getWeather", description: "Weather for a city.", parameters: parameters)])),
            .prompt(.init(segments: [.text(.init(content: "Weather in Paris?"))],
                          options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 32))),
            .toolCalls(.init(id: "calls", [.init(id: "c1", toolName: "getWeather", arguments: arguments)])),
            .toolOutput(.init(id: "c1", toolName: "getWeather", segments: [.text(.init(content: "31 degrees"))])),
            .response(.init(assetIDs: ["model.gguf"], segments: [
                .structure(.init(schemaName: "Report", content: try GeneratedContent(json: #"{"b":1,"a":[true,null]}"#))),
            ])),
        ])
    }

    @Test func roundTripsThroughJSON() throws {
        let transcript = try Self.sample()
        let data = try JSONEncoder().encode(transcript)
        let decoded = try JSONDecoder().decode(Transcript.self, from: data)
        #expect(decoded == transcript)
        #expect(decoded.map(\.id) == transcript.map(\.id))
        guard case .response(let response) = decoded.last, case .structure(let segment) = response.segments.first else {
            Issue.record("the response entry did not survive")
            return
        }
        #expect(segment.content == (try GeneratedContent(json: #"{"b":1,"a":[true,null]}"#)), "property order and values survive")
    }

    /// JSON writes 2.0 as 2, so a whole Double comes back as an Int: the transcripts are still equal.
    @Test func numericMetadataSurvivesTheRoundTrip() throws {
        let metadata: [String: any Codable & Sendable & Equatable] = [
            "score": 2.0, "ratio": 0.25, "count": 3, "weights": [1.0, 2.5], "whole": [4.0, 5.0], "tag": "x",
        ]
        let transcript = Transcript(entries: [
            .prompt(.init(metadata: metadata, segments: [.text(.init(content: "Hi"))])),
        ])
        let decoded = try JSONDecoder().decode(Transcript.self, from: try JSONEncoder().encode(transcript))
        #expect(decoded == transcript)
        let changed = Transcript(entries: [
            .prompt(.init(id: transcript.first!.id, metadata: metadata.merging(["score": 2.5]) { $1 }, segments: [.text(.init(content: "Hi"))])),
        ])
        #expect(decoded != changed, "a different number is still different")
    }

    @Test func entriesCarryATypeDiscriminator() throws {
        let data = try JSONEncoder().encode(try Self.sample())
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.map { $0["type"] as? String } == ["instructions", "prompt", "toolCalls", "toolOutput", "response"])
        let segments = try #require(entries[0]["segments"] as? [[String: Any]])
        #expect(segments.first?["type"] as? String == "text")
    }

    @Test func unknownEntryTypesAreRejected() {
        let json = Data(#"{"version":1,"entries":[{"type":"image","id":"x"}]}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Transcript.self, from: json) }
    }
}
