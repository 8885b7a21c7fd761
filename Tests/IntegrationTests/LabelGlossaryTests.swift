import FMCache
import FMEngine
import FMTagging
import Foundation
import FoundationModels
import Synchronization
import Testing

/// The label glossary written by the catalogue's default model (the tiny model the mechanics tests run on does not
/// follow the request's line format): what it says, that it is cached, and that the lever turns it off.
@Suite("Label glossary from the default model", .serialized, .timeLimit(.minutes(10)))
struct LabelGlossaryModelTests {
    static let texts = BatchCalibrationTests.messages + BatchCalibrationTests.unsolicited

    static func configuration() throws -> TaggingConfiguration {
        let entry = ModelCatalog.defaultEntry
        #expect(entry.installState == .installed, "Run `fm model install \(entry.name)` (or `make test`).")
        return TaggingConfiguration(model: SystemLanguageModel(modelURL: entry.fileURL, useCase: .contentTagging),
                                    schema: BatchCalibrationTests.schema, calibrationTexts: texts)
    }

    @Test func theModelDescribesEveryLabelOnceAndTheCacheKeepsIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("glossary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try ResultCache(url: directory.appendingPathComponent("cache.sqlite"))
        let base = try Self.configuration()
        let statuses = Mutex<[String]>([])
        let described = await base.describingLabels(cache: cache, status: { message in statuses.withLock { $0.append(message) } })
        #expect(statuses.withLock { $0 } == ["writing the label glossary: \"label\" (2 values)"])
        let glossary = try #require(described.labelGlossary)
        print(glossary)
        let lines = glossary.split(separator: "\n")
        #expect(lines.first == "What the answers of \"label\" mean:")
        #expect(lines.filter { $0.hasPrefix("- \"ham\": ") }.count == 1, "\(glossary)")
        #expect(lines.filter { $0.hasPrefix("- \"spam\": ") }.count == 1, "\(glossary)")
        for line in lines.dropFirst() {
            #expect(!LabelGlossary.copies(String(line), from: LabelGlossary.sample(of: Self.texts)), "\(line)")
        }
        #expect(described.sessionInstructions == glossary)
        #expect(described.fingerprint != base.fingerprint)

        // The replies are in the cache: a second job reads them and writes nothing new.
        let stored = try cache.count()
        #expect(stored >= 1)
        let again = await base.describingLabels(cache: cache)
        #expect(again.labelGlossary == glossary)
        #expect(try cache.count() == stored)
    }

    @Test func theOrderTheSchemaListsItsChoicesInChangesNoRequest() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("glossary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try ResultCache(url: directory.appendingPathComponent("cache.sqlite"))
        // A label and a tag list: the prompt carries both the rubric and the JSON sketch, and each lists the choices.
        func configuration(_ choices: [String]) throws -> TaggingConfiguration {
            var configuration = try Self.configuration()
            configuration.schema = GenerationSchema(root: .object(.init(name: "Message", properties: [
                .init(name: "label", description: "Whether the message is unsolicited advertising or fraud",
                      node: .enumeration(.init(name: "Label", choices: choices))),
                .init(name: "topics", description: "What the message is about",
                      node: .array(.init(items: .string(.init()), maximumCount: 2))),
            ])))
            return configuration
        }
        let declared = try configuration(["ham", "spam"]), reversed = try configuration(["spam", "ham"])
        // The glossary of either order is written by the same requests: the second job finds every reply cached.
        let first = await declared.describingLabels(cache: cache)
        let stored = try cache.count()
        let second = await reversed.describingLabels(cache: cache)
        #expect(try cache.count() == stored, "the reversed order asked the model something else")
        let glossary = try #require(first.labelGlossary)
        #expect(second.labelGlossary == glossary)
        // And every text is rendered into the same messages, so the model reads the same prompt.
        func messages(_ configuration: TaggingConfiguration, _ text: String) -> [(role: String, content: String)] {
            configuration.model.renderedMessages(after: Tagger(configuration: configuration).startingTranscript(for: text),
                                                 prompt: text, schema: configuration.schema)
        }
        for text in Self.texts.prefix(3) {
            let one = messages(first, text), other = messages(second, text)
            #expect(one.map(\.role) == other.map(\.role))
            #expect(one.map(\.content) == other.map(\.content))
        }
    }

    @Test func theLeverAndRemoteEnginesLeaveTheJobWithoutAGlossary() async throws {
        var off = try Self.configuration()
        off.levers.describesLabels = false
        let statuses = Mutex(0)
        #expect(await off.describingLabels(status: { _ in statuses.withLock { $0 += 1 } }).labelGlossary == nil)
        #expect(statuses.withLock { $0 } == 0, "nothing is being written, so nothing is announced")
        var remote = try Self.configuration()
        remote.remoteEngines = RemoteEngines(models: [
            ChatCompletionsLanguageModel(endpoint: URL(string: "http://127.0.0.1:9")!, model: "default", enforcesSchemas: true),
        ])
        #expect(await remote.describingLabels().labelGlossary == nil)
    }
}
