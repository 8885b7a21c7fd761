import Foundation
import FoundationModels
@testable import SeedTypes
import Testing

/// Answers worth having, with the catalogue's default model: classification schemas must not collapse to
/// one constant answer, and clear-cut texts must get their obvious label.
@Suite("Answer quality with the catalogue's default model", .serialized, .timeLimit(.minutes(10)))
struct AnswerQualityTests {
    @Generable
    enum SMSLabel: String {
        case ham
        case spam
    }

    @Generable
    struct SMSClassification {
        @Guide(description: "Whether the message is unsolicited advertising or a scam (spam) or an ordinary message (ham)")
        let label: SMSLabel
    }

    private func classify<Value: Generable>(_ text: String, as type: Value.Type) async throws -> Value {
        let session = LanguageModelSession(model: QualityModel.tagger)
        return try await session.respond(to: text, generating: type).content
    }

    @Test func supportTicketsGetTheirOwnTopics() async throws {
        let tickets: [(String, Set<Seed001.TicketTopic>)] = [
            ("I was charged twice for my subscription this month. Please refund the extra payment.", [.billing]),
            ("I can't log in. It says my password is wrong but I just reset it.", [.accountAccess, .technicalIssue]),
            ("Please add a dark mode to the app, it would be great for reading at night.", [.featureRequest]),
            ("I want to cancel my subscription and close my account.", [.cancellation, .accountAccess]),
        ]
        var topics: [Seed001.TicketTopic] = []
        for (text, expected) in tickets {
            let result = try await classify(text, as: Seed001.SupportTicketClassification.self)
            #expect(expected.contains(result.topic), "\(text) → \(result.topic)")
            topics.append(result.topic)
        }
        #expect(Set(topics).count >= 3, "topics collapse: \(topics)")
    }

    @Test func spamIsToldFromOrdinaryMessages() async throws {
        let messages: [(String, SMSLabel)] = [
            ("URGENT! You have WON a guaranteed £1000 cash prize. Call 09061701461 now to claim. T&C apply.", .spam),
            ("FREE entry into our weekly draw! Text WIN to 80086 to receive your free mobile phone.", .spam),
            ("Are we still meeting for lunch tomorrow? I can pick you up at noon.", .ham),
            ("Sorry I missed your call, I was in the shower. Will ring you back later.", .ham),
        ]
        for (text, label) in messages {
            let result = try await classify(text, as: SMSClassification.self)
            #expect(result.label == label, "\(text) → \(result.label)")
        }
    }
}
