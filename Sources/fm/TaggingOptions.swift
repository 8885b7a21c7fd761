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

    func validate() throws {
        if preset != nil, schema != nil { throw ValidationError("--preset and --schema exclude each other.") }
        if let preset, TaggingPreset(rawValue: preset) == nil {
            throw ValidationError("Unknown preset \(preset); choose one of \(TaggingPreset.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if let schema, !FileManager.default.fileExists(atPath: schema) { throw ValidationError("No schema file at \(schema).") }
        if let temperature, temperature < 0 { throw ValidationError("--temperature must not be negative.") }
        if greedy, temperature != nil { throw ValidationError("--greedy and --temperature exclude each other.") }
        if parallel < 1 || parallel > 64 { throw ValidationError("--parallel must be between 1 and 64.") }
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
            return GenerationOptions(sampling: .random(probabilityThreshold: 0.9, seed: seed), temperature: temperature)
        }
        return GenerationOptions(sampling: .greedy)
    }

    func cache() -> ResultCache? {
        if noCache { return nil }
        do { return try ResultCache() } catch {
            FileHandle.standardError.write(Data("warning: the result cache is unavailable (\(error)); continuing without it\n".utf8))
            return nil
        }
    }
}
