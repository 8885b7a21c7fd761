public import FoundationModels

/// A built-in classification schema: the default content-tagging result of seed 000, or one of the seed 001
/// classification schemas.
public enum TaggingPreset: String, CaseIterable, Sendable {
    /// Seed 000's `ContentTaggingResult`: actions, emotions, objects and topics.
    case contentTagging = "content-tagging"
    /// Seed 001's `SupportTicketClassification`.
    case supportTicket = "support-ticket"
    /// Seed 001's `NoteCategorization`.
    case noteCategory = "note-category"
    /// Seed 001's `EmailClassification`.
    case email
    /// Seed 001's `ModerationClassification`.
    case moderation
    /// Seed 001's `LearnerClassification`.
    case learner
    /// Seed 001's `AudienceAwareClassification`.
    case audience
    /// Seed 001's `SafetyClassification`.
    case safety

    /// The preset's schema.
    public var schema: GenerationSchema {
        typealias Node = GenerationSchema.Node
        func property(_ name: String, _ description: String, _ node: Node) -> GenerationSchema.PropertyNode {
            GenerationSchema.PropertyNode(name: name, description: description, node: node)
        }
        func tags(_ maximum: Int) -> Node { .array(.init(items: .string(.init()), maximumCount: maximum)) }
        func choices(_ name: String, _ values: [String]) -> Node { .enumeration(.init(name: name, choices: values)) }
        func object(_ name: String, _ properties: [GenerationSchema.PropertyNode]) -> GenerationSchema {
            GenerationSchema(root: .object(.init(name: name, properties: properties)))
        }
        let confidence = choices("ConfidenceLevel", ["high", "medium", "low"])
        switch self {
        case .contentTagging:
            return object("ContentTaggingResult", [
                property("actions", "Most important actions in the input text.", tags(2)),
                property("emotions", "Most important emotions in the input text.", tags(3)),
                property("objects", "Most important objects in the input text.", tags(5)),
                property("topics", "Most important topics in the input text.", tags(2)),
            ])
        case .supportTicket:
            return object("SupportTicketClassification", [
                property("topic", "The primary topic this support request addresses",
                         choices("TicketTopic", ["billing", "technicalIssue", "featureRequest", "accountAccess", "cancellation", "general"])),
                property("tone", "The emotional tone expressed by the customer",
                         choices("EmotionalTone", ["neutral", "frustrated", "appreciative", "confused", "urgent"])),
                property("urgency", "How urgently this ticket should be addressed based on the customer's language and situation",
                         choices("UrgencyLevel", ["low", "medium", "high", "critical"])),
                property("hasPriorAttempts", "Whether the customer mentioned previous failed attempts to resolve this issue", .boolean),
            ])
        case .noteCategory:
            return object("NoteCategorization", [
                property("category", "The primary category that best describes this note's content",
                         choices("NoteCategory", ["personal", "work", "health", "finance", "travel", "learning", "ideas", "tasks"])),
            ])
        case .email:
            return object("EmailClassification", [
                property("priority", "Priority based on sender importance, deadline mentions, and action requirements",
                         choices("EmailPriority", ["urgent", "important", "normal", "low"])),
                property("category", "The type of email based on its purpose and expected response",
                         choices("EmailCategory", ["actionRequired", "informational", "promotional", "social", "automated"])),
                property("requiresResponse", "Whether a response is expected from the recipient", .boolean),
                property("hasDeadline", "Whether the email contains a deadline or time-sensitive request", .boolean),
            ])
        case .moderation:
            return object("ModerationClassification", [
                property("flag", "Whether the content should be flagged: none if acceptable, review if borderline, remove if the content violates guidelines",
                         choices("ModerationFlag", ["none", "review", "remove"])),
                property("concernType", "The primary concern if flagged, otherwise 'none'",
                         choices("ConcernType", ["none", "spam", "harassment", "misinformation", "inappropriateContent", "other"])),
                property("confidence", "Confidence in the moderation decision", confidence),
            ])
        case .learner:
            return object("LearnerClassification", [
                property("knowledgeLevel", "The knowledge level the question suggests: exploring if unfamiliar with basics, learning if knows fundamentals but has gaps, practicing if applying knowledge, mastering if refining understanding",
                         choices("KnowledgeLevel", ["exploring", "learning", "practicing", "mastering"])),
                property("helpType", "The type of help needed: explanation if asking what/why, guidance if asking how, feedback if sharing work for review, encouragement if expressing frustration",
                         choices("HelpType", ["explanation", "guidance", "feedback", "encouragement"])),
                property("isConfused", "Whether the learner expressed confusion or uncertainty", .boolean),
            ])
        case .audience:
            return object("AudienceAwareClassification", [
                property("audienceLevel", "The expertise level this content assumes: beginner if it explains basic concepts, intermediate if it assumes foundational knowledge, expert if it uses specialized terminology without explanation",
                         choices("AudienceLevel", ["beginner", "intermediate", "expert"])),
                property("complexity", "The complexity of the content itself: simple if straightforward, moderate if requires some thought, technical if involves specialized processes or concepts",
                         choices("ContentComplexity", ["simple", "moderate", "technical"])),
                property("containsJargon", "Whether the content contains jargon or terminology that might confuse newcomers", .boolean),
            ])
        case .safety:
            return object("SafetyClassification", [
                property("crisisLevel", """
                    Crisis level based on self-harm indicators:
                    - crisis: User expresses intent to harm themselves ("I want to end it", "I am going to kill myself")
                    - ambiguous: User expresses hopelessness that might indicate crisis ("what is the point", "I cannot go on")
                    - none: No self-harm indicators, including discussions ABOUT suicide that are not personal \
                    ("my friend died by suicide", "what does the church teach about suicide")
                    IMPORTANT: Discussions about others' suicides or academic questions about suicide should be \
                    classified as 'none', not 'crisis'.
                    """, choices("CrisisIndicator", ["none", "ambiguous", "crisis"])),
            ])
        }
    }
}
