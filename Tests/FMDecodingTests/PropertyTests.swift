import FMDecoding
import Foundation
import Testing

/// Random schemas × random valid decodings: every finished output parses and satisfies the independent
/// validator, and the mask is never empty before completion.
///
/// Iteration counts scale with `FM_PROPERTY_SCALE` (default 1; e.g. 20 for a long run).
struct PropertyTests {
    static var scale: Int { Int(ProcessInfo.processInfo.environment["FM_PROPERTY_SCALE"] ?? "") ?? 1 }

    func check(vocabulary: TokenVocabulary, schemas: Int, seedBase: UInt64, maximumSteps: Int, verifyMasks: Bool = false) {
        let walker = RandomWalk(vocabulary: vocabulary)
        var finished = 0
        for index in 0..<schemas {
            let seed = seedBase &+ UInt64(index)
            var generator = RandomSchemaGenerator(seed: seed)
            let document = generator.document()
            let grammar: Grammar
            do {
                grammar = try Grammar(compiling: document)
            } catch {
                Issue.record("seed \(seed): compile failed: \(error)\nschema: \(document)")
                continue
            }
            let constraint = TokenConstraint(grammar: grammar, vocabulary: vocabulary)
            var rng = SeededGenerator(seed: seed ^ 0xDEC0DE)
            for _ in 0..<2 {
                let outcome = walker.run(constraint, rng: &rng, maximumSteps: maximumSteps, verifyMasks: verifyMasks)
                if let mismatch = outcome.maskMismatch {
                    Issue.record("seed \(seed): mask disagrees with acceptance after \(String(decoding: outcome.bytes, as: UTF8.self)): \(mismatch)\nschema: \(document)")
                    continue
                }
                let text = String(decoding: outcome.bytes, as: UTF8.self)
                if let position = outcome.emptyMaskAt {
                    Issue.record("seed \(seed): empty mask at byte \(position) after \(text)\nschema: \(document)")
                }
                if let token = outcome.rejectedAllowedToken {
                    Issue.record("seed \(seed): allowed token \(token) rejected after \(text)\nschema: \(document)")
                }
                guard outcome.finished else { continue }
                finished += 1
                if let violation = SchemaValidator(document: document).violation(in: outcome.bytes) {
                    Issue.record("seed \(seed): invalid output \(text): \(violation)\nschema: \(document)")
                }
            }
        }
        // Walks must usually finish, or the property says little.
        #expect(finished >= schemas, "only \(finished) of \(schemas * 2) walks finished")
    }

    @Test func syntheticVocabulary() {
        check(vocabulary: TestVocabularies.synthetic, schemas: 600 * Self.scale, seedBase: 1_000_000, maximumSteps: 600)
    }

    /// Every mask bit equals exact acceptance of its token, at every step (synthetic vocabulary only).
    @Test func masksAreExact() {
        check(vocabulary: TestVocabularies.synthetic, schemas: 150 * Self.scale, seedBase: 4_000_000, maximumSteps: 300, verifyMasks: true)
    }

    @Test func smolLM2Vocabulary() throws {
        check(vocabulary: try TestVocabularies.smol(), schemas: 200 * Self.scale, seedBase: 2_000_000, maximumSteps: 300)
    }

    @Test func gemma3Vocabulary() throws {
        check(vocabulary: try TestVocabularies.gemma(), schemas: 40 * Self.scale, seedBase: 3_000_000, maximumSteps: 300)
    }
}
