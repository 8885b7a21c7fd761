@testable import FMEngine
import FMDecoding
import Foundation
import Synchronization
import Testing

/// The per-model schema cache on the real tiny model: requests that compile one schema at the same time share
/// one constraint, so none of them loses the choice points filed under it.
@Suite(.serialized) struct CompiledSchemaTests {
    @Test func concurrentCompilationsOfOneSchemaShareOneConstraint() throws {
        let model = try SequenceDecoderTests.model()
        // A schema no other test compiles, so every thread starts from an empty cache entry.
        let document = SchemaDocument(root: .object(properties: [
            SchemaProperty(name: "label", schema: .string(.choices(["ham", "spam", UUID().uuidString.lowercased()]))),
            SchemaProperty(name: "urgent", schema: .boolean),
        ]))
        let constraints = Mutex<[TokenConstraint]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do {
                let constraint = try model.constraint(for: document)
                constraints.withLock { $0.append(constraint) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let all = constraints.withLock { $0 }
        try #require(all.count == 6)
        #expect(all.allSatisfy { $0 === all[0] })
        #expect(all.allSatisfy { model.choicePoints(for: $0) != nil })
    }
}
