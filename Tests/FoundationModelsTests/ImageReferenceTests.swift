import Foundation
import FoundationModels
import Testing

@Generable
struct BestShot {
    var photo: ImageReference
    var reason: String
}

@Suite("Image references")
struct ImageReferenceTests {
    static let beach = URL(fileURLWithPath: "/photos/beach.jpg")
    static let dunes = URL(fileURLWithPath: "/photos/dunes.jpg")
    static let forest = URL(fileURLWithPath: "/photos/forest.jpg")

    /// Two prompts with labelled images; "a" is used twice, the later one wins.
    static func transcript() -> Transcript {
        func image(_ url: URL, _ label: String) -> Transcript.Segment {
            .attachment(.init(content: .image(.init(imageURL: url)), label: label))
        }
        return Transcript(entries: [
            .prompt(.init(segments: [.text(.init(content: "Which is best?")), image(beach, "a"), image(forest, "b")])),
            .response(.init(segments: [.text(.init(content: "The beach."))])),
            .prompt(.init(segments: [.text(.init(content: "And now?")), image(dunes, "a")])),
        ])
    }

    @Test func resolvesTheMostRecentImageWithTheLabel() throws {
        let transcript = Self.transcript()
        let a = try ImageReference(GeneratedContent(properties: ["attachmentLabel": "a"]))
        let b = try ImageReference(GeneratedContent(properties: ["attachmentLabel": "b"]))
        let missing = try ImageReference(GeneratedContent(properties: ["attachmentLabel": "c"]))
        #expect(a.resolve(in: transcript)?.url == Self.dunes)
        #expect(b.resolve(in: transcript)?.url == Self.forest)
        #expect(missing.resolve(in: transcript) == nil)
        #expect(a.resolve(in: Transcript()) == nil)
    }

    @Test func isGeneratedAsAnObjectWithTheLabel() throws {
        let shot = try BestShot(GeneratedContent(json: #"{"photo": {"attachmentLabel": "b"}, "reason": "green"}"#))
        #expect(shot.photo.attachmentLabel == "b" && shot.reason == "green")
        #expect(shot.photo.generatedContent.jsonString == #"{"attachmentLabel": "b"}"#)
        #expect(ImageReference.generationSchema.debugDescription.contains("attachmentLabel"))
        #expect(BestShot.generationSchema.debugDescription.contains("ImageReference"))
        #expect(throws: (any Error).self) { try ImageReference(GeneratedContent(properties: ["label": "b"])) }
    }

    @Test func streamsAPartialLabel() throws {
        let partial = try ImageReference.PartiallyGenerated(GeneratedContent(json: #"{"attachmentLa"#))
        #expect(partial.attachmentLabel == nil)
        let growing = try ImageReference.PartiallyGenerated(GeneratedContent(json: #"{"attachmentLabel": "be"#))
        #expect(growing.attachmentLabel == "be")
    }
}
