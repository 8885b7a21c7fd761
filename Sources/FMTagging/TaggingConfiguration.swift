import FMDecoding
package import FMEngine
public import FoundationModels

/// Everything that determines a tagging result apart from the text: the model, the schema, the instructions,
/// the few-shot examples and the generation options.
public struct TaggingConfiguration: Sendable {
    /// The model (normally with the `.contentTagging` use case).
    public var model: SystemLanguageModel
    /// The schema each result follows.
    public var schema: GenerationSchema
    /// Session instructions, if any.
    public var instructions: String?
    /// What the answers of the schema's small choice fields mean, given after ``instructions``; written by the
    /// model from a sample of the job's texts by ``describingLabels(cache:)``, or `nil` for none.
    public var labelGlossary: String?
    /// Example texts with their results, given to the model as earlier chat turns.
    public var examples: [(text: String, result: GeneratedContent)]
    /// Generation options (greedy by default).
    public var options: GenerationOptions
    /// Labelled examples from which each text gets its most similar ones as earlier turns, if any, and whose
    /// most similar ones vote on its choice fields when the index has ``ExampleIndex/votes``.
    public var exampleIndex: ExampleIndex?
    /// Unlabelled texts of the kind being tagged — typically a sample of the job's own inputs — by whose mean
    /// preferences enumeration and Bool choices are calibrated (batch calibration). With fewer than 8 texts,
    /// choices are calibrated as in a single request, by ordinary texts of many kinds. ``sample(of:)`` picks a spread of a job's texts.
    public var calibrationTexts: [String]
    /// The quality switches every request runs under (all on by default; `fm` takes them from `FM_DISABLE`
    /// and `FM_CHOICE_SCORE`). Part of ``fingerprint``, so an ablation never reads cached results of a normal run.
    package var levers: QualityLevers
    /// OpenAI-compatible servers that generate instead of ``model``'s in-process engine, in turn; `nil` runs
    /// locally. Their endpoints and model name replace the model file in cache keys.
    public var remoteEngines: RemoteEngines?

    /// Creates a configuration.
    public init(
        model: SystemLanguageModel,
        schema: GenerationSchema,
        instructions: String? = nil,
        examples: [(text: String, result: GeneratedContent)] = [],
        options: GenerationOptions = GenerationOptions(samplingMode: .greedy),
        exampleIndex: ExampleIndex? = nil,
        calibrationTexts: [String] = []
    ) {
        self.model = model
        self.schema = schema
        self.instructions = instructions
        self.examples = examples
        self.options = options
        self.exampleIndex = exampleIndex
        self.calibrationTexts = calibrationTexts
        levers = QualityLevers.current
    }

    /// Up to 24 of `texts`, evenly spread, for ``calibrationTexts``: each costs one more generation per job.
    public static func sample(of texts: [String]) -> [String] {
        CalibrationSample.sample(of: texts)
    }

    /// A spread of `texts` for ``calibrationTexts`` under `schema`: up to 24, or up to 48 when a field has more
    /// than 16 values, since a prior over many labels needs more texts to be seen drawing each of them. On the
    /// development data, 48 texts instead of 24 raised clinc150 (150 intents) from 58.0 to 60.0 % on `medium`.
    public static func sample(of texts: [String], for schema: GenerationSchema) -> [String] {
        CalibrationSample.sample(of: texts, choices: largestChoiceSet(schema.root, definitions: schema.definitions))
    }

    /// The positions, among `count` texts, of those ``sample(of:for:)`` takes, in order: for a job that reads its
    /// input twice (counting its texts, then taking these) rather than holding all of it.
    public static func samplePositions(count: Int, for schema: GenerationSchema) -> [Int] {
        CalibrationSample.spreadPositions(among: count, count: CalibrationSample.maximumCount(
            choices: largestChoiceSet(schema.root, definitions: schema.definitions)))
    }

    /// The most tokens a response may have: `options.maximumResponseTokens` when set, else a budget derived
    /// from the schema (`SchemaDocument.responseTokenBudget`), so a model that keeps adding
    /// array elements ends with an error line instead of filling the context window.
    public var responseTokenBudget: Int? {
        options.maximumResponseTokens ?? (try? schema.decodingDocument())?.responseTokenBudget
    }

    /// The options each request runs with: ``options`` with ``responseTokenBudget``.
    public var effectiveOptions: GenerationOptions {
        var effective = options
        effective.maximumResponseTokens = responseTokenBudget
        return effective
    }

    /// The instructions every request starts from: ``instructions``, then ``labelGlossary``.
    public var sessionInstructions: String? {
        let parts = [instructions, labelGlossary].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: "\n\n")
    }

    /// Whether results are deterministic (greedy), and therefore cacheable: greedy sampling, a temperature of 0
    /// (or below), or no sampling options at all on the in-process engine with the content-tagging use case,
    /// whose default is greedy. The general use case samples by default, and a server's default is its own.
    public var isDeterministic: Bool {
        if options.samplingMode == .greedy { return true }
        if let temperature = options.temperature { return temperature <= 0 }
        return options.samplingMode == nil && remoteEngines == nil && model.useCase == .contentTagging
    }

    /// Why this configuration cannot be run, or `nil`: example votes (``ExampleIndex/votes``) join the in-process
    /// engine's greedy choice among whole values, so a job that asks for them and would sample, or would run on
    /// ``remoteEngines``, is refused rather than run without them.
    public var unsupportedVotes: TaggingFailure? {
        guard let index = exampleIndex, index.votes > 0 else { return nil }
        if remoteEngines != nil {
            return TaggingFailure(code: TaggingFailure.unsupportedConfiguration, message:
                "Example votes join the in-process engine's choices; the remote engines decide their answers themselves. "
                + "Set the example index's votes to 0, or run locally.")
        }
        if !isDeterministic {
            return TaggingFailure(code: TaggingFailure.unsupportedConfiguration, message:
                "Example votes join greedy choices among whole values; these options sample. "
                + "Use greedy sampling, or set the example index's votes to 0.")
        }
        return nil
    }

    /// The version of the library's own prompting (built-in instructions and examples, decoding rules).
    /// Results cached under an older version are not reused: the library would answer differently now.
    public static let promptingVersion = 7

    /// A stable text describing every part but the model file, for cache keys.
    public var fingerprint: String {
        var parts = [
            "prompting=\(Self.promptingVersion)",
            // The quality switches change results, so ablations never read normal runs.
            "levers=" + levers.fingerprint,
            "schema=" + schema.jsonSchemaString, "instructions=" + (instructions ?? ""),
        ]
        if let labelGlossary { parts.append("glossary=" + labelGlossary) }
        if let guardrails = Self.guardrailsKey(model.guardrails) { parts.append(guardrails) }
        // `fm tag` and `fm eval` use `.contentTagging`, whose results keep the keys they had before the use
        // case was part of them; the general use case prompts differently.
        if model.useCase != .contentTagging { parts.append("useCase=general") }
        if let adapter = model.adapter { parts.append("adapter=" + ModelIdentity.of(adapter.fileURL)) }
        for example in examples { parts.append("example=" + example.text + "\u{1F}" + example.result.compactJSONString) }
        if let exampleIndex {
            parts.append("shots=\(exampleIndex.shots)")
            // Results of jobs without votes keep their keys.
            if exampleIndex.votes > 0 { parts.append("votes=\(exampleIndex.votes)") }
            for example in exampleIndex.examples {
                parts.append("pool=" + example.id + "\u{1F}" + example.text + "\u{1F}" + example.result.compactJSONString)
            }
        }
        let calibrating = effectiveCalibrationTexts
        if !calibrating.isEmpty { parts.append("calibration=" + calibrating.joined(separator: "\u{1F}")) }
        parts.append("options=\(options.samplingMode.map { "\($0)" } ?? "default")|\(options.temperature.map { "\($0)" } ?? "-")|\(options.maximumResponseTokens.map { "\($0)" } ?? "-")")
        return parts.joined(separator: "\u{1E}")
    }

    /// The part of a cache key that says which safety checks made a result, or `nil` for the built-in ones.
    ///
    /// A result made without safety checks is never served to a job that has them (the other way round is
    /// harmless: the checks only block, they never change an answer), and checked jobs keep their keys.
    package static func guardrailsKey(_ guardrails: SystemLanguageModel.Guardrails) -> String? {
        if guardrails.checkers.isEmpty { return "guardrails=off" }
        // Other checks may let through what the built-in ones block.
        if !usesBuiltInChecks(guardrails) {
            return "guardrails=" + guardrails.checkers.map { String(reflecting: $0) }.joined(separator: "\u{1F}")
        }
        return nil
    }

    /// Whether `guardrails` are exactly the built-in deny list.
    private static func usesBuiltInChecks(_ guardrails: SystemLanguageModel.Guardrails) -> Bool {
        guard guardrails.checkers.count == 1, let checker = guardrails.checkers.first as? DenyListChecker else { return false }
        return checker.terms == DenyListChecker.builtIn.terms
    }

    /// Whether ``calibrationTexts`` can change results: batch calibration is on and the schema has fixed answers
    /// to calibrate, or a label glossary would be written from them (``describingLabels(cache:status:)``). A job
    /// that must draw them from its whole input reads the input first; one that need not can tag its texts as
    /// they arrive.
    public var usesCalibrationTexts: Bool { calibratesChoices || writesLabelGlossary }

    /// Whether batch calibration is on and the schema has fixed answers for it to calibrate.
    private var calibratesChoices: Bool {
        levers.calibratesByBatch && Self.hasChoices(schema.root, definitions: schema.definitions)
    }

    /// Whether ``describingLabels(cache:status:)`` would write a glossary, given enough calibration texts.
    var writesLabelGlossary: Bool {
        levers.describesLabels && remoteEngines == nil && !LabelGlossary.choiceFields(in: schema, sortingChoices: levers.sortsChoices).isEmpty
    }

    /// The calibration texts that change results: none when there are too few, when batch calibration is
    /// switched off, or when the schema has no fixed answers to calibrate — so such jobs share cached results
    /// whatever their other texts.
    var effectiveCalibrationTexts: [String] {
        guard calibrationTexts.count >= CalibrationSample.minimumCount, calibratesChoices else { return [] }
        return calibrationTexts
    }

    /// Whether a schema has enumeration, choice or Bool values anywhere (where choices are calibrated).
    private static func hasChoices(_ root: GenerationSchema.Node, definitions: [GenerationSchema.Definition]) -> Bool {
        largestChoiceSet(root, definitions: definitions) > 0
    }

    /// The number of values of the schema's largest enumeration, choice or Bool field; 0 when it has none.
    static func largestChoiceSet(_ root: GenerationSchema.Node, definitions: [GenerationSchema.Definition]) -> Int {
        var visited: Set<String> = []
        func walk(_ node: GenerationSchema.Node) -> Int {
            switch node {
            case .enumeration(let enumeration): return enumeration.choices.count
            case .boolean: return 2
            case .string(let guides): return guides.choices?.count ?? 0
            case .array(let array): return walk(array.items)
            case .object(let object): return object.properties.map { walk($0.node) }.max() ?? 0
            case .anyOf(let union): return union.choices.map(walk).max() ?? 0
            case .reference(let name):
                guard visited.insert(name).inserted, let target = definitions.first(where: { $0.name == name }) else { return 0 }
                return walk(target.node)
            default: return 0
            }
        }
        return walk(root)
    }
}
