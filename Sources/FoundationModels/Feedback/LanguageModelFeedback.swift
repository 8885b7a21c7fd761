/// Feedback appropriate for logging or attaching to a report about the model's output.
///
/// Use it with ``LanguageModelSession/logFeedbackAttachment(sentiment:issues:desiredOutput:)``. On Linux
/// there is no Feedback Assistant: the attachment is JSON `Data` you keep, log or send wherever you collect
/// feedback; nothing leaves the process.
public struct LanguageModelFeedback: Sendable {}
