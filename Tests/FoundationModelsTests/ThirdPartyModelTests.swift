import Foundation
import FoundationModels
import Observation
import Synchronization
import Testing

// A model and executor as a third-party package would write them: only public API, no model weights. The
// executor answers from a script and records what the session sent it.

/// What the scripted executor received.
final class ExecutorLog: Sendable {
    private let requests = Mutex<[LanguageModelExecutorGenerationRequest]>([])
    private let prewarmed = Mutex<[Transcript]>([])

    func record(_ request: LanguageModelExecutorGenerationRequest) { requests.withLock { $0.append(request) } }
    func recordPrewarm(_ transcript: Transcript) { prewarmed.withLock { $0.append(transcript) } }
    var received: [LanguageModelExecutorGenerationRequest] { requests.withLock { $0 } }
    var prewarms: [Transcript] { prewarmed.withLock { $0 } }
}

/// A model that streams scripted text, answers guided requests with a fixed value and calls the first tool
/// it is offered once.
struct ScriptedModel: LanguageModel {
    typealias Executor = ScriptedExecutor

    /// Distinguishes executors: each test gets its own.
    let name: String
    let log = ExecutorLog()
    var capabilityList: [LanguageModelCapabilities.Capability] = [.guidedGeneration, .toolCalling]
    /// An error to throw instead of answering.
    var failure: LanguageModelError?

    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities(capabilities: capabilityList) }
    var executorConfiguration: String { name }
}

struct ScriptedExecutor: LanguageModelExecutor {
    typealias Model = ScriptedModel

    /// How many executors were created per configuration.
    static let creations = Mutex<[String: Int]>([:])

    init(configuration: String) {
        Self.creations.withLock { $0[configuration, default: 0] += 1 }
    }

    func prewarm(model: ScriptedModel, transcript: Transcript) {
        model.log.recordPrewarm(transcript)
    }

    func respond(
        to request: LanguageModelExecutorGenerationRequest,
        model: ScriptedModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        model.log.record(request)
        if let failure = model.failure { throw failure }
        let usage = LanguageModelExecutorGenerationChannel.Response.Action.updateUsage(
            input: .init(totalTokenCount: 40, cachedTokenCount: 8), output: .init(totalTokenCount: 6, reasoningTokenCount: 0))
        let outputs = request.transcript.compactMap { if case .toolOutput(let output) = $0 { output } else { nil } }
        if let tool = request.enabledToolDefinitions.first, outputs.isEmpty, request.generationOptions.toolCallingMode != .disallowed {
            await channel.send(.reasoning(action: .appendText("The weather needs a lookup.", tokenCount: 5)))
            await channel.send(.toolCalls(action: .toolCall(id: "call-1", name: tool.name, action: .appendArguments(#"{"city":"#, tokenCount: 3))))
            await channel.send(.toolCalls(action: .toolCall(id: "call-1", name: tool.name, action: .appendArguments(#""Paris"}"#, tokenCount: 2))))
            return
        }
        if request.schema != nil {
            for piece in [#"{"name": "Rex", "#, #""age": 3}"#] {
                await channel.send(.response(action: .appendText(piece, tokenCount: 3)))
            }
        } else {
            let answer = outputs.last.map { "The tool said: \($0.segments.map(\.description).joined())" } ?? "Hello, world"
            for word in answer.split(separator: " ", omittingEmptySubsequences: false).enumerated().map({ ($0.offset == 0 ? "" : " ") + $0.element }) {
                await channel.send(.response(action: .appendText(word, tokenCount: 1)))
            }
        }
        await channel.send(.response(action: .updateMetadata(["modelID": "scripted-1"])))
        await channel.send(.response(action: usage))
    }
}

/// A type the scripted model's pet does not convert to.
@Generable
struct ScriptedCar {
    var brand: String
    var wheels: Int
}

@Generable
struct ScriptedPet {
    var name: String
    var age: Int
}

/// Answers with a photo (named like ``CityWeather``, so the scripted model calls it the same way).
struct CityPhoto: Tool {
    static let photo = URL(fileURLWithPath: "/photos/paris.jpg")
    let name = "cityWeather"
    let description = "A photo of a city's sky."

    @Generable
    struct Arguments {
        var city: String
    }

    func call(arguments: Arguments) async throws -> Prompt {
        Prompt {
            "A photo of \(arguments.city):"
            Attachment(imageURL: Self.photo).label("sky")
        }
    }
}

struct CityWeather: Tool {
    let name = "cityWeather"
    let description = "The weather in a city."

    @Generable
    struct Arguments {
        var city: String
    }

    func call(arguments: Arguments) async throws -> String {
        "sunny in \(arguments.city)"
    }
}

/// A session driven by a third-party model: the protocol alone carries text, guided values, tool calls,
/// reasoning, metadata, usage and errors.
struct ThirdPartyModelTests {
    @Test func streamsTextAndReportsUsage() async throws {
        let model = ScriptedModel(name: "stream")
        let session = LanguageModelSession(model: model, instructions: "Be nice.")
        var snapshots: [String] = []
        var complete: [Bool] = []
        var responseIDs: Set<String> = []
        var firstIndices: Set<Int> = []
        for try await snapshot in session.streamResponse(to: "Say hello.") {
            snapshots.append(snapshot.content)
            complete.append(snapshot.rawContent.isComplete)
            firstIndices.insert(snapshot.transcriptEntries.startIndex)
            if case .response(let entry)? = snapshot.transcriptEntries.last { responseIDs.insert(entry.id) }
        }
        #expect(snapshots.count >= 2)
        #expect(snapshots.last == "Hello, world")
        #expect(zip(snapshots, snapshots.dropFirst()).allSatisfy { $1.hasPrefix($0) }, "each snapshot holds the whole text so far")
        // Partial snapshots come with new text only; the last one, complete, may repeat the text it completes.
        let partial = snapshots.dropLast()
        #expect(zip(partial, partial.dropFirst()).allSatisfy { $0 != $1 }, "a snapshot only for new text: \(snapshots)")
        #expect(complete == Array(repeating: false, count: complete.count - 1) + [true], "only the last snapshot is complete")
        // One response entry as it grows, numbered as in the transcript (after the instructions).
        #expect(responseIDs.count == 1 && firstIndices == [1])
        #expect(session.usage.input.totalTokenCount == 40 && session.usage.input.cachedTokenCount == 8)
        #expect(session.usage.output.totalTokenCount == 6 && session.usage.totalTokenCount == 46)

        let entries = Array(session.transcript)
        #expect(entries.count == 3)
        guard case .response(let response) = entries.last else {
            Issue.record("the transcript ends with the response")
            return
        }
        #expect(response.segments.map(\.description).joined() == "Hello, world")
        #expect(response.metadata["modelID"] as? String == "scripted-1")
        #expect(responseIDs == [response.id])

        let request = try #require(model.log.received.first)
        #expect(request.schema == nil && request.enabledToolDefinitions.isEmpty)
        guard case .instructions(let instructions) = request.transcript.first, case .prompt(let prompt) = request.transcript.last else {
            Issue.record("the executor sees the instructions and the prompt")
            return
        }
        #expect(instructions.segments.map(\.description) == ["Be nice."])
        #expect(prompt.segments.map(\.description) == ["Say hello."])
    }

    /// Like Apple's `@Observable` session, each state a view reads tells its observers when it changes: the
    /// transcript, whether the session is responding, its usage, and its transcript error policy.
    @Test func observersSeeEveryStateChange() async throws {
        final class Changes: Sendable {
            let names = Mutex<[String]>([])
        }
        let changes = Changes()
        let session = LanguageModelSession(model: ScriptedModel(name: "observed"), instructions: "Be nice.")
        func observe(_ name: String, _ read: () -> Void) {
            withObservationTracking(read, onChange: { changes.names.withLock { $0.append(name) } })
        }
        observe("policy") { _ = session.transcriptErrorHandlingPolicy }
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        #expect(changes.names.withLock { $0 } == ["policy"])

        observe("transcript") { _ = session.transcript }
        observe("isResponding") { _ = session.isResponding }
        observe("usage") { _ = session.usage }
        _ = try await session.respond(to: "Say hello.")
        #expect(Set(changes.names.withLock { $0 }) == ["policy", "transcript", "isResponding", "usage"])
    }

    @Test func answersAGuidedRequest() async throws {
        let model = ScriptedModel(name: "guided")
        let session = LanguageModelSession(model: model)
        let response = try await session.respond(
            to: "A pet, please.", generating: ScriptedPet.self,
            options: GenerationOptions(samplingMode: .greedy), contextOptions: ContextOptions(includeSchemaInPrompt: false),
            metadata: ["requestTag": "pets"])
        #expect(response.content.name == "Rex" && response.content.age == 3)
        #expect(response.usage.output.totalTokenCount == 6)

        let request = try #require(model.log.received.first)
        #expect(request.schema?.debugDescription.contains("ScriptedPet") == true)
        #expect(request.contextOptions.includeSchemaInPrompt == false)
        #expect(request.generationOptions.samplingMode == .greedy)
        #expect(request.metadata["requestTag"] as? String == "pets")
        guard case .response(let entry) = session.transcript.last, case .structure(let segment) = entry.segments.first else {
            Issue.record("a structured response entry")
            return
        }
        #expect(segment.schemaName == "ScriptedPet")
        guard case .prompt(let prompt) = session.transcript.first else {
            Issue.record("a prompt entry")
            return
        }
        #expect(prompt.metadata["requestTag"] as? String == "pets")
        #expect(prompt.contextOptions.includeSchemaInPrompt == false)

        // Content of a schema given at run time is recorded under the schema's name, not `GeneratedContent`.
        let dynamic = LanguageModelSession(model: ScriptedModel(name: "guided"))
        _ = try await dynamic.respond(to: "A pet, please.", schema: ScriptedPet.generationSchema)
        guard case .prompt(let asked) = dynamic.transcript.first, case .response(let answer) = dynamic.transcript.last,
              case .structure(let structure) = answer.segments.first else {
            Issue.record("a prompt and a structured response")
            return
        }
        #expect(asked.responseFormat?.name == "ScriptedPet" && structure.schemaName == "ScriptedPet")
    }

    @Test func receivesToolDefinitionsAndTheToolsOutput() async throws {
        let model = ScriptedModel(name: "tools")
        let session = LanguageModelSession(model: model, tools: [CityWeather()], instructions: "Use tools.")
        let response = try await session.respond(to: "Weather in Paris?")
        #expect(response.content == "The tool said: sunny in Paris")

        let requests = model.log.received
        #expect(requests.count == 2, "one request for the call, one for the answer")
        let definition = try #require(requests.first?.enabledToolDefinitions.first)
        #expect(definition.name == "cityWeather" && definition.description == "The weather in a city.")
        #expect(definition.parameters.debugDescription.contains("city"))
        let kinds = response.transcriptEntries.map { entry in
            switch entry {
            case .instructions: "instructions"
            case .prompt: "prompt"
            case .reasoning: "reasoning"
            case .toolCalls: "toolCalls"
            case .toolOutput: "toolOutput"
            case .response: "response"
            }
        }
        #expect(kinds == ["prompt", "reasoning", "toolCalls", "toolOutput", "response"])
        guard case .toolCalls(let calls) = response.transcriptEntries.first(where: { if case .toolCalls = $0 { true } else { false } }) else {
            Issue.record("a tool-calls entry")
            return
        }
        #expect(calls.first?.id == "call-1" && calls.first?.toolName == "cityWeather")
        #expect(try calls.first?.arguments.value(String.self, forProperty: "city") == "Paris")
        #expect(requests.last?.transcript.contains { if case .toolOutput = $0 { true } else { false } } == true)
    }

    /// An image a tool returns reaches the model as an attachment, not as its file name in the text.
    @Test func aToolsImageReachesTheModelAsAnAttachment() async throws {
        let model = ScriptedModel(name: "tools", capabilityList: [.guidedGeneration, .toolCalling, .vision])
        let session = LanguageModelSession(model: model, tools: [CityPhoto()], instructions: "Use tools.")
        _ = try await session.respond(to: "Weather in Paris?")
        let answered = try #require(model.log.received.last)
        let outputs = answered.transcript.compactMap { entry -> Transcript.ToolOutput? in
            if case .toolOutput(let output) = entry { output } else { nil }
        }
        let segments = try #require(outputs.first?.segments)
        #expect(segments.count == 2, "\(segments)")
        guard case .text(let text) = segments.first, case .attachment(let attachment) = segments.last,
              case .image(let image) = attachment.content else {
            Issue.record("the text and the image: \(segments)")
            return
        }
        #expect(text.content == "A photo of Paris:" && image.url == CityPhoto.photo && attachment.label == "sky")
    }

    @Test func aMissingCapabilityIsRefusedBeforeTheExecutor() async throws {
        let model = ScriptedModel(name: "text-only", capabilityList: [])
        let session = LanguageModelSession(model: model)
        await #expect {
            _ = try await session.respond(to: "A pet.", generating: ScriptedPet.self)
        } throws: { error in
            guard case LanguageModelError.unsupportedCapability(let info) = error else { return false }
            return info.capability == .guidedGeneration
        }
        #expect(model.log.received.isEmpty)
        #expect(session.transcript.isEmpty, "a failed request leaves the transcript as it was")
    }

    @Test func executorErrorsReachTheCaller() async throws {
        let failure = LanguageModelError.contextSizeExceeded(.init(contextSize: 100, tokenCount: 120, debugDescription: "too long"))
        let model = ScriptedModel(name: "failing", failure: failure)
        let session = LanguageModelSession(model: model)
        do {
            _ = try await session.respond(to: "Hello")
            Issue.record("the executor's error is thrown")
        } catch let error as LanguageModelError {
            guard case .contextSizeExceeded(let info) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(info.tokenCount == 120 && info.contextSize == 100)
        }
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        _ = try? await session.respond(to: "Hello again")
        #expect(session.transcript.count == 1, "the preserved transcript keeps the failed prompt")
    }

    /// A model's JSON that parses but is not the requested type fails the request with a parsing error, and the
    /// transcript is left as it was, as for any other failure; the value is not recorded as the answer.
    @Test func contentThatIsNotTheRequestedTypeLeavesTheTranscriptAsItWas() async throws {
        let session = LanguageModelSession(model: ScriptedModel(name: "mismatch"))
        for stream in [false, true] {
            await #expect(throws: GeneratedContent.ParsingError.self, "streamed: \(stream)") {
                if stream {
                    _ = try await session.streamResponse(to: "A car, please.", generating: ScriptedCar.self, contextOptions: ContextOptions()).collect()
                } else {
                    _ = try await session.respond(to: "A car, please.", generating: ScriptedCar.self, contextOptions: ContextOptions())
                }
            }
            #expect(session.transcript.isEmpty, "streamed: \(stream)")
            #expect(!session.isResponding)
        }
    }

    @Test func prewarmReachesTheExecutor() {
        let model = ScriptedModel(name: "prewarm")
        let session = LanguageModelSession(model: model, instructions: "Be brief.")
        session.prewarm(promptPrefix: Prompt("Summarize"))
        let transcript = model.log.prewarms.first
        guard case .prompt(let prefix)? = transcript?.last else {
            Issue.record("the prompt prefix reaches the executor")
            return
        }
        #expect(prefix.segments.map(\.description) == ["Summarize"])
    }

    @Test func executorsAreSharedByEqualConfigurations() async throws {
        let first = ScriptedModel(name: "shared")
        let second = ScriptedModel(name: "shared")
        _ = try await LanguageModelSession(model: first).respond(to: "one")
        _ = try await LanguageModelSession(model: second).respond(to: "two")
        #expect(first.log.received.count == 1 && second.log.received.count == 1, "each request carries its own model")
        #expect(ScriptedExecutor.creations.withLock { $0["shared"] } == 1, "one executor for equal configurations")
    }
}
