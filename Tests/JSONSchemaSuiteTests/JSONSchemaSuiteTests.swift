import FMDecoding
import Foundation
@testable import FoundationModels
import Testing

/// The official JSON Schema test suite (draft 2020-12 keyword files, MIT, copied under Resources/) against the
/// importer and the grammar.
///
/// For every group of every keyword file:
/// - the schema imports, or is refused with an error naming the keyword;
/// - for an imported schema, the grammar accepts the compact canonical JSON of every valid instance the generator
///   could produce and rejects every invalid one (a valid instance outside a documented generation rule counts as
///   "narrowed", see `NarrowingRule`; anything else is a mismatch);
/// - values generated under each imported schema (random walks of its grammar) validate with the reference
///   `jsonschema` Python package.
///
/// Each file prints its counts: imported, refused, accepted-valid, rejected-invalid, mismatches, narrowed, generated.
struct JSONSchemaSuiteTests {
    static let suiteDirectory = Bundle.module.resourceURL!.appendingPathComponent("json-schema-test-suite/draft2020-12")

    static let keywordFiles: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: suiteDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }()

    struct Counts: CustomStringConvertible {
        var groups = 0, imported = 0, refused = 0, acceptedValid = 0, rejectedInvalid = 0, mismatches = 0
        var narrowed = 0, generated = 0, generatedValid = 0
        var description: String {
            "groups \(groups), imported \(imported), refused \(refused), accepted-valid \(acceptedValid), "
                + "rejected-invalid \(rejectedInvalid), mismatches \(mismatches), narrowed \(narrowed), "
                + "generated-valid \(generatedValid)/\(generated)"
        }
    }

    @Test func everyKeywordFileIsPresent() {
        #expect(Self.keywordFiles.count == 25, "found \(Self.keywordFiles)")
    }

    @Test(arguments: keywordFiles)
    func keyword(_ file: String) throws {
        let text = try String(contentsOf: Self.suiteDirectory.appendingPathComponent(file + ".json"), encoding: .utf8)
        guard case .array(let groups) = try SuiteJSON.parse(text) else {
            Issue.record("\(file): not a list of groups")
            return
        }
        var counts = Counts()
        var notes: [String] = []
        var generated: [(group: String, schema: String, instance: String)] = []
        for group in groups {
            counts.groups += 1
            let name = group["description"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? "?"
            guard let schema = group["schema"], case .array(let tests)? = group["tests"] else { continue }
            let imported: JSONSchemaImport
            do {
                imported = try GenerationSchema.importing(jsonSchema: schema.text)
            } catch let error as JSONSchemaImportError {
                counts.refused += 1
                notes.append("refused \"\(name)\": \(error)")
                if error.keyword == nil {
                    Issue.record("\(file) / \(name): refused without naming a keyword: \(error)")
                }
                continue
            }
            counts.imported += 1
            let constraint = TokenConstraint(
                grammar: try Grammar(compiling: imported.schema.decodingDocument()), vocabulary: GrammarWalk.vocabulary)
            for test in tests {
                guard let data = test["data"], case .bool(let valid)? = test["valid"] else { continue }
                let testName = test["description"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? "?"
                let accepted = CanonicalAcceptance.accepts(data, constraint.makeMatcher())
                switch (valid, accepted) {
                case (true, true): counts.acceptedValid += 1
                case (false, false): counts.rejectedInvalid += 1
                case (false, true):
                    counts.mismatches += 1
                    Issue.record("\(file) / \(name) / \(testName): invalid \(data.text) is accepted (schema loosened)")
                case (true, false):
                    let rules = NarrowingRule.applicable(schema: schema, instance: data)
                    if rules.isEmpty {
                        counts.mismatches += 1
                        Issue.record("\(file) / \(name) / \(testName): valid \(data.text) is rejected and no rule explains it")
                    } else {
                        counts.narrowed += 1
                        notes.append("narrowed \"\(name)\" / \(testName) \(data.text): \(rules.map(\.rawValue).joined(separator: ", "))")
                    }
                }
            }
            // Generation: a few walks; at least one must finish.
            var finished = 0
            for attempt in 0..<6 where finished < 3 {
                let seed = UInt64(counts.groups) &* 7919 &+ UInt64(attempt) &+ UInt64(file.utf8.reduce(0) { $0 &* 31 &+ UInt32($1) })
                switch GrammarWalk.generate(constraint, seed: seed) {
                case .success(let bytes)?:
                    finished += 1
                    generated.append((name, schema.text, String(decoding: bytes, as: UTF8.self)))
                case .failure(let failure)?:
                    Issue.record("\(file) / \(name): generation failed: \(failure)")
                case nil:
                    continue
                }
            }
            if finished == 0 { Issue.record("\(file) / \(name): no walk finished") }
        }
        let verdicts = try PythonValidator.validate(generated.map { ($0.schema, $0.instance) })
        for (item, verdict) in zip(generated, verdicts) {
            counts.generated += 1
            if verdict.valid {
                counts.generatedValid += 1
            } else {
                Issue.record("\(file) / \(item.group): generated \(item.instance) is invalid: \(verdict.error ?? "")")
            }
        }
        print("[json-schema-suite] \(file): \(counts)")
        for note in notes { print("[json-schema-suite]   \(file): \(note)") }
    }
}
