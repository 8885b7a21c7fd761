import FoundationModels

/// Runs the stability experiment: labelled inputs tagged `runs` times under each condition — the
/// `.contentTagging` and the `.general` use case, each decoded greedily and sampled — with nothing cached, so
/// every run really generates.
///
/// Everything else (model file, schema, instructions, examples) comes from a base configuration. Sampled runs
/// use nucleus sampling (threshold 0.9) at a low temperature; with a seed, run `r` uses `seed + r`, so the
/// experiment is reproducible while the runs still differ from one another.
public struct StabilityExperiment: Sendable {
    /// The configuration each condition varies.
    public var base: TaggingConfiguration
    /// How many times each condition tags every input.
    public var runs: Int
    /// The temperature of the sampled conditions.
    public var temperature: Double
    /// The first run's sampling seed, or `nil` for fresh randomness in every run.
    public var seed: UInt64?
    /// How many texts are decoded together.
    public var parallel: Int
    /// Whether calibration tables are read from and written to the disk store (``Tagger/storesCalibration``).
    public var storesCalibration = true

    /// The low temperature the conditions sample at unless told otherwise.
    public static let defaultTemperature = 0.3

    /// Creates an experiment.
    public init(base: TaggingConfiguration, runs: Int, temperature: Double = defaultTemperature, seed: UInt64? = nil, parallel: Int = 1) {
        self.base = base
        self.runs = runs
        self.temperature = temperature
        self.seed = seed
        self.parallel = parallel
    }

    /// The conditions compared: content tagging and general, each greedy and sampled.
    public var conditions: [StabilityReport.Condition] {
        ["contentTagging", "general"].flatMap { useCase in
            [StabilityReport.Condition(useCase: useCase, temperature: nil),
             StabilityReport.Condition(useCase: useCase, temperature: temperature)]
        }
    }

    /// The configuration of one run of a condition.
    public func configuration(for condition: StabilityReport.Condition, run: Int) -> TaggingConfiguration {
        var configuration = base
        configuration.model = SystemLanguageModel(
            modelURL: base.model.modelURL, useCase: condition.useCase == "general" ? .general : .contentTagging,
            guardrails: base.model.guardrails)
        if let temperature = condition.temperature {
            let runSeed = seed.map { $0 &+ UInt64(run) }
            let nucleus = GenerationOptions.SamplingMode.defaultProbabilityThreshold
            configuration.options = GenerationOptions(
                samplingMode: .random(probabilityThreshold: nucleus, seed: runSeed), temperature: temperature,
                maximumResponseTokens: base.options.maximumResponseTokens)
        } else {
            configuration.options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: base.options.maximumResponseTokens)
        }
        return configuration
    }

    /// Tags every example `runs` times per condition.
    ///
    /// - Parameters:
    ///   - progress: Called after each tagged text.
    ///   - calibrationProgress: Told how far a calibration of choices has got (``Tagger/calibrationProgress``).
    ///     A condition whose prompt differs from the earlier ones (the `.general` use case) needs a table of its
    ///     own, computed before its first text.
    public func run(_ examples: [LabelledExample], progress: () -> Void = {},
                    calibrationProgress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) async throws -> StabilityReport {
        var answers: [[[LabelledExample.Gold?]]] = []
        let scoring = ScoredFields(schema: base.schema)
        for condition in conditions {
            var runAnswers: [[LabelledExample.Gold?]] = []
            for run in 0..<runs {
                var tagger = Tagger(configuration: configuration(for: condition, run: run), calibrationProgress: calibrationProgress)
                tagger.storesCalibration = storesCalibration
                let runner = TaggingRunner(tagger: tagger, parallel: parallel)
                var predictions: [LabelledExample.Gold?] = []
                try await runner.run(examples.map(\.record)) { _, outcome in
                    let gold = examples[predictions.count].gold
                    switch outcome {
                    case .failure: predictions.append(nil)
                    case .success(let result): predictions.append(EvaluationTask.prediction(shapedLike: gold, in: result, scoring: scoring))
                    }
                    progress()
                }
                runAnswers.append(predictions)
            }
            answers.append(runAnswers)
        }
        return StabilityReport(examples: examples, conditions: conditions, answers: answers)
    }
}
