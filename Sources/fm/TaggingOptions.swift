import ArgumentParser
import FMCache
import FMTagging
import Foundation
import FoundationModels

/// Options that choose what `fm tag` and `fm eval` generate: the schema, instructions, sampling, batching, cache.
struct TaggingOptions: ParsableArguments {
    @Option(name: .long, help: "A built-in schema: \(TaggingPreset.allCases.map(\.rawValue).joined(separator: ", ")).")
    var preset: String?

    @Option(name: .long, help: "A JSON Schema file describing each result.")
    var schema: String?

    @Option(name: .long, help: "Instructions for the tagging session.")
    var instructions: String?

    @Flag(name: .long, help: "Always pick the most likely token (the default).")
    var greedy = false

    @Option(name: .long, help: "Sample at this temperature instead of decoding greedily (results are not cached).")
    var temperature: Double?

    @Option(name: .long, help: "Seed for reproducible sampling with --temperature.")
    var seed: UInt64?

    @Option(name: .long, help: "Texts decoded together in one batch.")
    var parallel = 1

    @Flag(name: .customLong("no-cache"), help: "Neither read nor write the result cache.")
    var noCache = false

    @Option(name: .long, help: "Labelled JSONL (label/labels, or a result object per line) to draw few-shot examples from.")
    var examples: String?

    @Option(name: .long, help: "How many of the most similar --examples each text gets (default 4).")
    var shots = 4

    func validate() throws {
        if preset != nil, schema != nil { throw ValidationError("--preset and --schema exclude each other.") }
        if let preset, TaggingPreset(rawValue: preset) == nil {
            throw ValidationError("Unknown preset \(preset); choose one of \(TaggingPreset.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if let schema, !FileManager.default.fileExists(atPath: schema) { throw ValidationError("No schema file at \(schema).") }
        if let temperature, temperature < 0 { throw ValidationError("--temperature must not be negative.") }
        if greedy, temperature != nil { throw ValidationError("--greedy and --temperature exclude each other.") }
        if parallel < 1 || parallel > 64 { throw ValidationError("--parallel must be between 1 and 64.") }
        if let examples, !FileManager.default.fileExists(atPath: examples) { throw ValidationError("No examples file at \(examples).") }
        if shots < 0 || shots > 32 { throw ValidationError("--shots must be between 0 and 32.") }
    }

    /// The schema chosen by --preset or --schema, else `fallback`.
    func generationSchema(fallback: GenerationSchema = TaggingPreset.contentTagging.schema) throws -> GenerationSchema {
        if let preset, let value = TaggingPreset(rawValue: preset) { return value.schema }
        if let schema {
            do {
                let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: schema)), as: UTF8.self)
                let imported = try GenerationSchema.importing(jsonSchema: text)
                for warning in imported.warnings {
                    FileHandle.standardError.write(Data("warning: \(schema): \(warning)\n".utf8))
                }
                return imported.schema
            } catch {
                throw ValidationError("The schema file \(schema) cannot be used: \(error)")
            }
        }
        return fallback
    }

    var generationOptions: GenerationOptions {
        if let temperature, temperature > 0 {
            return GenerationOptions(samplingMode: .random(probabilityThreshold: 0.9, seed: seed), temperature: temperature)
        }
        return GenerationOptions(samplingMode: .greedy)
    }

    /// The few-shot example index from --examples: each line's `result` object, or its gold labels written
    /// in `schema`.
    func exampleIndex(schema: GenerationSchema) throws -> ExampleIndex? {
        guard let examples else { return nil }
        let data = Array(try Data(contentsOf: URL(fileURLWithPath: examples)))
        var pool: [ExampleIndex.Example] = []
        let labelled = Dictionary(LabelledExample.parse(input: data).map { ($0.record.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (number, line) in data.split(separator: 0x0A).enumerated() {
            let record = TaggingRecord.parse(line: line, lineNumber: number + 1)
            guard case .success(let text) = record.text else { continue }
            if let content = try? GeneratedContent(json: String(decoding: line, as: UTF8.self)),
               case .structure(let properties, _) = content.kind, let result = properties["result"] {
                pool.append(.init(id: record.id, text: text, result: result))
            } else if let gold = labelled[record.id]?.gold, let result = EvaluationTask.result(for: gold, in: schema) {
                pool.append(.init(id: record.id, text: text, result: result))
            }
        }
        guard !pool.isEmpty else { throw ValidationError("\(examples) has no examples that fit the schema.") }
        return ExampleIndex(examples: pool, shots: shots)
    }

    func cache() -> ResultCache? {
        if noCache { return nil }
        do { return try ResultCache(url: ResultCache.defaultURL) } catch {
            FileHandle.standardError.write(Data("warning: the result cache is unavailable (\(error)); continuing without it\n".utf8))
            return nil
        }
    }
}
