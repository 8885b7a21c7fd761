import FMEngine
import FMLlama
@testable import FoundationModels
import Foundation
import Testing

@Generable
struct RenderedTags {
    @Guide(description: "Most important topics in the input text.", .maximumCount(2))
    let topics: [String]
}

@Generable
enum RenderedLabel { case ham, spam }

@Generable
struct RenderedVerdict {
    let label: RenderedLabel
}

/// How a transcript becomes chat messages: what each use case adds, where the schema goes, and that a turn's
/// messages start with the previous turn's (so the KV cache is reused).
struct ConversationRendererTests {
    private func prompt(_ text: String, format: Transcript.ResponseFormat? = nil, includeSchema: Bool? = nil) -> Transcript.Entry {
        .prompt(Transcript.Prompt(segments: [.text(.init(content: text))], responseFormat: format,
                                  contextOptions: ContextOptions(includeSchemaInPrompt: includeSchema)))
    }

    /// Two calls of one tool, for London and for Tokyo.
    private static let weatherCalls = [("call_1", "London"), ("call_2", "Tokyo")].map { id, city in
        Transcript.ToolCall(id: id, toolName: "getWeather", arguments: GeneratedContent(properties: ["city": city]))
    }

    /// The tool the calls name.
    private static let weatherTool = Transcript.ToolDefinition(name: "getWeather", description: "The weather in a city.",
                                                              parameters: GenerationSchema(root: .object(.anyObject(name: "Arguments"))))

    private let instructions = Transcript.Entry.instructions(Transcript.Instructions(
        segments: [.text(.init(content: "Be brief."))], toolDefinitions: []))

    private func render(_ useCase: SystemLanguageModel.UseCase, _ entries: [Transcript.Entry]) -> [ChatMessage] {
        ConversationRenderer(model: SystemLanguageModel(useCase: useCase)).messages(for: Transcript(entries: entries))
    }

    @Test func theGeneralUseCaseSendsInstructionsAndPromptAsTheyAre() {
        let messages = render(.general, [instructions, prompt("Say hello.")])
        #expect(messages.map(\.role) == ["system", "user"])
        #expect(messages.map(\.content) == ["Be brief.", "Say hello."])
    }

    /// A turn without tools does not show earlier calls in the call format, which a model copies as its answer;
    /// each output names its call's arguments. A turn with tools keeps the format, the model's own.
    @Test func earlierToolCallsAreShownInTheirFormatOnlyWhenTheTurnOffersTools() {
        let calls = Self.weatherCalls
        let entries: [Transcript.Entry] = [
            prompt("Compare the weather in London and Tokyo."),
            .toolCalls(.init(calls)),
            .toolOutput(.init(id: "call_2", toolName: "getWeather", segments: [.text(.init(content: "Rain."))])),
            .toolOutput(.init(id: "call_1", toolName: "getWeather", segments: [.text(.init(content: "Sunny."))])),
        ]
        let plain = render(.general, entries)
        #expect(plain.map(\.role) == ["user", "user", "user"])
        #expect(!plain.contains { $0.content.contains("tool_calls") })
        #expect(plain[1].content.hasPrefix(#"The tool getWeather called with {"city":"Tokyo"} returned: Rain."#), "\(plain[1].content)")
        #expect(plain[2].content.hasPrefix(#"The tool getWeather called with {"city":"London"} returned: Sunny."#))

        let definition = Self.weatherTool
        var renderer = ConversationRenderer(model: SystemLanguageModel(useCase: .general))
        renderer.tools = [definition]
        let withTools = renderer.messages(for: Transcript(entries: entries))
        #expect(withTools.map(\.role) == ["system", "user", "assistant", "user", "user"])
        #expect(withTools[2].content == #"{"tool_calls":[{"name":"getWeather","arguments":{"city":"London"}},{"name":"getWeather","arguments":{"city":"Tokyo"}}]}"#)
    }

    /// A call kept without its output (a failed tool under `preserveTranscript`) is answered with a note before
    /// the conversation goes on, in the call format; without tools, calls are not shown, so nothing is missing.
    @Test func aCallWithoutItsOutputIsAnsweredWithANote() {
        let calls = Self.weatherCalls
        let entries: [Transcript.Entry] = [
            prompt("Compare the weather in London and Tokyo."),
            .toolCalls(.init(calls)),
            .toolOutput(.init(id: "call_1", toolName: "getWeather", segments: [.text(.init(content: "Sunny."))])),
            prompt("And now?"),
        ]
        let definition = Self.weatherTool
        let withTools = ConversationRenderer(model: SystemLanguageModel(useCase: .general), tools: [definition])
            .messages(for: Transcript(entries: entries))
        #expect(withTools.map(\.role) == ["system", "user", "assistant", "user", "user", "user"])
        #expect(withTools[4].content.contains(ConversationRenderer.unansweredCallNote), "\(withTools[4].content)")
        #expect(withTools[5].content == "And now?")
        #expect(render(.general, entries).map(\.role) == ["user", "user", "user"])
    }

    /// A turn that may not call its tools (`tool_choice: "none"`, ``GenerationOptions/ToolCallingMode/disallowed``)
    /// keeps their definitions but is told to answer without them, not to call one first, which made the model
    /// invent what the tool would have returned. Neither text shows a placeholder that reads like an answer.
    @Test func aTurnThatMayNotCallToolsIsToldToAnswerWithoutThem() throws {
        let instructions = Transcript.Entry.instructions(Transcript.Instructions(
            segments: [.text(.init(content: "Be brief."))], toolDefinitions: [Self.weatherTool]))
        let entries: [Transcript.Entry] = [instructions, prompt("What's the weather in Paris?")]
        var renderer = ConversationRenderer(model: SystemLanguageModel(useCase: .general), tools: [Self.weatherTool])
        let allowed = try #require(renderer.messages(for: Transcript(entries: entries)).first).content
        renderer.callsAllowed = false
        let disallowed = try #require(renderer.messages(for: Transcript(entries: entries)).first).content

        for system in [allowed, disallowed] {
            #expect(system.contains("- getWeather: The weather in a city."), "\(system)")
            #expect(system.contains(#"{"response":"..."}"#), "\(system)")
            #expect(!system.contains("<your answer>"))
        }
        #expect(allowed.contains("Always call a tool first"))
        #expect(allowed.contains(#"{"tool_calls":[{"name":"getWeather""#))
        #expect(!disallowed.contains("Always call a tool first"), "\(disallowed)")
        #expect(!disallowed.contains("tool_calls"))
        #expect(disallowed.contains("The tools are switched off for this reply."))
    }

    @Test func aGuidedPromptDescribesItsSchemaAfterTheTextUnlessToldNot() {
        let format = Transcript.ResponseFormat(type: RenderedTags.self)
        let described = render(.general, [prompt("Tag this.", format: format)])
        let user = described.last
        #expect(user?.content.hasPrefix("Tag this.\n\n") == true && user?.content.contains("topics") == true)
        let plain = render(.general, [prompt("Tag this.", format: format, includeSchema: false)])
        #expect(plain.last?.content == "Tag this.")
    }

    /// A calibration run reads a calibration text the way a job reads its own text: after the same instructions and
    /// followed by the same schema description. Read without it, the prior divided out is that of another request,
    /// and on real files every answer collapsed to one label (spam 50 %, all `ham`).
    @Test func aCalibrationTextIsReadUnderTheSameRequestAsTheJobsText() {
        let format = Transcript.ResponseFormat(type: RenderedVerdict.self)
        let placements: [(SystemLanguageModel.UseCase, QualityLevers)] = {
            var after = QualityLevers()
            after.describesTaggingSchemaInSystemText = false
            var before = QualityLevers()
            before.taggingSchemaPlacement = .before
            return [(.general, QualityLevers()), (.contentTagging, QualityLevers()), (.contentTagging, after), (.contentTagging, before)]
        }()
        for (useCase, levers) in placements {
            for includeSchema in [nil, false] as [Bool?] {
                QualityLevers.$current.withValue(levers) {
                    let renderer = ConversationRenderer(model: SystemLanguageModel(useCase: useCase))
                    func transcript(_ text: String) -> Transcript {
                        Transcript(entries: [instructions, prompt(text, format: format, includeSchema: includeSchema)])
                    }
                    var job = GenerationJob(messages: renderer.messages(for: transcript("Win a prize now!")), sampling: .greedy,
                                            maximumTokens: nil, constraint: nil)
                    job.promptSuffix = renderer.promptSuffix(for: transcript("Win a prize now!"))
                    job.promptPrefix = renderer.promptPrefix(for: transcript("Win a prize now!"))
                    // The tagging use case's example turns are the job's, not the calibration run's; compare the rest.
                    let expected = renderer.messages(for: transcript("See you at six."))
                    let read = job.calibrationMessages(for: "See you at six.")
                    #expect(read.first == expected.first && read.last == expected.last, "\(useCase) \(String(describing: includeSchema))")
                    let inUserMessage = includeSchema != false && (useCase == .general || levers.taggingSchemaPlacement != .system)
                    #expect(read.last?.content.contains("\"ham\"") == inUserMessage, "\(read.last?.content ?? "")")
                }
            }
        }
    }

    /// Placed before the text, the schema's description opens the user message, so every text of a batch still
    /// shares everything before it; the system text no longer carries it.
    @Test func contentTaggingCanDescribeTheSchemaBeforeTheText() {
        let format = Transcript.ResponseFormat(type: RenderedVerdict.self)
        var levers = QualityLevers()
        levers.taggingSchemaPlacement = .before
        let (first, second) = QualityLevers.$current.withValue(levers) {
            (render(.contentTagging, [instructions, prompt("Win a prize now!", format: format)]),
             render(.contentTagging, [instructions, prompt("See you at six.", format: format)]))
        }
        #expect(first.first?.role == "system" && first.first?.content.contains("\"ham\"") == false)
        let user = first.last?.content ?? ""
        #expect(user.contains("\"ham\"") && user.hasSuffix("\n\nText: Win a prize now!"), "\(user)")
        let shared = String(user.dropLast("Win a prize now!".count))
        #expect(second.last?.content == shared + "See you at six.")
        #expect(levers.fingerprint != QualityLevers().fingerprint)
        var after = QualityLevers()
        after.describesTaggingSchemaInSystemText = false
        #expect(levers.fingerprint != after.fingerprint)
    }

    @Test func contentTaggingPutsPreambleAndSchemaInTheSystemTextAndOpensWithExamples() {
        let format = Transcript.ResponseFormat(type: RenderedTags.self)
        let messages = render(.contentTagging, [instructions, prompt("We had a picnic.", format: format)])
        let system = messages[0]
        #expect(system.role == "system" && system.content.contains("Be brief.") && system.content.contains("topics"))
        #expect(system.content.count > "Be brief.".count + 40, "the use case's preamble")
        // Example turns (user, assistant pairs) come between the system text and the real text, which is last
        // and unchanged, so the whole prefix is shared by every text of a batch.
        let middle = messages.dropFirst().dropLast()
        #expect(!middle.isEmpty && middle.count.isMultiple(of: 2))
        #expect(middle.enumerated().allSatisfy { $0.element.role == ($0.offset.isMultiple(of: 2) ? "user" : "assistant") })
        for answer in middle where answer.role == "assistant" {
            let content = try? GeneratedContent(json: answer.content)
            let topics = try? content?.value([String].self, forProperty: "topics")
            #expect(topics.map { $0.count <= 2 } == true, "an example answer follows the schema's maximum: \(answer.content)")
        }
        #expect(messages.last?.content == "We had a picnic.")
    }

    @Test func theExampleTurnsCanBeSwitchedOffAndAreNotRepeatedInLaterTurns() {
        let format = Transcript.ResponseFormat(type: RenderedTags.self)
        var levers = QualityLevers()
        levers.usesTaggingExamples = false
        let without = QualityLevers.$current.withValue(levers) {
            render(.contentTagging, [prompt("We had a picnic.", format: format)])
        }
        #expect(without.map(\.role) == ["system", "user"])
        let later = render(.contentTagging, [
            prompt("We had a picnic.", format: format),
            .response(Transcript.Response(segments: [.text(.init(content: #"{"topics":["picnic"]}"#))])),
            prompt("We went hiking.", format: format),
        ])
        #expect(later.map(\.role) == ["system", "user", "assistant", "user"])
    }

    @Test func eachTurnStartsWithThePreviousTurnsMessages() {
        let first: [Transcript.Entry] = [instructions, prompt("Name a fruit.")]
        let second = first + [.response(Transcript.Response(segments: [.text(.init(content: "Apple."))])), prompt("Another?")]
        let before = render(.general, first)
        let after = render(.general, second)
        #expect(Array(after.prefix(before.count)).map(\.content) == before.map(\.content))
        #expect(after.map(\.role) == ["system", "user", "assistant", "user"])
        #expect(render(.general, second).map(\.content) == after.map(\.content), "rendering is deterministic")
    }
}
