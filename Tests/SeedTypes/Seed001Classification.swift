import FoundationModels

// The @Generable types from seed 001 (the content tagging and classification chapter), copied verbatim in
// the chapter's order; only indentation is added for the namespace.

/// Seed 001: the content tagging and classification chapter.
enum Seed001 {
    @Generable
    enum NoteCategory: String, CaseIterable {
        case personal
        case work
        case health
        case finance
        case travel
        case learning
        case ideas
        case tasks
    }

    @Generable
    struct NoteCategorization {
        @Guide(description: "The primary category that best describes this note's content")
        let category: NoteCategory
    }

    @Generable
    enum TicketTopic: String, CaseIterable {
        case billing
        case technicalIssue
        case featureRequest
        case accountAccess
        case cancellation
        case general
    }

    @Generable
    enum EmotionalTone: String, CaseIterable {
        case neutral
        case frustrated
        case appreciative
        case confused
        case urgent
    }

    @Generable
    enum UrgencyLevel: String, CaseIterable {
        case low
        case medium
        case high
        case critical
    }

    @Generable
    struct SupportTicketClassification {
        @Guide(description: "The primary topic this support request addresses")
        let topic: TicketTopic

        @Guide(description: "The emotional tone expressed by the customer")
        let tone: EmotionalTone

        @Guide(description: "How urgently this ticket should be addressed based on the customer's language and situation")
        let urgency: UrgencyLevel

        @Guide(description: "Whether the customer mentioned previous failed attempts to resolve this issue")
        let hasPriorAttempts: Bool
    }

    @Generable
    enum ConfidenceLevel: String, CaseIterable {
        case high
        case medium
        case low
    }

    @Generable
    struct ClassificationWithConfidence {
        @Guide(description: "The most likely topic category")
        let topic: TicketTopic

        @Guide(description: "Confidence in the topic classification: high if clear and unambiguous, medium if reasonable but other categories could apply, low if genuinely unclear")
        let confidence: ConfidenceLevel
    }

    @Generable
    struct MultiLabelClassification {
        @Guide(description: "All relevant topic categories, ordered by relevance. Include 1-3 categories.", .count(1...3))
        let topics: [TicketTopic]

        @Guide(description: "The single most relevant category from the topics list")
        let primaryTopic: TicketTopic
    }

    @Generable
    struct LayeredClassification {
        @Guide(description: "The main topic being discussed")
        let primaryTopic: TicketTopic

        @Guide(description: "A secondary topic if the content addresses multiple areas, otherwise the same as primaryTopic")
        let secondaryTopic: TicketTopic

        @Guide(description: "Whether the content genuinely spans multiple distinct topics")
        let isMultiTopic: Bool
    }

    @Generable
    enum CrisisIndicator: String, CaseIterable {
        case none
        case ambiguous
        case crisis
    }

    @Generable
    struct SafetyClassification {
        @Guide(description: """
            Crisis level based on self-harm indicators:
            - crisis: User expresses intent to harm themselves ("I want to end it", "I am going to kill myself")
            - ambiguous: User expresses hopelessness that might indicate crisis ("what is the point", "I cannot go on")
            - none: No self-harm indicators, including discussions ABOUT suicide that are not personal
              ("my friend died by suicide", "what does the church teach about suicide")

            IMPORTANT: Discussions about others' suicides or academic questions about suicide
            should be classified as 'none', not 'crisis'.
            """)
        let crisisLevel: CrisisIndicator
    }

    @Generable
    enum AudienceLevel: String, CaseIterable {
        case beginner
        case intermediate
        case expert
    }

    @Generable
    enum ContentComplexity: String, CaseIterable {
        case simple
        case moderate
        case technical
    }

    @Generable
    struct AudienceAwareClassification {
        @Guide(description: "The expertise level this content assumes: beginner if it explains basic concepts, intermediate if it assumes foundational knowledge, expert if it uses specialized terminology without explanation")
        let audienceLevel: AudienceLevel

        @Guide(description: "The complexity of the content itself: simple if straightforward, moderate if requires some thought, technical if involves specialized processes or concepts")
        let complexity: ContentComplexity

        @Guide(description: "Whether the content contains jargon or terminology that might confuse newcomers")
        let containsJargon: Bool
    }

    @Generable
    enum EmailPriority: String, CaseIterable {
        case urgent
        case important
        case normal
        case low
    }

    @Generable
    enum EmailCategory: String, CaseIterable {
        case actionRequired
        case informational
        case promotional
        case social
        case automated
    }

    @Generable
    struct EmailClassification {
        @Guide(description: "Priority based on sender importance, deadline mentions, and action requirements")
        let priority: EmailPriority

        @Guide(description: "The type of email based on its purpose and expected response")
        let category: EmailCategory

        @Guide(description: "Whether a response is expected from the recipient")
        let requiresResponse: Bool

        @Guide(description: "Whether the email contains a deadline or time-sensitive request")
        let hasDeadline: Bool
    }

    @Generable
    enum ModerationFlag: String, CaseIterable {
        case none
        case review
        case remove
    }

    @Generable
    struct ModerationClassification {
        @Guide(description: "Whether the content should be flagged: none if acceptable, review if borderline, remove if the content violates guidelines")
        let flag: ModerationFlag

        @Guide(description: "The primary concern if flagged, otherwise 'none'")
        let concernType: ConcernType

        @Guide(description: "Confidence in the moderation decision")
        let confidence: ConfidenceLevel
    }

    @Generable
    enum ConcernType: String, CaseIterable {
        case none
        case spam
        case harassment
        case misinformation
        case inappropriateContent
        case other
    }

    @Generable
    struct LearnerClassification {
        @Guide(description: "The knowledge level the question suggests: exploring if unfamiliar with basics, learning if knows fundamentals but has gaps, practicing if applying knowledge, mastering if refining understanding")
        let knowledgeLevel: KnowledgeLevel

        @Guide(description: "The type of help needed: explanation if asking what/why, guidance if asking how, feedback if sharing work for review, encouragement if expressing frustration")
        let helpType: HelpType

        @Guide(description: "Whether the learner expressed confusion or uncertainty")
        let isConfused: Bool
    }

    @Generable
    enum KnowledgeLevel: String, CaseIterable {
        case exploring
        case learning
        case practicing
        case mastering
    }

    @Generable
    enum HelpType: String, CaseIterable {
        case explanation
        case guidance
        case feedback
        case encouragement
    }
}
