import Foundation

/// The measures that raise answer quality, each switchable so `fm eval` can measure what it is worth:
/// `FM_DISABLE=holdback,examples,…` (any subset, comma separated) turns measures off, and
/// `FM_CHOICE_SCORE=first|mean|total` chooses how a fixed answer's likelihood is scored.
///
/// - `holdback`: forced text keeps its last token even when the model would merge it with what follows.
/// - `examples`: content tagging opens without its built-in example turns.
/// - `schema-placement`: content tagging describes the schema after the text, not in the system text.
///   `FM_SCHEMA_PLACEMENT=before` puts it in the user message before the text (``SchemaPlacement``).
/// - `choice-scoring`: greedy decoding picks enumeration and Bool values token by token.
/// - `task-prompts`: classification schemas get the tagger's preamble and the plain schema sketch.
/// - `sorted-choices`: the prompt (rubric, JSON sketch and label glossary request) lists a field's choices in the
///   schema's order instead of a canonical one.
/// - `calibration`: choices are not divided by their prior likelihood.
/// - `reference-calibration`: a request without a sample of its job's texts is calibrated by content-free inputs
///   ("N/A", "[MASK]", "...") instead of ordinary texts of many kinds (``CalibrationSample/reference``).
/// - `batch-calibration`: a batch job's choices are calibrated like a single request's instead of by a sample
///   of the job's own texts (``CalibrationSample``).
/// - `shortlist`: label sets above ``shortlistSize`` are decoded token by token instead of shortlisted by
///   their calibrated first-token likelihood and then scored.
/// - `label-glossary`: a tagging job's small choice fields go without the glossary the model writes for them
///   from a sample of the job's texts (`LabelGlossary` in FMTagging).
/// - `boolean-prior`: a Bool field divides out its whole prior, as enumerations do, instead of half of one read
///   from its job's texts and none of one read from other texts (``discountsBooleanPriors``).
///
/// Three settings take numbers: `FM_SHORTLIST=N` (``shortlistSize``), `FM_CALIBRATION_WEIGHT=w`
/// (``calibrationWeight``) and `FM_CALIBRATION_SAMPLE=N` (``CalibrationSample/maximumCount(choices:)``).
///
/// `FM_DISABLE=restricted-logits` is a switch of speed, not of answers: where the next token is sampled under a
/// grammar mask, the engine has llama.cpp stop before the output product and computes the logits of the allowed
/// tokens only (`OutputProjection` in FMLlama), which equal llama.cpp's own; off, every step computes the whole
/// vocabulary's.
///
/// `FM_ENABLE=prompt-lookup` turns on the one measure that is off by default: greedy decoding proposes tokens
/// copied from the prompt and verifies them in one evaluation (``SequenceDecoder/draft(from:maximum:choicePoints:)``),
/// computing only the allowed logits of each verified row. It pays where evaluating a few tokens costs about
/// what one does (more cores, a GPU); on two CPU cores each proposed token costs about 60 % of a step, so even
/// with three in four confirmed it is within a few percent of single steps (benchmarks/RESULTS.md). Results
/// differ only where batched arithmetic breaks a near-tie.
///
/// `FM_CHANNEL=only|combined` turns on channel scoring for choices of at most
/// ``Generator/channelCandidateLimit`` values: each value is also scored by how likely the text is after a request
/// for a text with that value (``Generator/channelScores(property:literals:text:context:spares:)``), calibrated like
/// the direct scores, and that score decides alone or is added to the direct one. It costs one evaluation of the
/// text per value and is off by default until it measures better across the dev files.
///
/// Everything else is on by default; these exist for measurement, not for tuning applications. The switches in
/// force are ``current``, a task-local: a request runs under the value of the task that makes it (a job
/// captures it when created, so the engine's thread sees the same), which lets one process compare settings
/// side by side. Outside any `withValue` scope it is ``environment``.
package struct QualityLevers: Sendable {
    /// How a candidate value's token log-probabilities combine into its score.
    package enum ChoiceScore: String, Sendable, CaseIterable {
        /// The first token's log-probability (ties broken by the total).
        case first
        /// The mean log-probability per token.
        case mean
        /// The sum: the log-probability of the whole value.
        case total
    }

    /// Where content tagging describes the response schema (`FM_SCHEMA_PLACEMENT=system|before|after`).
    package enum SchemaPlacement: String, Sendable, CaseIterable {
        /// In the system text: everything before the text is shared, and evaluated once, across a batch.
        case system
        /// In the user message, before the text: still shared across a batch, but in the turn the answer follows.
        case before
        /// In the user message after the text, as in the other use cases: evaluated again for every text.
        case after
    }

    /// How channel scores (``Generator/channelScores(property:literals:text:context:spares:)``) enter a choice.
    package enum ChannelMode: String, Sendable, CaseIterable {
        /// Not measured.
        case off
        /// They decide alone.
        case only
        /// They are added to the direct scores: a product of the two calibrated likelihood ratios.
        case combined
    }

    package var holdsBackBoundaryTokens = true
    package var usesTaggingExamples = true
    /// Where content tagging describes the response schema.
    package var taggingSchemaPlacement = SchemaPlacement.system
    /// Whether content tagging describes the response schema in the system text (`FM_DISABLE=schema-placement`
    /// moves it after the text).
    package var describesTaggingSchemaInSystemText: Bool {
        get { taggingSchemaPlacement == .system }
        set { taggingSchemaPlacement = newValue ? .system : .after }
    }
    package var scoresChoices = true
    package var taskAwarePrompts = true
    package var sortsChoices = true
    package var calibratesChoices = true
    package var calibratesByBatch = true
    /// Whether a request without a calibration sample takes its prior from ordinary texts of many kinds rather
    /// than from content-free inputs (`FM_DISABLE=reference-calibration`).
    package var calibratesByReference = true
    package var shortlistsLargeChoiceSets = true
    /// Whether a Bool field divides out only half of a prior read from its job's own texts, and none of a prior
    /// read from other texts (`FM_DISABLE=boolean-prior` divides out the whole prior, as for enumerations).
    ///
    /// A prior is the mean probability of each answer over some texts, so dividing all of it out treats both
    /// answers as equally common in those texts. An enumeration's labels usually are categories of a comparable
    /// share; a yes/no attribute (whether the customer tried before, whether a message is spam) is often true of
    /// a few texts only. Over a job's own texts the whole prior then turns many `false` answers into `true`; half
    /// of it still removes most of the model's own lean towards one answer. Ordinary texts (the prior of a single
    /// request) almost never have the attribute, so their prior measures its rarity rather than the model's lean,
    /// and dividing it out calls most texts `true` (benchmarks/quality.md, "Bool fields and the prior").
    package var discountsBooleanPriors = true
    /// Whether a tagging job first has the model say what each answer of a small choice field means, read from a
    /// sample of the job's texts, and gives that glossary with the instructions (`FM_DISABLE=label-glossary`).
    package var describesLabels = true
    package var draftsFromPrompt = false
    /// Whether sampled steps under a grammar compute the allowed tokens' logits only (`FM_DISABLE=restricted-logits`).
    package var restrictsLogits = true
    /// Whether small choices are also scored by the channel, `log p(text | value)` (`FM_CHANNEL=only|combined`).
    package var channel = ChannelMode.off
    package var choiceScore = ChoiceScore.total
    /// The most candidates a large label set keeps for whole-value scoring (`FM_SHORTLIST=N`); sets of at
    /// most this many are scored whole.
    package var shortlistSize = 16
    /// How much of the calibration prior is divided out (`FM_CALIBRATION_WEIGHT=w`): 1 divides the whole prior,
    /// 0 none of it.
    package var calibrationWeight = 1.0

    /// The switches as text, for the keys of cached results: a result computed under other switches is
    /// another result.
    package var fingerprint: String {
        let switches: [(String, Bool)] = [
            ("holdback", holdsBackBoundaryTokens), ("examples", usesTaggingExamples),
            ("schema-placement", describesTaggingSchemaInSystemText), ("choice-scoring", scoresChoices),
            ("task-prompts", taskAwarePrompts), ("sorted-choices", sortsChoices), ("calibration", calibratesChoices),
            ("batch-calibration", calibratesByBatch), ("reference-calibration", calibratesByReference),
            ("shortlist", shortlistsLargeChoiceSets), ("label-glossary", describesLabels),
            ("boolean-prior", discountsBooleanPriors),
        ]
        let disabled = switches.filter { !$0.1 }.map(\.0)
        let defaults = QualityLevers()
        return "disabled=" + disabled.joined(separator: ",") + ";score=" + choiceScore.rawValue + (draftsFromPrompt ? ";drafts" : "")
            + (shortlistSize == defaults.shortlistSize ? "" : ";shortlist=\(shortlistSize)")
            + (calibrationWeight == defaults.calibrationWeight ? "" : ";calibration-weight=\(calibrationWeight)")
            + (channel == defaults.channel ? "" : ";channel=\(channel.rawValue)")
            + (taggingSchemaPlacement == .before ? ";schema=before" : "")
    }

    /// The switches that change what a calibration run records: the channel's sites, the forced tokens around a
    /// choice, which candidates a large set scores. The others choose the calibration texts or how a prior is
    /// applied, so tables computed under them are the same and are shared.
    package var recordingFingerprint: String {
        "channel=\(channel.rawValue);holdback=\(holdsBackBoundaryTokens);shortlist=\(shortlistsLargeChoiceSets ? shortlistSize : 0)"
    }

    /// The switches requests run under: ``environment`` unless a task sets others with `$current.withValue`.
    @TaskLocal package static var current: QualityLevers = environment

    /// Everything on, the default choice score.
    package init() {}

    /// The switches of this process's environment, from `FM_DISABLE` and `FM_CHOICE_SCORE`: a command-line
    /// convenience for ablations.
    package static let environment: QualityLevers = {
        let environment = ProcessInfo.processInfo.environment
        let disabled = Set((environment["FM_DISABLE"] ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        })
        var levers = QualityLevers()
        levers.holdsBackBoundaryTokens = !disabled.contains("holdback")
        levers.usesTaggingExamples = !disabled.contains("examples")
        levers.describesTaggingSchemaInSystemText = !disabled.contains("schema-placement")
        levers.scoresChoices = !disabled.contains("choice-scoring")
        levers.taskAwarePrompts = !disabled.contains("task-prompts")
        levers.sortsChoices = !disabled.contains("sorted-choices")
        levers.calibratesChoices = !disabled.contains("calibration")
        levers.calibratesByBatch = !disabled.contains("batch-calibration")
        levers.calibratesByReference = !disabled.contains("reference-calibration")
        levers.shortlistsLargeChoiceSets = !disabled.contains("shortlist")
        levers.describesLabels = !disabled.contains("label-glossary")
        levers.discountsBooleanPriors = !disabled.contains("boolean-prior")
        levers.restrictsLogits = !disabled.contains("restricted-logits")
        levers.draftsFromPrompt = (environment["FM_ENABLE"] ?? "").split(separator: ",").contains {
            $0.trimmingCharacters(in: .whitespaces) == "prompt-lookup"
        }
        if let channel = environment["FM_CHANNEL"].flatMap(ChannelMode.init(rawValue:)) { levers.channel = channel }
        if let placement = environment["FM_SCHEMA_PLACEMENT"].flatMap(SchemaPlacement.init(rawValue:)) {
            levers.taggingSchemaPlacement = placement
        }
        if let score = environment["FM_CHOICE_SCORE"].flatMap(ChoiceScore.init(rawValue:)) { levers.choiceScore = score }
        if let weight = environment["FM_CALIBRATION_WEIGHT"].flatMap(Double.init), weight >= 0, weight.isFinite { levers.calibrationWeight = weight }
        if let size = environment["FM_SHORTLIST"].flatMap(Int.init), size >= 2 { levers.shortlistSize = size }
        return levers
    }()

    /// The names `FM_DISABLE` switches off.
    package static let disableNames = [
        "holdback", "examples", "schema-placement", "choice-scoring", "task-prompts", "sorted-choices", "calibration",
        "batch-calibration", "reference-calibration", "shortlist", "label-glossary", "boolean-prior", "restricted-logits",
    ]

    /// What ``environment`` could not read in `environment`: a misspelt name in `FM_DISABLE` or `FM_ENABLE`, or a
    /// value of `FM_CHANNEL`, `FM_SCHEMA_PLACEMENT`, `FM_CHOICE_SCORE`, `FM_CALIBRATION_WEIGHT`, `FM_SHORTLIST` or
    /// `FM_CALIBRATION_SAMPLE` it does not take, an `FM_CALIBRATION_CACHE` that names a file, or a value of
    /// `FM_LOG_CHOICES`, `FM_LOG_THREADS` or `FM_LOG_PROMPTS` other than 1 or 0. Each
    /// would otherwise run as if the switch had not been given, or (a sample below the fewest texts) with another
    /// value than the one given, so `fm` refuses to run with one.
    package static func environmentMistakes(in environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var mistakes: [String] = []
        func names(_ variable: String) -> [String] {
            (environment[variable] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        for name in names("FM_DISABLE") where !disableNames.contains(name) {
            mistakes.append("FM_DISABLE names '\(name)', which is not a switch (\(disableNames.joined(separator: ", "))).")
        }
        for name in names("FM_ENABLE") where name != "prompt-lookup" {
            mistakes.append("FM_ENABLE names '\(name)', which is not a switch (prompt-lookup).")
        }
        let choices: [(String, [String])] = [("FM_CHANNEL", ChannelMode.allCases.map(\.rawValue)),
                                             ("FM_SCHEMA_PLACEMENT", SchemaPlacement.allCases.map(\.rawValue)),
                                             ("FM_CHOICE_SCORE", ChoiceScore.allCases.map(\.rawValue))]
        for (variable, values) in choices {
            if let value = environment[variable], !value.isEmpty, !values.contains(value) {
                mistakes.append("\(variable)=\(value) is not one of \(values.joined(separator: ", ")).")
            }
        }
        if let value = environment["FM_CALIBRATION_WEIGHT"], !value.isEmpty, (Double(value).map { $0 >= 0 && $0.isFinite } ?? false) == false {
            mistakes.append("FM_CALIBRATION_WEIGHT=\(value) is not a finite number of at least 0.")
        }
        if let value = environment["FM_SHORTLIST"], !value.isEmpty, (Int(value).map { $0 >= 2 } ?? false) == false {
            mistakes.append("FM_SHORTLIST=\(value) is not a whole number of at least 2.")
        }
        if let value = environment["FM_CALIBRATION_SAMPLE"], !value.isEmpty {
            let fewest = CalibrationSample.minimumCount
            switch Int(value) {
            case nil: mistakes.append("FM_CALIBRATION_SAMPLE=\(value) is not a whole number.")
            case let count? where count < fewest:
                mistakes.append("FM_CALIBRATION_SAMPLE=\(value) is below \(fewest), the fewest texts a prior is estimated from.")
            default: break
            }
        }
        // A file where the calibration tables' directory belongs would fail every store without a word.
        if let value = environment["FM_CALIBRATION_CACHE"], !value.isEmpty, value != "off" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: value, isDirectory: &isDirectory), !isDirectory.boolValue {
                mistakes.append("FM_CALIBRATION_CACHE=\(value) is a file, not a directory (or `off`).")
            }
        }
        // Logging switches take 1 (on) or 0 (off); `true` or `yes` would otherwise log nothing without a word.
        for variable in ["FM_LOG_CHOICES", "FM_LOG_THREADS", "FM_LOG_PROMPTS"] {
            if let value = environment[variable], !value.isEmpty, value != "1", value != "0" {
                mistakes.append("\(variable)=\(value) is not 1 (on) or 0 (off).")
            }
        }
        return mistakes
    }
}
