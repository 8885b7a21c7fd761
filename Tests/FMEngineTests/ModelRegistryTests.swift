@testable import FMEngine
import Foundation
import Testing

/// The process-wide registry of loaded models, on the real tiny model.
@Suite(.serialized) struct ModelRegistryTests {
    /// One file is loaded once however its path is spelled: a second load would hold the weights twice.
    @Test func aModelFileIsLoadedOnceHoweverItsPathIsSpelled() throws {
        let model = try SequenceDecoderTests.model()
        let file = URL(fileURLWithPath: SequenceDecoderTests.path).resolvingSymlinksInPath()
        let directory = file.deletingLastPathComponent()
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("fm-link-\(UUID().uuidString).gguf")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        defer { try? FileManager.default.removeItem(at: link) }
        for spelling in [file.path, directory.path + "/./" + file.lastPathComponent,
                         directory.path + "/../" + directory.lastPathComponent + "/" + file.lastPathComponent, link.path] {
            #expect(try ModelRegistry.shared.model(at: spelling) === model, "\(spelling)")
            #expect(ModelRegistry.shared.loadedModel(at: spelling) === model, "\(spelling)")
        }
    }
}
