import ArgumentParser
import FMLlama
import Foundation
import FoundationModels

/// The model a command loads: `--model`, alone for `fm info`, which generates nothing.
struct ModelChoice: ParsableArguments {
    @Option(name: .long, help: "A catalogue model (tiny, small, medium, gemma; see `fm model list`) or a GGUF file (default: $FM_MODEL_PATH, else $FM_MODEL, else \(ModelCatalog.defaultName)).")
    var model: String?

    func validate() throws {
        // A thread count that is no number would otherwise be ignored without a word; more threads than cores
        // would make ggml's workers wait for one another, so the count stops at the cores.
        switch LlamaThreads.requested {
        case .invalid(let text)?:
            throw ValidationError("FM_THREADS: '\(text)' is not a positive whole number of threads.")
        case .count(let count)? where count > LlamaThreads.cores:
            Console.note("warning: FM_THREADS=\(count) is more than this machine's \(LlamaThreads.cores) cores; evaluating with \(LlamaThreads.cores)\n")
        default:
            break
        }
        // FM_MODEL and FM_MODEL_PATH are checked where a local model is needed (the unavailable model's message
        // names them): a job that reads predictions or asks servers never loads one.
        guard let model else { return }
        let url: URL
        do { url = try ModelCatalog.fileURL(for: model) } catch { throw ValidationError(error.message) }
        if ModelCatalog.entry(named: model) == nil, !FileManager.default.fileExists(atPath: url.path) {
            throw ValidationError("No model file at \(model).")
        }
    }

    /// The model file chosen by --model, or the default.
    var modelURL: URL {
        model.flatMap { try? ModelCatalog.fileURL(for: $0) } ?? SystemLanguageModel.defaultModelURL
    }
}

/// Options shared by every command that runs the model.
struct ModelOptions: ParsableArguments {
    @OptionGroup var choice: ModelChoice

    /// The `--model` value, if given.
    var model: String? { choice.model }

    @Option(name: .long, help: ArgumentHelp(
        "Safety checks on prompts and responses: default (the built-in deny list) or off.",
        discussion: "With default, a text the checks block is an error (guardrail-violation). off is for jobs whose texts "
            + "are the unsafe content itself, such as crisis detection or moderation."))
    var guardrails: GuardrailsChoice = .default

    /// The `--guardrails` settings.
    enum GuardrailsChoice: String, ExpressibleByArgument, CaseIterable {
        case `default`, off

        var guardrails: SystemLanguageModel.Guardrails {
            switch self {
            case .default: .default
            case .off: SystemLanguageModel.Guardrails(checkers: [])
            }
        }
    }

    /// The model chosen, with the `--guardrails` settings.
    func systemModel(useCase: SystemLanguageModel.UseCase = .general) -> SystemLanguageModel {
        SystemLanguageModel(modelURL: choice.modelURL, useCase: useCase, guardrails: guardrails.guardrails)
    }
}

/// Options that shape sampling.
struct SamplingOptions: ParsableArguments {
    @Flag(name: .long, help: "Always pick the most likely token (the same answer each run on an idle machine; FM_THREADS=N keeps it bit for bit under load).")
    var greedy = false

    @Option(name: .long, parsing: .unconditional, help: "Sampling temperature (0 = greedy; 1 = the model's distribution).")
    var temperature: Double?

    @Option(name: .long, parsing: .unconditional, help: "Seed for reproducible random sampling.")
    var seed: UInt64?

    @Option(name: [.customLong("max-tokens")], parsing: .unconditional, help: "The most tokens the response may have.")
    var maximumTokens: Int?

    func validate() throws {
        if let temperature, !temperature.isFinite { throw ValidationError("--temperature must be a finite number.") }
        if let temperature, temperature < 0 { throw ValidationError("--temperature must not be negative.") }
        if let maximumTokens, maximumTokens <= 0 { throw ValidationError("--max-tokens must be positive.") }
        if greedy, temperature != nil { throw ValidationError("--greedy and --temperature exclude each other.") }
        // Greedy decoding draws nothing at random, so a seed would be silently ignored.
        if seed != nil, greedy || temperature == 0 { throw ValidationError("--seed seeds random sampling; it has no effect with --greedy or --temperature 0.") }
    }

    var generationOptions: GenerationOptions {
        let nucleus = GenerationOptions.SamplingMode.defaultProbabilityThreshold
        let sampling: GenerationOptions.SamplingMode? =
            greedy ? .greedy : seed.map { .random(probabilityThreshold: nucleus, seed: $0) }
        return GenerationOptions(samplingMode: sampling, temperature: temperature, maximumResponseTokens: maximumTokens)
    }
}
