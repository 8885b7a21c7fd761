/// Options for controlling how a language model session manages the transcript when errors occur.
///
/// ```swift
/// session.transcriptErrorHandlingPolicy = .preserveTranscript
/// ```
///
/// A session whose policy is `nil` reverts the transcript.
public struct TranscriptErrorHandlingPolicy: Sendable {
    enum Kind: Sendable, Equatable { case revert, preserve }
    let kind: Kind

    /// A policy that reverts the transcript back to the state it was in just before the most recent request.
    public static let revertTranscript = TranscriptErrorHandlingPolicy(kind: .revert)

    /// A policy that keeps the current transcript as is.
    ///
    /// The last entry of the transcript may be partially generated.
    public static let preserveTranscript = TranscriptErrorHandlingPolicy(kind: .preserve)
}
