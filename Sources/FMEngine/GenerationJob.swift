package import FMDecoding
package import FMLlama

/// Everything one model turn needs, independent of the public API types.
package struct GenerationJob: Sendable {
    /// The conversation rendered as chat messages, ending with the user's turn.
    package var messages: [ChatMessage]
    /// How tokens are chosen.
    package var sampling: SamplingParameters
    /// The most tokens the response may have.
    package var maximumTokens: Int?
    /// The grammar the response must follow, or `nil` for free text.
    package var constraint: TokenConstraint?
    /// Where greedy decoding scores whole candidate values instead of first tokens.
    package var choicePoints: ChoicePoints?
    /// What the last user message carries after the prompt's own text (a description of the response schema
    /// outside content tagging), so calibration texts are read under the same request (``calibrationMessages(for:turns:)``).
    package var promptSuffix = ""
    /// What the last user message carries before the prompt's own text (content tagging's schema description
    /// when it is placed before the text), read before calibration texts too.
    package var promptPrefix = ""
    /// Text to evaluate as the prompt instead of rendering ``messages`` (no assistant prefix is added).
    package var promptText: String?
    /// Evaluates the prompt into the KV cache and stops without generating (prewarming).
    package var prefillOnly = false
    /// The priors that whole-value choice scores are calibrated by.
    var calibration: ChoiceCalibration?
    /// Records every choice's scores instead (a calibration run).
    var recorder: CalibrationRecorder?
    /// The answers of a caller's most similar labelled examples, mixed into whole-value choices.
    package var votes: ChoiceVotes?
    /// Records the margin of every greedy decision in the outcome (for measuring near-ties).
    package var recordsMargins = false
    /// The quality switches the job runs under: those of the task that created it.
    package var levers = QualityLevers.current
    /// Strings that end a free-text response where one first appears, left out of it. A constrained response
    /// ignores them, since cutting it would break its value: callers refuse them there.
    package var stopSequences = StopSequences([])
    /// For a free-text response: record each sampled token's log-probability with this many likeliest alternatives
    /// (0 to ``TokenLogprob/maximumTopCount``) in ``GenerationOutcome/logprobs``; `nil` records nothing.
    package var logprobAlternatives: Int?

    /// Creates a job.
    package init(messages: [ChatMessage], sampling: SamplingParameters, maximumTokens: Int?, constraint: TokenConstraint?, choicePoints: ChoicePoints? = nil) {
        self.messages = messages
        self.sampling = sampling
        self.maximumTokens = maximumTokens
        self.constraint = constraint
        self.choicePoints = choicePoints
    }

    /// The messages a calibration run reads for `text`: the job's instructions (its leading system messages), the
    /// turns given, then `text` as the user's message between the job's ``promptPrefix`` and ``promptSuffix`` —
    /// the request a job for that text would make, so the prior it yields is the one that job's answers carry.
    package func calibrationMessages(for text: String, turns: [ChatMessage] = []) -> [ChatMessage] {
        instructions + turns + [ChatMessage(role: "user", content: promptPrefix + text + promptSuffix)]
    }

    /// The job's leading system messages.
    package var instructions: [ChatMessage] {
        Array(messages.dropLast().prefix { $0.role == "system" })
    }

    /// A job that only evaluates `text` into the KV cache, so a later request that starts the same way
    /// finds it there.
    package static func prefill(_ text: String) -> GenerationJob {
        var job = GenerationJob(messages: [], sampling: .greedy, maximumTokens: nil, constraint: nil)
        job.promptText = text
        job.prefillOnly = true
        return job
    }
}

/// Why generation stopped.
package enum GenerationStop: Sendable, Equatable {
    /// The model ended its turn (or the constrained value is complete).
    case finished
    /// `maximumResponseTokens` was reached.
    case maximumTokens
}

/// The result of one model turn.
package struct GenerationOutcome: Sendable {
    /// The response bytes (UTF-8; for constrained output, the JSON text).
    package var bytes: [UInt8]
    /// Why generation stopped.
    package var stop: GenerationStop
    /// Tokens in the rendered prompt.
    package var promptTokens: Int
    /// Prompt tokens found in the KV cache and not evaluated again.
    package var reusedTokens: Int
    /// Tokens the model sampled.
    package var sampledTokens: Int
    /// Tokens appended because the grammar allowed nothing else.
    package var forcedTokens: Int
    /// Of the sampled tokens, those proposed from the prompt and verified together (prompt-lookup drafting).
    package var draftedTokens = 0
    /// Evaluations after which only the tokens the grammar allowed got logits (``QualityLevers/restrictsLogits``).
    package var restrictedSteps = 0
    /// Seconds until the prompt was evaluated.
    package var prefillSeconds: Double = 0
    /// Seconds spent generating after that.
    package var decodeSeconds: Double = 0
    /// With ``GenerationJob/recordsMargins``: each greedy decision's lead over the runner-up (in logits, or in
    /// score for a whole-value choice), with the response's length in bytes before it.
    package var margins: [(bytes: Int, margin: Double)] = []
    /// With ``GenerationJob/logprobAlternatives``: each token of the response, in order, with its log-probability.
    package var logprobs: [TokenLogprob] = []

    /// The response as text. A response cut by the token limit inside a character ends without that part of a
    /// character, rather than with a U+FFFD the model never wrote.
    package var text: String { Self.text(of: bytes) }

    /// `bytes` as text, without an unfinished UTF-8 sequence at the end (other invalid bytes decode with
    /// replacement), as the stream sends it.
    package static func text(of bytes: [UInt8]) -> String {
        String(decoding: bytes[..<UTF8Accumulator.completePrefixLength(bytes)], as: UTF8.self)
    }
}

/// A failure inside the generation loop, mapped to `GenerationError` by the session.
package enum GenerationFailure: Error, Sendable {
    /// The rendered conversation (instructions, tools, response format, earlier turns and the prompt) needs
    /// `tokenCount` tokens, which leaves no room in the context window for a response.
    case promptOverflow(tokenCount: Int)
    case contextOverflow(String)
    /// Guided output ended before its value closed; `atContextEnd` when the context window ran out.
    case truncated(String, atContextEnd: Bool = false)
    case runtime(String)
    case cancelled

    /// Whether generation ran into the end of the context window, with or without a grammar.
    package var isAtContextEnd: Bool {
        switch self {
        case .contextOverflow: true
        case .truncated(_, let atContextEnd): atContextEnd
        case .promptOverflow, .runtime, .cancelled: false
        }
    }

    /// Whether the same job could succeed if run again: it was cancelled, or the runtime failed (a context that
    /// could not be made, a decode that failed), which depends on memory and on what else was running. A prompt
    /// or response that does not fit the window, or a value the model left unfinished, fails the same way again.
    package var isTransient: Bool {
        switch self {
        case .runtime, .cancelled: true
        case .promptOverflow, .contextOverflow, .truncated: false
        }
    }
}
