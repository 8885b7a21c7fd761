import FMLlama
import Foundation
import FoundationModels

/// `fm-bench runtime`: prefill and decode throughput through `LanguageModelSession`, next to the same
/// work done by the plainest loop over llama.cpp's C API, in the same run. Reports the ratios.
enum RuntimeBenchmarks {
    static let passage = """
        The river town woke slowly. Fishermen mended nets on the quay while the baker's first loaves \
        cooled on racks by the open window, and children raced along the cobbles towards the school \
        bell. Up the hill, the old observatory caught the early light, its copper dome turning from \
        grey to gold as the fog lifted off the water.
        """

    static func run(repetitions: Int = 3) async throws {
        let model = SystemLanguageModel.default
        guard model.isReady else {
            throw BenchmarkFailure("The default model is not installed; run `fm model install default`.")
        }
        let llama = try LlamaModel(path: model.modelURL.path)
        let prompt = "Summarize this passage in detail.\n\n" + String(repeating: passage + "\n", count: 4)

        var sessionPrefill: [Double] = [], rawPrefill: [Double] = []
        var sessionDecode: [Double] = [], rawDecode: [Double] = []
        for repetition in 0..<repetitions {
            // A fresh first line each time, so no run finds the prompt in the KV cache.
            let text = "Request \(repetition + 1). " + prompt
            let session = LanguageModelSession(model: model)
            let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 96)
            _ = try await session.respond(to: text, options: options)
            guard let statistics = session.lastStatistics else { throw BenchmarkFailure("no statistics recorded") }
            let prefilled = statistics.promptTokens - statistics.reusedTokens
            sessionPrefill.append(Double(prefilled) / statistics.prefillSeconds)
            sessionDecode.append(Double(statistics.sampledTokens) / statistics.decodeSeconds)

            // The same tokens through the raw loop.
            let rendered = llama.renderChat([ChatMessage(role: "user", content: text)], addAssistantPrefix: true)
            let tokens = try llama.tokenize(rendered, addSpecial: llama.addsBeginningOfSequence)
            let raw = try RawDecodeLoop.run(model: llama, prompt: tokens, decodeCount: statistics.sampledTokens,
                                            contextLength: model.contextSize)
            rawPrefill.append(Double(tokens.count) / raw.prefillSeconds)
            rawDecode.append(Double(raw.decodedTokens) / raw.decodeSeconds)
            print("  run \(repetition + 1): prompt \(tokens.count) tokens (session prefilled \(prefilled)), decoded \(statistics.sampledTokens)")
        }

        let rows = [
            ("prefill tokens/s", median(sessionPrefill), median(rawPrefill)),
            ("decode tokens/s", median(sessionDecode), median(rawDecode)),
        ]

        print("")
        print("runtime throughput (median of \(repetitions), release build, default model)")
        print(pad("metric", 20) + pad("session", 12) + pad("raw C loop", 12) + "session / raw")
        for (name, session, raw) in rows {
            print(pad(name, 20) + pad(String(format: "%.1f", session), 12) + pad(String(format: "%.1f", raw), 12)
                  + String(format: "%.3f", session / raw))
        }
        print("")
        try await structuredVersusUnconstrained(llama: llama, model: model, repetitions: repetitions)
    }
}

extension RuntimeBenchmarks {
    /// A structured (guided) response against generating the same JSON text without constraints: the
    /// same prompt tokens, then one forward pass per token of the JSON, as a plain loop would need.
    static func structuredVersusUnconstrained(llama: LlamaModel, model: SystemLanguageModel, repetitions: Int) async throws {
        let texts = [
            "Today we had a lovely picnic with friends at the beach.",
            "Grocery list: 1. Bread flour 2. Salt 3. Instant yeast",
            "The train was late again and I missed my meeting.",
        ]
        var structured: [Double] = [], unconstrained: [Double] = [], forcedShare: [Double] = []
        for (index, text) in texts.prefix(max(1, repetitions)).enumerated() {
            let request = "Request \(index + 1). Tag this text: \(text)"
            // The tagging use case, so the lists have content (the general model tends to leave them empty).
            let session = LanguageModelSession(model: SystemLanguageModel(useCase: .contentTagging))
            let response = try await session.respond(to: request, schema: TaggingSchema.schema,
                                                     options: GenerationOptions(samplingMode: .greedy))
            guard let statistics = session.lastStatistics else { continue }
            let jsonTokens = try llama.tokenize(response.rawContent.compactJSONString, addSpecial: false, parseSpecial: false)
            let rendered = llama.renderChat([ChatMessage(role: "user", content: request)], addAssistantPrefix: true)
            let prompt = try llama.tokenize(rendered, addSpecial: llama.addsBeginningOfSequence)
            let raw = try RawDecodeLoop.run(model: llama, prompt: prompt, decodeCount: jsonTokens.count, contextLength: model.contextSize)
            structured.append(statistics.decodeSeconds)
            unconstrained.append(raw.decodeSeconds)
            let total = statistics.sampledTokens + statistics.forcedTokens
            forcedShare.append(total > 0 ? Double(statistics.forcedTokens) / Double(total) : 0)
            print("  \(response.rawContent.compactJSONString)  (\(statistics.sampledTokens) sampled + \(statistics.forcedTokens) forced; unconstrained: \(jsonTokens.count) tokens)")
        }
        print("")
        print("structured response vs unconstrained generation of the same JSON (median, seconds after the prompt)")
        print(pad("structured", 14) + pad("unconstrained", 16) + pad("forced share", 14) + "structured / unconstrained")
        print(pad(String(format: "%.3f", median(structured)), 14) + pad(String(format: "%.3f", median(unconstrained)), 16)
              + pad(String(format: "%.0f%%", 100 * median(forcedShare)), 14) + String(format: "%.3f", median(structured) / median(unconstrained)))
    }
}

/// The seed's content-tagging schema, built at run time.
enum TaggingSchema {
    static let schema: GenerationSchema = {
        func list(_ name: String, _ description: String, _ maximum: Int) -> DynamicGenerationSchema.Property {
            .init(name: name, description: description,
                  schema: DynamicGenerationSchema(arrayOf: .init(type: String.self), maximumElements: maximum))
        }
        let root = DynamicGenerationSchema(name: "ContentTaggingResult", properties: [
            list("actions", "Actions, activities, or behaviors in the input text.", 2),
            list("emotions", "Feelings or emotional states expressed in the input text.", 3),
            list("objects", "Physical things, items, or concrete objects in the input text.", 5),
            list("topics", "Most important topics in the input text.", 2),
        ])
        return try! GenerationSchema(root: root, dependencies: [])
    }()
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
