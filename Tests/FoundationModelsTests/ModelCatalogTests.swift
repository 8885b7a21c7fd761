import Foundation
import FoundationModels
import Testing

/// The model catalogue's names, pins and path resolution (no downloads).
struct ModelCatalogTests {
    @Test func entriesArePinned() {
        #expect(ModelCatalog.entries.map(\.name).starts(with: ["tiny", "small", "medium"]))
        for entry in ModelCatalog.entries {
            #expect(entry.sha256.count == 64 && entry.sha256.allSatisfy(\.isHexDigit), "\(entry.name)")
            #expect(entry.byteCount > 0 && !entry.packages.isEmpty && entry.packages.allSatisfy { $0.contains("==") })
        }
        #expect(ModelCatalog.entry(named: ModelCatalog.defaultName) != nil)
    }

    @Test func namesAndPathsResolve() throws {
        #expect(try ModelCatalog.fileURL(for: "Medium") == ModelCatalog.entry(named: "medium")?.fileURL)
        #expect(try ModelCatalog.fileURL(for: "/models/x.gguf").path == "/models/x.gguf")
        #expect(throws: ModelCatalogError.self) { try ModelCatalog.fileURL(for: "enormous") }
        #expect(ModelCatalog.entry(at: ModelCatalog.defaultEntry.fileURL)?.name == ModelCatalog.defaultName)
    }
}
