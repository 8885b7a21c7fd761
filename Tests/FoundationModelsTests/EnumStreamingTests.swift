import Foundation
import FoundationModels
import Testing

// A response whose type is an enum: its partial form is the enum itself, which cannot be read while the
// value is still being written.

@Generable
enum StreamedMood {
    case calm, cheerful
}

/// A model that writes `"cheerful"` a few bytes at a time.
struct SpellingModel: LanguageModel {
    typealias Executor = SpellingExecutor
    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities(capabilities: [.guidedGeneration]) }
    var executorConfiguration: String { "spelling" }
}

struct SpellingExecutor: LanguageModelExecutor {
    typealias Model = SpellingModel
    init(configuration: String) {}

    func respond(
        to request: LanguageModelExecutorGenerationRequest,
        model: SpellingModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        for piece in [#"""#, "che", "erf", "ul", #"""#] {
            await channel.send(.response(action: .appendText(piece, tokenCount: 1)))
        }
    }
}

@Suite struct EnumStreamingTests {
    @Test func anEnumStreamsOnceItCanBeRead() async throws {
        let session = LanguageModelSession(model: SpellingModel())
        var snapshots: [StreamedMood] = []
        let stream = session.streamResponse(to: "How do you feel?", generating: StreamedMood.self)
        for try await snapshot in stream { snapshots.append(snapshot.content) }
        #expect(snapshots.last == .cheerful)
        #expect(!snapshots.isEmpty)
        #expect(try await stream.collect().content == .cheerful)
    }
}
