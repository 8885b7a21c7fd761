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

    /// A server's requests may each bring their own system prompt or calibration sample; a schema in constant use
    /// keeps only the tables used most recently.
    @Test func aSchemaKeepsItsMostRecentlyUsedCalibrationTablesOnly() throws {
        let model = try SequenceDecoderTests.model()
        let document = SchemaDocument(root: .object(properties: [
            SchemaProperty(name: "label", schema: .string(.choices(["ham", "spam", UUID().uuidString.lowercased()]))),
        ]))
        let constraint = try model.constraint(for: document)
        let keys = (0..<(CompiledSchema.calibrationCapacity + 4)).map { "request \($0)" }
        for key in keys { model.storeCalibration(ChoiceCalibration(), for: constraint, key: key) }
        #expect(keys.prefix(4).allSatisfy { model.calibration(for: constraint, key: $0) == nil })
        #expect(keys.dropFirst(4).allSatisfy { model.calibration(for: constraint, key: $0) != nil })
    }

    /// Past the byte budget, compiling a schema drops the ones used longest ago, never the one just compiled.
    @Test func compilingASchemaPastTheByteBudgetDropsTheOldestAndKeepsTheNewOne() throws {
        let model = LoadedModel(llama: try SequenceDecoderTests.model().llama, compiledSchemaByteBudget: 1)
        func schema(_ name: String) -> SchemaDocument {
            SchemaDocument(root: .object(properties: [SchemaProperty(name: name, schema: .string(.choices(["yes", "no"])))]))
        }
        let first = try model.constraint(for: schema("first"))
        #expect(model.compiledSchemaCount == 1)
        let second = try model.constraint(for: schema("second"))
        #expect(model.compiledSchemaCount == 1, "only the schema just compiled fits a budget of one byte")
        #expect(try model.constraint(for: schema("second")) === second, "kept")
        #expect(model.choicePoints(for: second) != nil)
        #expect(try model.constraint(for: schema("first")) !== first, "dropped, so compiled again")
        #expect(model.choicePoints(for: second) == nil, "dropped in turn")
        // Under the default budget both stay.
        let roomy = LoadedModel(llama: model.llama)
        _ = try roomy.constraint(for: schema("first"))
        _ = try roomy.constraint(for: schema("second"))
        #expect(roomy.compiledSchemaCount == 2)
    }

    /// The cache of compiled schemas is bounded by what their masks occupy, which a count alone does not bound:
    /// a mask holds a bit per token of the vocabulary.
    @Test func aConstraintsSizeCountsItsMasks() throws {
        let model = try SequenceDecoderTests.model()
        let document = SchemaDocument(root: .object(properties: [
            SchemaProperty(name: "note", schema: .string(.choices(["a", "b", UUID().uuidString.lowercased()]))),
        ]))
        let constraint = try model.constraint(for: document)
        let states = constraint.precomputeMasks()
        #expect(states > 3)
        #expect(constraint.approximateByteCount >= states * constraint.vocabulary.count / 8)
    }
}
