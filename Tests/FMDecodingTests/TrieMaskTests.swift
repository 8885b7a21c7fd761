import FMDecoding
import Foundation
import Testing

/// The trie walk (runs of a scalar class folded into one step) computes exactly the masks of the reference walk,
/// which visits every token byte by byte.
struct TrieMaskTests {
    static let tagPattern = "[a-z0-9]{1,24}( [a-z0-9]{1,24}){0,2}"

    /// Schemas whose states sit in open text: free strings, counted classes, escapes, unique lists.
    static let openTextSchemas: [SchemaDocument] = [
        SchemaNode.object(properties: [
            SchemaProperty(name: "topics", schema: .array(
                items: .string(.pattern(tagPattern)), minimumCount: 1, maximumCount: 3, uniqueItems: true)),
        ]).document,
        SchemaNode.array(items: .string(.any), minimumCount: 0, maximumCount: 3, uniqueItems: true).document,
        SchemaNode.object(properties: [
            SchemaProperty(name: "summary", schema: .string(.any)),
            SchemaProperty(name: "code", schema: .string(.pattern(#"[A-Z]{2,4}-\d{3,6}"#))),
            SchemaProperty(name: "word", schema: .string(.pattern(#"[^"\\]{0,5}"#))),
            SchemaProperty(name: "accented", schema: .string(.pattern(#"[\u00e0-\u00ff]{1,3}"#))),
        ]).document,
        SchemaNode.array(items: .string(.pattern(#"\d{4}"#)), minimumCount: 1, maximumCount: 4, uniqueItems: true).document,
        SchemaNode.string(.pattern(#"[a-z]{1,8}(\.[a-z]{1,8}){0,3}"#)).document,
    ]

    func checkStates(_ vocabulary: TokenVocabulary, maximumStates: Int) throws {
        for document in Self.openTextSchemas {
            let constraint = TokenConstraint(grammar: try Grammar(compiling: document), vocabulary: vocabulary)
            let mismatch = constraint.maskMismatch(maximumStates: maximumStates)
            #expect(mismatch == nil, "\(mismatch ?? "")\nschema: \(document)")
        }
    }

    func checkWalks(_ vocabulary: TokenVocabulary, schemas: Int, seedBase: UInt64) {
        let walker = RandomWalk(vocabulary: vocabulary)
        for index in 0..<schemas {
            let seed = seedBase &+ UInt64(index)
            var generator = RandomSchemaGenerator(seed: seed)
            let document = generator.document()
            guard let grammar = try? Grammar(compiling: document) else { continue }
            let constraint = TokenConstraint(grammar: grammar, vocabulary: vocabulary)
            var rng = SeededGenerator(seed: seed ^ 0x7121E)
            let outcome = walker.run(constraint, rng: &rng, maximumSteps: 60, compareWithReference: true)
            if let mismatch = outcome.maskMismatch {
                Issue.record("seed \(seed): after \(String(decoding: outcome.bytes, as: UTF8.self)): \(mismatch)\nschema: \(document)")
            }
        }
    }

    @Test func syntheticStatesMatchReference() throws {
        try checkStates(TestVocabularies.synthetic, maximumStates: 400)
        checkWalks(TestVocabularies.synthetic, schemas: 300, seedBase: 5_000_000)
    }

    @Test func smolLM2StatesMatchReference() throws {
        try checkStates(try TestVocabularies.smol(), maximumStates: 80)
        checkWalks(try TestVocabularies.smol(), schemas: 40, seedBase: 6_000_000)
    }

    @Test func gemma3StatesMatchReference() throws {
        try checkStates(try TestVocabularies.gemma(), maximumStates: 8)
        checkWalks(try TestVocabularies.gemma(), schemas: 6, seedBase: 7_000_000)
    }

    /// A free string body folds every plain scalar into runs; a tag word folds `[a-z0-9]`.
    @Test func openTextStatesFoldRuns() throws {
        let vocabulary = try TestVocabularies.smol()
        let constraint = TokenConstraint(grammar: try Grammar(compiling: Self.openTextSchemas[0]), vocabulary: vocabulary)
        var matcher = constraint.makeMatcher()
        #expect(true == matcher.accept(bytes: Array(#"{"topics":["ab"#.utf8)))
        let word = matcher.foldedClass()
        #expect(word.asciiCount == 36 && !word.includesNonASCII)
        let strings = TokenConstraint(grammar: try Grammar(compiling: Self.openTextSchemas[1]), vocabulary: vocabulary)
        var inString = strings.makeMatcher()
        #expect(true == inString.accept(bytes: Array(#"["x"#.utf8)))
        let text = inString.foldedClass()
        #expect(text.asciiCount == 94 && text.includesNonASCII)
    }
}
