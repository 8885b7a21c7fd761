import Foundation
import FoundationModels
import Testing

@Suite("Feedback attachments and languages")
struct FeedbackAttachmentTests {
    @Test func attachmentIsJSONWithTranscriptSentimentAndIssues() throws {
        let session = LanguageModelSession(instructions: "Be brief.")
        let data = session.logFeedbackAttachment(sentiment: .negative,
                                                 issues: [.init(category: .incorrect, explanation: "wrong city")],
                                                 desiredResponseText: "It is sunny in Paris.")
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["sentiment"] as? String == "negative")
        let issues = try #require(object["issues"] as? [[String: Any]])
        #expect(issues.first?["category"] as? String == "incorrect")
        let transcript = try #require(object["transcript"] as? [String: Any])
        #expect((transcript["entries"] as? [Any])?.count == 1)
        #expect((object["desiredOutput"] as? [String: Any])?["type"] as? String == "response")
        #expect(object["rolledBackEntries"] is [Any])
    }

    @Test func structuredDesiredContent() throws {
        let session = LanguageModelSession()
        let data = session.logFeedbackAttachment(sentiment: nil, desiredResponseContent: GeneratedContent("a tag"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let desired = try #require(object["desiredOutput"] as? [String: Any])
        #expect((desired["segments"] as? [[String: Any]])?.first?["type"] as? String == "structure")
        #expect(LanguageModelFeedback.Sentiment.allCases.count == 3)
    }

    @Test func englishIsSupported() {
        let model = SystemLanguageModel.default
        #expect(model.supportedLanguages.contains { $0.languageCode?.identifier == "en" })
        #expect(model.supportsLocale(Locale(identifier: "en_AU")))
        #expect(!model.supportsLocale(Locale(identifier: "ja_JP")))
    }
}
