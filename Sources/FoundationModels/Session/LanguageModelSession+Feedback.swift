public import Foundation
import Synchronization

extension LanguageModelSession {
    /// Builds a feedback attachment: JSON with the session's transcript, the sentiment and issues, an
    /// optional desired output, and the entries of failed requests that were rolled back from the transcript.
    ///
    /// ```json
    /// {"sentiment": "negative", "issues": [{"category": "incorrect", "explanation": "…"}],
    ///  "desiredOutput": {"type": "response", …}, "transcript": {"version": 1, "entries": […]},
    ///  "rolledBackEntries": […]}
    /// ```
    ///
    /// Attachments can be concatenated into a `.jsonl` file. On Linux nothing is sent to Apple: the method
    /// only returns the data.
    @discardableResult
    public func logFeedbackAttachment(
        sentiment: LanguageModelFeedback.Sentiment?,
        issues: [LanguageModelFeedback.Issue] = [],
        desiredOutput: Transcript.Entry? = nil
    ) -> Data {
        let (transcript, rolledBack) = state.withLock { ($0.transcript, $0.rolledBackEntries) }
        let attachment = FeedbackAttachment(sentiment: sentiment, issues: issues, desiredOutput: desiredOutput,
                                            transcript: transcript, rolledBackEntries: rolledBack)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(attachment)) ?? Data("{}".utf8)
    }

    /// Builds a feedback attachment with the response you wanted, as text.
    @discardableResult
    public func logFeedbackAttachment(
        sentiment: LanguageModelFeedback.Sentiment?,
        issues: [LanguageModelFeedback.Issue] = [],
        desiredResponseText: String?
    ) -> Data {
        let entry = desiredResponseText.map { Transcript.Entry.response(.init(segments: [.text(.init(content: $0))])) }
        return logFeedbackAttachment(sentiment: sentiment, issues: issues, desiredOutput: entry)
    }

    /// Builds a feedback attachment with the content you wanted, such as a value of a generable type.
    @discardableResult
    public func logFeedbackAttachment(
        sentiment: LanguageModelFeedback.Sentiment?,
        issues: [LanguageModelFeedback.Issue] = [],
        desiredResponseContent: (any ConvertibleToGeneratedContent)?
    ) -> Data {
        let entry = desiredResponseContent.map { content in
            Transcript.Entry.response(.init(segments: [
                .structure(.init(schemaName: String(describing: type(of: content)), content: content.generatedContent)),
            ]))
        }
        return logFeedbackAttachment(sentiment: sentiment, issues: issues, desiredOutput: entry)
    }
}

/// The JSON body of a feedback attachment.
private struct FeedbackAttachment: Encodable {
    var sentiment: LanguageModelFeedback.Sentiment?
    var issues: [LanguageModelFeedback.Issue]
    var desiredOutput: Transcript.Entry?
    var transcript: Transcript
    var rolledBackEntries: [Transcript.Entry]
}
