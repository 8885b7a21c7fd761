import FMCache
import FMEngine
@testable import FMTagging
import FoundationModels
import Testing

/// The pure parts of the label glossary: which fields get one, the request, reading the reply, the rendered text
/// and its place in the instructions and the cache fingerprint.
struct LabelGlossaryTests {
    private static let ticket = GenerationSchema(root: .object(.init(name: "Ticket", properties: [
        .init(name: "topic", description: "What the ticket is about",
              node: .enumeration(.init(name: "Topic", choices: ["billing", "accountAccess", "technicalIssue"]))),
        .init(name: "urgent", description: "Whether it needs an answer today", node: .boolean),
        .init(name: "summary", description: nil, node: .string(.init())),
        .init(name: "moods", description: nil, node: .array(.init(items: .string(.init(choices: ["calm", "angry"]))))),
        .init(name: "detail", description: nil, node: .object(.init(name: "Detail", properties: [
            .init(name: "channel", description: nil, node: .enumeration(.init(name: "Channel", choices: ["mail", "phone"]))),
        ]))),
        .init(name: "intent", description: nil,
              node: .enumeration(.init(name: "Intent", choices: (0..<17).map { "intent\($0)" }))),
        .init(name: "fixed", description: nil, node: .enumeration(.init(name: "Fixed", choices: ["only"]))),
    ])))

    @Test func smallStringChoiceFieldsGetAGlossaryAndOthersDoNot() {
        let fields = LabelGlossary.choiceFields(in: Self.ticket)
        #expect(fields.map(\.name) == ["topic", "moods", "detail.channel"])
        #expect(fields.first?.choices == ["billing", "accountAccess", "technicalIssue"])
        #expect(LabelGlossary.choiceFields(in: TaggingPreset.contentTagging.schema).isEmpty)
    }

    /// Two fields that name one enum definition each get a glossary, as do the fields of one object type named
    /// twice; a type inside itself is not walked again, a type named along very many paths is walked a bounded
    /// number of times, and a list type whose items are itself ends.
    @Test func fieldsThatShareADefinitionAreEachChoiceFields() throws {
        let mood = GenerationSchema.Definition(name: "Mood", node: .enumeration(.init(name: "Mood", choices: ["calm", "angry", "glad"])))
        let entry = GenerationSchema.Definition(name: "Entry", node: .object(.init(name: "Entry", properties: [
            .init(name: "mood", description: nil, node: .reference("Mood")),
            .init(name: "reply", description: nil, node: .reference("Entry")),
        ])))
        let schema = GenerationSchema(root: .object(.init(name: "Day", properties: [
            .init(name: "before", description: nil, node: .reference("Mood")),
            .init(name: "after", description: nil, node: .reference("Mood")),
            .init(name: "first", description: nil, node: .reference("Entry")),
            .init(name: "day", description: nil, node: .reference("Day")),
        ])), definitions: [mood, entry])
        #expect(LabelGlossary.choiceFields(in: schema).map(\.name) == ["before", "after", "first.mood"])
        #expect(schema.resolving(.reference("Mood")) == mood.node)
        #expect(schema.resolving(.reference("Nowhere")) == nil)
        #expect(GenerationSchema(root: .reference("A"), definitions: [.init(name: "A", node: .reference("A"))]).resolving(.reference("A")) == nil)

        // A list whose items are the list again (the importer takes it), beside a choice field.
        let selfList = try GenerationSchema.importing(jsonSchema: """
            {"type":"object","properties":{"x":{"$ref":"#/$defs/a"},"y":{"enum":["p","q"]}},
             "$defs":{"a":{"type":"array","items":{"$ref":"#/$defs/a"}}}}
            """).schema
        #expect(LabelGlossary.choiceFields(in: selfList).map(\.name) == ["y"])
        // One object type under two fields: each path's choice field is named.
        let person = GenerationSchema.Definition(name: "Person", node: .object(.init(name: "Person", properties: [
            .init(name: "role", description: nil, node: .reference("Mood")),
        ])))
        let letter = GenerationSchema(root: .object(.init(name: "Letter", properties: [
            .init(name: "sender", description: nil, node: .reference("Person")),
            .init(name: "recipient", description: nil, node: .reference("Person")),
        ])), definitions: [person, mood])
        #expect(LabelGlossary.choiceFields(in: letter).map(\.name) == ["sender.role", "recipient.role"])
        // Many paths to one type use up the repeats, not the first walk of a type named after them.
        let other = GenerationSchema.Definition(name: "Other", node: .object(.init(name: "Other", properties: [
            .init(name: "tone", description: nil, node: .reference("Mood")),
        ])))
        let crowded = GenerationSchema(root: .object(.init(name: "Crowd", properties: (0..<80).map {
            .init(name: "p\($0)", description: nil, node: .reference("Person"))
        } + [.init(name: "z", description: nil, node: .reference("Other"))])), definitions: [person, other, mood])
        let crowdedFields = LabelGlossary.choiceFields(in: crowded).map(\.name)
        #expect(crowdedFields.last == "z.tone" && crowdedFields.count == 66, "\(crowdedFields.count)")
        // Thirty levels, each naming the next twice: a bounded walk, not one per path (2^29).
        let levels = (1...30).map { level in
            GenerationSchema.Definition(name: "D\(level)", node: .object(.init(name: "D\(level)", properties: level == 30
                ? [.init(name: "mood", description: nil, node: .reference("Mood"))]
                : [.init(name: "a", description: nil, node: .reference("D\(level + 1)")),
                   .init(name: "b", description: nil, node: .reference("D\(level + 1)"))])))
        }
        let deep = GenerationSchema(root: .reference("D1"), definitions: levels + [mood])
        let deepFields = LabelGlossary.choiceFields(in: deep)
        #expect((2...65).contains(deepFields.count))
        #expect(deepFields.first?.name == (Array(repeating: "a", count: 29) + ["mood"]).joined(separator: "."))
    }

    @Test func sortedFieldsAreTheSameWhateverOrderTheSchemaDeclares() {
        let reversed = GenerationSchema(root: .object(.init(name: "Ticket", properties: [
            .init(name: "topic", description: "What the ticket is about",
                  node: .enumeration(.init(name: "Topic", choices: ["technicalIssue", "accountAccess", "billing"]))),
        ])))
        let sorted = LabelGlossary.choiceFields(in: Self.ticket, sortingChoices: true)
        let fromReversed = LabelGlossary.choiceFields(in: reversed, sortingChoices: true)
        #expect(sorted.first?.choices == ["accountAccess", "billing", "technicalIssue"])
        #expect(fromReversed.first == sorted.first)
        let texts = (0..<8).map { "text \($0)" }
        #expect(LabelGlossary.prompt(for: sorted[0], texts: texts) == LabelGlossary.prompt(for: fromReversed[0], texts: texts))
    }

    @Test func theRequestShowsASpreadOfTextsOnOneLineEachAndEveryChoice() {
        let texts = (0..<24).map { "text \($0)\nsecond line" } + [String(repeating: "long ", count: 100)]
        let sample = LabelGlossary.sample(of: texts)
        #expect(sample.count == LabelGlossary.sampleSize)
        #expect(sample.first == "text 0 second line")
        #expect(sample.allSatisfy { !$0.contains("\n") && $0.count <= LabelGlossary.sampleLength + 1 })
        let field = LabelGlossary.ChoiceField(name: "label", choices: ["ham", "spam"])
        let all = LabelGlossary.prompt(for: field, texts: texts)
        #expect(all.contains("- text 0 second line\n"))
        #expect(all.contains("\"ham\", \"spam\""))
        #expect(all.contains("For each category"))
        let one = LabelGlossary.prompt(for: field, texts: texts, choice: "spam")
        #expect(one.contains("Write one line: \"spam\", a colon"))
        #expect(!one.contains("For each category"))
    }

    @Test func repliesAreReadLineByLineWhateverTheNamesLookLike() {
        let field = LabelGlossary.ChoiceField(name: "label",
                                              choices: ["hate_speech", "neither", "offensive_language", "spam"])
        let reply = """
            Here are the categories:
            - **Hate speech**: Texts that attack a group. They name the group.
            "neither": Texts with no insult at all.
            OFFENSIVE-LANGUAGE:   Texts   that swear
            offensive_language: a second line for the same choice.
            unknown: ignored.
            """
        let meanings = LabelGlossary.meanings(in: reply, for: field)
        #expect(meanings["hate_speech"] == "Texts that attack a group. They name the group.")
        #expect(meanings["neither"] == "Texts with no insult at all.")
        #expect(meanings["offensive_language"] == "Texts that swear")
        #expect(meanings["spam"] == nil)
    }

    @Test func meaningsKeepTheWholeSentencesThatFit() {
        let short = "First sentence. Second one! Third?"
        #expect(LabelGlossary.leadingSentences(of: short) == short)
        let sentence = Array(repeating: "word", count: 30).joined(separator: " ") + "."
        let long = sentence + " " + sentence
        #expect(LabelGlossary.leadingSentences(of: long) == sentence)
        let endless = String(repeating: "x", count: 300)
        #expect(LabelGlossary.leadingSentences(of: endless) == String(repeating: "x", count: LabelGlossary.meaningLength) + "…")
        #expect(LabelGlossary.leadingSentences(of: "e.g. this. Then") == "e.g. this.")
    }

    @Test func aMeaningThatCopiesAShownTextIsRecognised() {
        let texts = ["TheMob>Hit the link to get a premium Pink Panther game, all 4 FREE!"]
        #expect(LabelGlossary.copies("Texts like: themob>hit the link to get a premium game", from: texts))
        #expect(!LabelGlossary.copies("Promotional messages that ask the reader to act.", from: texts))
        #expect(!LabelGlossary.copies("short", from: texts))
    }

    /// Two answers described alike (case, spacing and punctuation aside) make the field's glossary useless.
    @Test func aGlossaryThatGivesTwoAnswersOneMeaningIsRecognised() {
        let alike = "These texts are important but not urgent. They involve minor issues."
        #expect(!LabelGlossary.tellsApart(["high": alike, "medium": alike.uppercased() + " ", "low": "Nothing pressing."]))
        #expect(!LabelGlossary.tellsApart(["important": "Urgent updates, reminders.", "urgent": "Urgent updates; reminders"]))
        #expect(LabelGlossary.tellsApart(["high": alike, "low": "These texts are not important and can wait."]))
        #expect(LabelGlossary.tellsApart([:]))
    }

    /// A field is described whole or not at all: a glossary of some of its answers pulls every text towards them.
    @Test func aFieldGetsAGlossaryOnlyWhenEveryAnswerIsDescribed() {
        let ratings = LabelGlossary.ChoiceField(name: "label", choices: ["1", "2", "3", "4", "5"])
        let some = ["4": "Reviews of a pleasant experience at a place."]
        #expect(LabelGlossary.glossary(of: ratings, from: some).isEmpty)
        let spam = LabelGlossary.ChoiceField(name: "label", choices: ["ham", "spam"])
        let both = ["ham": "Personal messages.", "spam": "Advertising."]
        #expect(LabelGlossary.glossary(of: spam, from: both) == both)
        #expect(LabelGlossary.glossary(of: spam, from: ["ham": "Personal messages.", "spam": "personal messages"]).isEmpty)
        #expect(LabelGlossary.glossary(of: spam, from: [:]).isEmpty)
    }

    @Test func theGlossaryFollowsTheInstructionsAndChangesTheFingerprint() {
        let field = LabelGlossary.ChoiceField(name: "label", choices: ["ham", "spam"])
        let text = LabelGlossary.render([(field, ["spam": "Advertising.", "ham": "Personal messages."])])
        #expect(text == "What the answers of \"label\" mean:\n- \"ham\": Personal messages.\n- \"spam\": Advertising.")
        #expect(LabelGlossary.render([(field, [:])]) == nil)
        // Fields of one choice set described alike share a section; another description gets its own.
        let meanings = ["spam": "Advertising.", "ham": "Personal messages."]
        let fields = ["a", "b", "c"].map { LabelGlossary.ChoiceField(name: $0, choices: ["ham", "spam"]) }
        #expect(LabelGlossary.render(fields.map { ($0, meanings) })
            == "What the answers of \"a\", \"b\" and \"c\" mean:\n- \"ham\": Personal messages.\n- \"spam\": Advertising.")
        #expect(LabelGlossary.render([(fields[0], meanings), (fields[1], ["spam": "Ads.", "ham": "Chat."])])
            == "What the answers of \"a\" mean:\n- \"ham\": Personal messages.\n- \"spam\": Advertising.\n\n"
            + "What the answers of \"b\" mean:\n- \"ham\": Chat.\n- \"spam\": Ads.")

        var configuration = TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: Self.ticket,
                                                 instructions: "Be brief.")
        let plain = configuration.fingerprint
        configuration.labelGlossary = text
        #expect(configuration.sessionInstructions == "Be brief.\n\n" + (text ?? ""))
        #expect(configuration.fingerprint != plain)
        let instructions = Tagger(configuration: configuration).startingTranscript.compactMap { entry -> String? in
            guard case .instructions(let instructions) = entry else { return nil }
            return instructions.segments.compactMap { segment in
                if case .text(let text) = segment { return text.content }
                return nil
            }.joined()
        }
        #expect(instructions == ["Be brief.\n\n" + (text ?? "")])
        configuration.instructions = nil
        #expect(configuration.sessionInstructions == text)
    }

    @Test func aJobWithoutEnoughTextsOrWithTheLeverOffIsLeftAlone() async {
        let configuration = TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: Self.ticket,
                                                 calibrationTexts: ["one", "two"])
        let described = await configuration.describingLabels()
        #expect(described.labelGlossary == nil)
        #expect(described.fingerprint == configuration.fingerprint)
    }

    @Test func repliesMadeWithoutSafetyChecksAreKeptApart() {
        let off = LabelGlossary.replyKey(prompt: "p", model: "m", guardrails: .init(checkers: []))
        let builtIn = LabelGlossary.replyKey(prompt: "p", model: "m", guardrails: .default)
        #expect(off != builtIn)
        // The built-in checks keep the key replies were stored under before.
        #expect(builtIn == ResultCache.key(["label-glossary", "m", "p"]))
        #expect(LabelGlossary.replyKey(prompt: "q", model: "m", guardrails: .default) != builtIn)
    }

    /// A job reads its whole input first whenever a sample of its texts changes answers: to calibrate its choices,
    /// or to write the glossary (also with batch calibration off); free tags need neither.
    @Test func whatNeedsTheWholeInputFirst() {
        var classifying = TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: Self.ticket)
        #expect(classifying.usesCalibrationTexts)
        classifying.levers.calibratesByBatch = false
        #expect(classifying.usesCalibrationTexts, "the glossary is written from the sample")
        classifying.levers.describesLabels = false
        #expect(!classifying.usesCalibrationTexts)
        let tagging = TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: TaggingPreset.contentTagging.schema)
        #expect(!tagging.usesCalibrationTexts)
    }
}
