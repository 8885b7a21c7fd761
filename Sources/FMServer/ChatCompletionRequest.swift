import FMEngine
import FMTagging
import HTTPTypes
import Foundation
import FoundationModels

/// A `POST /v1/chat/completions` body, checked and translated into the request an executor runs.
///
/// Fields that would change the answer and that the server cannot honour (`n` above 8, penalties, `logit_bias`,
/// llama-server's other samplers, image parts, `stop` or `logprobs` beside a schema or tools) are refused with a
/// 400 naming them, never ignored.
struct ChatCompletionRequest: Sendable {
    /// The model name the client asked for; `nil` (llama-server's habit) means the served model.
    var model: String?
    /// The conversation, tools, schema and options for the executor.
    var generation: LanguageModelExecutorGenerationRequest
    /// Whether to answer with server-sent events.
    var stream: Bool
    /// Whether a streamed answer ends with a usage chunk (`stream_options.include_usage`).
    var includeUsage: Bool
    /// The response's token limit (the request's, or the server's cap).
    var maximumTokens: Int
    /// How many answers to generate (`n`), decoded together.
    var choiceCount: Int
    /// The most answers one request may ask for.
    static let maximumChoiceCount = 8
    /// How many answers are decoded: one for greedy answers, which would all be the same but for how llama.cpp's
    /// arithmetic rounds when sequences share a batch (each answer is then that one, so they are equal), and
    /// ``choiceCount`` otherwise.
    var decodedChoiceCount: Int { sampling.isGreedy ? 1 : choiceCount }
    /// How tokens are sampled, kept to give each answer its own seed.
    private var sampling: Sampling

    /// Parses and checks `body`.
    ///
    /// - Parameters:
    ///   - maximumTokensCap: The most tokens a response may have on this server.
    /// - Throws: ``APIError`` (400) naming the field at fault.
    init(body: JSONField, maximumTokensCap: Int) throws(APIError) {
        // A misspelt field (`max_token`) or one of another server's (`guided_json`, `repetition_penalty`) would
        // otherwise be ignored and the answer would not be the one asked for; OpenAI refuses them the same way.
        if let unknown = body.keys.first(where: { !Self.knownFields.contains($0) }) {
            throw APIError.invalid(unknown, "Unrecognized request argument supplied: \(unknown). This server does not support it; leave it out.")
        }
        model = try body["model"]?.string()
        stream = try body["stream"]?.bool() ?? false
        includeUsage = try body["stream_options"]?.object()["include_usage"]?.bool() ?? false
        // OpenAI's other stream option changes what the stream carries: not silently left out.
        if let unknown = body["stream_options"]?.keys.first(where: { !["include_usage", "include_obfuscation"].contains($0) }) {
            throw APIError.invalid("stream_options.\(unknown)", "Unrecognized stream option '\(unknown)'; this server supports 'include_usage'.")
        }
        // Obfuscation pads stream chunks against length side channels; false, which this server always is, is fine.
        if try body["stream_options"]?.object()["include_obfuscation"]?.bool() == true {
            throw APIError.invalid("stream_options.include_obfuscation", "'include_obfuscation' is not supported; leave it out or send false.")
        }
        if let options = body["stream_options"], !options.isNull, !stream {
            throw APIError.invalid("stream_options", "'stream_options' is only allowed when 'stream' is true.")
        }
        try Self.checkIgnoredFields(in: body)
        choiceCount = try body["n"]?.integer() ?? 1
        guard (1...Self.maximumChoiceCount).contains(choiceCount) else {
            throw APIError.invalid("n", "'n' must lie between 1 and \(Self.maximumChoiceCount).")
        }
        let stopSequences = try Self.stopSequences(in: body)
        let logprobAlternatives = try Self.logprobAlternatives(in: body)
        for penalty in ["frequency_penalty", "presence_penalty"] {
            if let value = try body[penalty]?.number(), value != 0 {
                throw APIError.invalid(penalty, "'\(penalty)' is not supported; leave it out or send 0.")
            }
        }
        if let bias = body["logit_bias"], case .structure(let biases, _) = try bias.object().value.kind, !biases.isEmpty {
            throw APIError.invalid("logit_bias", "'logit_bias' is not supported; leave it out or send {}.")
        }
        // llama-server's own sampling fields, which its clients send: refused unless they leave sampling as it is.
        for (field, neutral) in Self.neutralSamplerValues {
            if let value = try body[field]?.number(), value != neutral {
                throw APIError.invalid(field, "'\(field)' is not supported; leave it out or send \(neutral.formatted()).")
            }
        }
        if let value = try body["n_predict"]?.integer(), value != -1 {
            throw APIError.invalid("n_predict", "'n_predict' is llama-server's; send 'max_tokens' instead.")
        }
        if try body["ignore_eos"]?.bool() == true {
            throw APIError.invalid("ignore_eos", "'ignore_eos' is not supported; leave it out or send false.")
        }
        // Fields that change what is generated, from llama-server's API or OpenAI's older one: ignoring them would
        // answer another question than the one asked.
        for (field, instead) in Self.unsupportedFields where body[field].map({ !$0.isNull }) ?? false {
            throw APIError.invalid(field, "'\(field)' is not supported; \(instead).")
        }

        // Both are read: the one not used would otherwise go unchecked.
        let completionTokens = try body["max_completion_tokens"]?.integer()
        let legacyTokens = try body["max_tokens"]?.integer()
        if let completionTokens, let legacyTokens, completionTokens != legacyTokens {
            throw APIError.invalid("max_tokens", "'max_tokens' (\(legacyTokens)) and 'max_completion_tokens' (\(completionTokens)) differ; send one of them.")
        }
        let requested = completionTokens ?? legacyTokens
        if let requested {
            let field = body["max_completion_tokens"] != nil ? "max_completion_tokens" : "max_tokens"
            guard requested > 0 else { throw APIError.invalid(field, "'\(field)' must be positive.") }
            guard requested <= maximumTokensCap else {
                throw APIError.invalid(field, "'\(field)' is \(requested); this server allows at most \(maximumTokensCap).")
            }
        }
        maximumTokens = requested ?? maximumTokensCap

        let tools = try Self.tools(in: body)
        let (mode, enabledTools) = try Self.toolChoice(in: body, tools: tools)
        let transcript = try ChatMessages.transcript(from: body.required("messages"), tools: tools)
        let schema = try Self.responseSchema(in: body)
        if !stopSequences.isEmpty && (schema != nil || !tools.isEmpty) {
            throw APIError.invalid("stop", "'stop' ends text answers only; with 'response_format' or 'tools' it would cut the JSON value.")
        }
        if logprobAlternatives != nil && (schema != nil || !tools.isEmpty) {
            throw APIError.invalid("logprobs", "'logprobs' are returned for text answers only; with 'response_format' or 'tools' the grammar forces part of the tokens.")
        }
        sampling = try Sampling(in: body)
        var options = GenerationOptions(samplingMode: sampling.mode(choice: 0), temperature: sampling.temperature, maximumResponseTokens: maximumTokens)
        options.toolCallingMode = tools.isEmpty ? nil : mode
        generation = LanguageModelExecutorGenerationRequest(
            id: UUID(), transcript: transcript, enabledTools: enabledTools, schema: schema,
            generationOptions: options, contextOptions: ContextOptions(), metadata: [:])
        generation.stopSequences = stopSequences
        generation.logprobAlternatives = logprobAlternatives
        if let parallel = body["parallel_tool_calls"], !parallel.isNull, tools.isEmpty {
            // As OpenAI answers: the setting would otherwise be accepted and have nothing to act on.
            throw APIError.invalid("parallel_tool_calls", "'parallel_tool_calls' is only allowed when 'tools' are specified.")
        }
        generation.allowsParallelToolCalls = try body["parallel_tool_calls"]?.bool() ?? true
    }

    /// The fields accepted and ignored must still be of their kind: a wrong one is a client's mistake, which OpenAI
    /// refuses too. `null` stands for a field left out.
    private static func checkIgnoredFields(in body: JSONField) throws(APIError) {
        for field in ["user", "safety_identifier", "prompt_cache_key", "service_tier"] {
            if let value = body[field], !value.isNull { _ = try value.string() }
        }
        if let tier = try body["service_tier"]?.string(), !serviceTiers.contains(tier) {
            throw APIError.invalid("service_tier", "'service_tier' must be one of \(serviceTiers.joined(separator: ", ")), not '\(tier)'.")
        }
        for field in ["store", "cache_prompt"] {
            if let value = body[field], !value.isNull { _ = try value.bool() }
        }
        if let value = body["id_slot"], !value.isNull { _ = try value.integer() }
        if let metadata = body["metadata"], !metadata.isNull {
            let object = try metadata.object()
            for key in object.keys { _ = try object.required(key).string() }
        }
        // Text is the only output; asking for audio as well would go unanswered.
        if let modalities = body["modalities"], !modalities.isNull {
            let kinds = try modalities.array().map { element throws(APIError) in try element.string() }
            guard kinds == ["text"] else {
                throw APIError.invalid("modalities", "This server answers with text only; leave 'modalities' out or send [\"text\"].")
            }
        }
    }

    /// OpenAI's processing tiers: accepted and ignored (one local model has one tier), but named correctly.
    static let serviceTiers = ["auto", "default", "flex", "scale", "priority"]

    /// Every top-level field this server reads or refuses by name, and the fields that do not change an answer,
    /// which it accepts and ignores: OpenAI's `user`, `safety_identifier`, `prompt_cache_key`, `metadata`, `store` and
    /// `service_tier`, llama-server's `cache_prompt` and `id_slot`, and the settings of llama-server's samplers that
    /// only act when the sampler is on (`mirostat_tau` with `mirostat`, `dry_base` with `dry_multiplier`,
    /// `repeat_last_n` with the penalties …), since turning one on is refused.
    static let knownFields: Set<String> = Set([
        "model", "messages", "stream", "stream_options", "n", "stop", "logprobs", "top_logprobs", "max_tokens",
        "max_completion_tokens", "tools", "tool_choice", "parallel_tool_calls", "response_format", "temperature",
        "top_p", "top_k", "seed", "frequency_penalty", "presence_penalty", "logit_bias", "n_predict", "ignore_eos",
        "user", "metadata", "store", "service_tier", "cache_prompt", "id_slot", "modalities",
        "mirostat_tau", "mirostat_eta", "dry_base", "dry_allowed_length", "dry_penalty_last_n", "dry_sequence_breakers",
        "xtc_threshold", "dynatemp_exponent", "repeat_last_n", "prompt_cache_key", "safety_identifier",
    ]).union(neutralSamplerValues.map(\.0)).union(unsupportedFields.map(\.0))

    /// llama-server's sampling fields that this server does not implement, each with the value that leaves
    /// sampling unchanged.
    private static let neutralSamplerValues: [(String, Double)] = [
        ("min_p", 0), ("typical_p", 1), ("repeat_penalty", 1), ("mirostat", 0), ("dry_multiplier", 0),
        ("xtc_probability", 0), ("top_n_sigma", -1), ("dynatemp_range", 0),
    ]

    /// Fields that shape the answer and that this server does not implement, each with what to send instead.
    private static let unsupportedFields: [(String, String)] = [
        ("grammar", "send 'response_format' with a JSON schema"),
        ("json_schema", "send it as 'response_format': {\"type\": \"json_schema\", \"json_schema\": {\"schema\": …}}"),
        ("samplers", "this server's sampling is set by 'temperature', 'top_p' and 'top_k'"),
        ("functions", "send 'tools'"),
        ("function_call", "send 'tool_choice'"),
    ]

    /// The tokens the engine generated for answers that used `usages`: a greedy request's answers are one decode.
    func generatedTokens(of usages: [ChatUsage]) -> Int {
        decodedChoiceCount == 1 ? usages.first?.completion ?? 0 : usages.reduce(0) { $0 + $1.completion }
    }

    /// The request for answer `choice` (0 for the first): the same but for its identifier and, when the client
    /// gave a seed, the seed plus `choice`, so each answer is repeatable and differs from the others.
    func generation(choice: Int) -> LanguageModelExecutorGenerationRequest {
        guard choice > 0 else { return generation }
        var request = generation
        request.id = UUID()
        request.generationOptions.samplingMode = sampling.mode(choice: choice)
        return request
    }

    /// The most `stop` strings a request may give (OpenAI allows 4), and the longest one in UTF-8 bytes: every
    /// generated token is checked against each of them on the engine's loop, which all requests share.
    static let maximumStopSequences = 16
    static let maximumStopSequenceBytes = 1_024

    /// `stop`: one string or a list of them; empty strings stop nothing and are left out.
    private static func stopSequences(in body: JSONField) throws(APIError) -> [String] {
        guard let stop = body["stop"] else { return [] }
        var strings: [String] = []
        if case .string(let text) = stop.value.kind {
            if !text.isEmpty { strings.append(text) }
        } else {
            guard case .array = stop.value.kind else { throw stop.mismatch("a string or an array of strings") }
            for item in try stop.array() {
                let text = try item.string()
                if !text.isEmpty { strings.append(text) }
            }
            // Counted without the empty strings, which stop nothing and are dropped.
            guard strings.count <= maximumStopSequences else {
                throw APIError.invalid("stop", "At most \(maximumStopSequences) stop strings are allowed, not \(strings.count).")
            }
        }
        guard strings.allSatisfy({ $0.utf8.count <= maximumStopSequenceBytes }) else {
            throw APIError.invalid("stop", "A stop string may be at most \(maximumStopSequenceBytes) bytes long.")
        }
        return strings
    }

    /// `logprobs` and `top_logprobs`: the number of alternatives to list with each token, or `nil` when the client
    /// asked for no log-probabilities. As with OpenAI, `top_logprobs` needs `logprobs` and lies between 0 and 20.
    private static func logprobAlternatives(in body: JSONField) throws(APIError) -> Int? {
        let wanted = try body["logprobs"]?.bool() ?? false
        let top = try body["top_logprobs"]?.integer()
        if let top {
            guard wanted else { throw APIError.invalid("top_logprobs", "'top_logprobs' needs 'logprobs' set to true.") }
            guard (0...TokenLogprob.maximumTopCount).contains(top) else {
                throw APIError.invalid("top_logprobs", "'top_logprobs' must lie between 0 and \(TokenLogprob.maximumTopCount).")
            }
        }
        return wanted ? top ?? 0 : nil
    }

    // MARK: Tools

    /// The `function` tools, with their parameter schemas imported.
    private static func tools(in body: JSONField) throws(APIError) -> [Transcript.ToolDefinition] {
        guard let list = body["tools"] else { return [] }
        // As OpenAI answers: an empty list is a client's mistake (tools it meant to send); leave the field out instead.
        guard !(try list.array().isEmpty) else {
            throw APIError.invalid("tools", "'tools' is an empty array; send at least one tool, or leave 'tools' out.")
        }
        var definitions: [Transcript.ToolDefinition] = []
        for tool in try list.array() {
            let type = try tool.object().required("type").string()
            guard type == "function" else { throw APIError.invalid("\(tool.path).type", "Only 'function' tools are supported, not '\(type)'.") }
            try tool.checkMembers(allowed: ["type", "function"], in: "a tool definition")
            let function = try tool.required("function").object()
            try function.checkMembers(allowed: ["name", "description", "parameters", "strict"], in: "a tool's 'function'")
            let name = try function.required("name").string()
            guard Self.isOpenAIName(name) else {
                throw APIError.invalid("\(function.path).name", "A tool name must have 1 to 64 characters, each a letter, a digit, '_' or '-' (OpenAI's rule).")
            }
            if definitions.contains(where: { $0.name == name }) {
                throw APIError.invalid("\(function.path).name", "Two tools are named '\(name)'.")
            }
            let description = try function["description"]?.string() ?? ""
            // Every call's arguments are checked against the schema, as OpenAI's `strict: true` asks; the flag
            // changes nothing here, but one that is not a Boolean is a mistake in the request.
            _ = try function["strict"]?.bool()
            let parameters: GenerationSchema
            if let document = function["parameters"], case let imported = try document.importedSchema(), imported.root != .any {
                // A call's arguments are an object of named parameters; a client calls `fn(**json.loads(arguments))`.
                guard imported.resolvesToObject else {
                    throw APIError.invalid(document.path, "A tool's parameters must be a JSON Schema of type 'object'.")
                }
                parameters = imported
            } else {
                // No parameters, or `{}` (any value), as some clients send for a tool without arguments.
                parameters = try JSONField(value: .object([("type", .text("object")), ("properties", .object([]))]),
                                           path: "\(function.path).parameters").importedSchema()
            }
            definitions.append(Transcript.ToolDefinition(name: name, description: description, parameters: parameters))
        }
        return definitions
    }

    /// Whether `name` follows OpenAI's rule for tool and schema names, `[a-zA-Z0-9_-]{1,64}`, which models' call
    /// formats rely on.
    private static func isOpenAIName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F || byte == 0x2D
        }
    }

    /// `tool_choice`: `auto`, `none`, `required`, or one named function (which is then the only tool offered).
    private static func toolChoice(in body: JSONField, tools: [Transcript.ToolDefinition]) throws(APIError)
        -> (GenerationOptions.ToolCallingMode, [Transcript.ToolDefinition]) {
        guard let choice = body["tool_choice"], !choice.isNull else { return (.allowed, tools) }
        // As OpenAI answers: a choice among no tools is a mistake of the client's (tools it meant to send).
        guard !tools.isEmpty else {
            throw APIError.invalid("tool_choice", "'tool_choice' is only allowed when 'tools' are specified.")
        }
        if case .string(let text) = choice.value.kind {
            switch text {
            case "auto": return (.allowed, tools)
            case "none": return (.disallowed, tools)
            case "required": return (.required, tools)
            default: throw APIError.invalid("tool_choice", "'tool_choice' must be auto, none, required or a function, not '\(text)'.")
            }
        }
        if let type = try choice.object()["type"]?.string(), type != "function" {
            throw APIError.invalid("tool_choice.type", "'tool_choice.type' '\(type)' is not supported; name one function, or send auto, none or required.")
        }
        try choice.checkMembers(allowed: ["type", "function"], in: "'tool_choice'")
        let function = try choice.required("function").object()
        try function.checkMembers(allowed: ["name"], in: "'tool_choice.function'")
        let name = try function.required("name").string()
        guard let tool = tools.first(where: { $0.name == name }) else {
            throw APIError.invalid("tool_choice", "'tool_choice' names '\(name)', which is not in 'tools'.")
        }
        return (.required, [tool])
    }

    // MARK: Response format

    /// The schema of `response_format`, or `nil` for text.
    private static func responseSchema(in body: JSONField) throws(APIError) -> GenerationSchema? {
        guard let format = body["response_format"] else { return nil }
        let type = try format.object().required("type").string()
        // A schema beside another type would be dropped, and the answer would not follow it.
        if type != "json_schema", let stray = ["json_schema", "schema"].first(where: { format[$0] != nil }) {
            throw APIError.invalid("response_format.\(stray)", "A schema goes in 'response_format': {\"type\": \"json_schema\", \"json_schema\": {\"schema\": …}}; '\(type)' takes none.")
        }
        switch type {
        case "text":
            try format.checkMembers(allowed: ["type"], in: "'response_format' of type 'text'")
            return nil
        case "json_schema":
            try format.checkMembers(allowed: ["type", "json_schema"], in: "'response_format'")
            let wrapper = try format.required("json_schema").object()
            // A misspelt member (`strcit`) would be dropped without a word.
            try wrapper.checkMembers(allowed: ["name", "description", "schema", "strict"], in: "'response_format.json_schema'")
            // OpenAI requires the name; it is optional here, as for llama-server's clients, but one given follows
            // OpenAI's rule, so a request that works here works there.
            if let name = try wrapper["name"]?.string(), !Self.isOpenAIName(name) {
                throw APIError.invalid("response_format.json_schema.name", "A schema name must have 1 to 64 characters, each a letter, a digit, '_' or '-' (OpenAI's rule).")
            }
            _ = try wrapper["description"]?.string()
            // The answer always follows the schema, as `strict: true` asks; a flag that is not a Boolean is refused.
            _ = try wrapper["strict"]?.bool()
            return try wrapper.required("schema").importedSchema()
        case "json_object":
            try format.checkMembers(allowed: ["type"], in: "'response_format' of type 'json_object'")
            // llama-server's form puts a schema here (refused above): answering with any object would ignore it.
            return GenerationSchema(root: .object(.anyObject(name: "JSONObject")))
        default:
            throw APIError.invalid("response_format.type", "'response_format.type' must be text, json_object or json_schema, not '\(type)'.")
        }
    }

    // MARK: Sampling

    /// Temperature 0 or `top_p` 0 is greedy; `top_k` above 0 keeps the k likeliest tokens (llama-server's field);
    /// `top_p` below 1 is nucleus sampling; `seed` makes sampling repeatable without changing what is sampled from.
    private struct Sampling: Sendable {
        var temperature: Double?
        var topP: Double?
        var keptTokens: Int?
        var seed: Int?

        init(in body: JSONField) throws(APIError) {
            temperature = try body["temperature"]?.number()
            topP = try body["top_p"]?.number()
            let topK = try body["top_k"]?.integer()
            seed = try body["seed"]?.seed(written: body.source.flatMap { JSONLiteral.integer(ofKey: "seed", in: $0) })
            if let temperature, !(0...2).contains(temperature) { throw APIError.invalid("temperature", "'temperature' must lie between 0 and 2.") }
            if let topP, !(0...1).contains(topP) { throw APIError.invalid("top_p", "'top_p' must lie between 0 and 1.") }
            if let topK, topK < 0 { throw APIError.invalid("top_k", "'top_k' must be 0 (off) or positive.") }
            // llama-server's `top_k`: 0 means off. The sampler keeps either the k likeliest tokens or a nucleus, not both.
            keptTokens = topK.flatMap { $0 > 0 ? $0 : nil }
            if keptTokens != nil, let topP, topP < 1 {
                throw APIError.invalid("top_k", "'top_k' and 'top_p' below 1 cannot be combined; send one of them.")
            }
        }

        /// Whether every answer takes the likeliest token.
        var isGreedy: Bool { temperature == 0 || topP == 0 }

        /// The sampling mode of answer `choice`; `nil` leaves it to the model's default.
        func mode(choice: Int) -> GenerationOptions.SamplingMode? {
            let seed = self.seed.map { UInt64(bitPattern: Int64($0)) &+ UInt64(choice) }
            // A nucleus of no probability mass holds just the likeliest token.
            if isGreedy { return .greedy }
            if let keptTokens { return .random(top: keptTokens, seed: seed) }
            // A seed alone keeps the default nucleus, so adding one makes a run repeatable without changing it.
            if topP != nil || seed != nil { return .random(probabilityThreshold: topP ?? GenerationOptions.SamplingMode.defaultProbabilityThreshold, seed: seed) }
            return nil
        }
    }
}
