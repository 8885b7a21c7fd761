import FMEngine
import Foundation
import FoundationModels
import Testing

/// `fm serve` over HTTP with the real tiny model: chat completions (JSON and streamed), schemas, tools, batch
/// tagging, metrics, and a 4xx JSON answer for every kind of bad request.
@Suite("fm serve", .serialized, .timeLimit(.minutes(10)))
struct ServeTests {
    static let weatherTool = #"{"type":"function","function":{"name":"get_weather","description":"Get the current weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}"#

    @Test func chatCompletionAnswersInOpenAIsShapeAndTheStreamCarriesTheSameText() async throws {
        try await FMServe.with { server in
            let body = #"{"model":"default","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Name three fruits."}],"temperature":0,"max_tokens":24}"#
            let reply = try await server.request("v1/chat/completions", body: body)
            #expect(reply.status == 200, "\(reply.text)")
            let json = try reply.json
            #expect(json["object"] as? String == "chat.completion")
            let choice = try #require((json["choices"] as? [[String: Any]])?.first)
            let message = try #require(choice["message"] as? [String: Any])
            #expect(message["role"] as? String == "assistant")
            let text = try #require(message["content"] as? String)
            #expect(!text.isEmpty)
            #expect(["stop", "length"].contains(choice["finish_reason"] as? String ?? ""))
            let usage = try #require(json["usage"] as? [String: Any])
            let completionTokens = try #require(usage["completion_tokens"] as? Int)
            #expect(completionTokens > 0 && completionTokens <= 24)
            #expect(usage["total_tokens"] as? Int == (usage["prompt_tokens"] as? Int ?? 0) + completionTokens)

            let streamed = try await server.request("v1/chat/completions",
                body: body.replacingOccurrences(of: #""max_tokens":24"#, with: #""max_tokens":24,"stream":true,"stream_options":{"include_usage":true}"#))
            #expect(streamed.status == 200)
            #expect(streamed.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            let events = streamed.events
            #expect(events.last == "[DONE]")
            var pieces = ""
            var reasons: [String] = []
            var streamedUsage: [String: Any]?
            for event in events.dropLast() {
                let chunk = try #require(try JSONSerialization.jsonObject(with: Data(event.utf8)) as? [String: Any])
                #expect(chunk["object"] as? String == "chat.completion.chunk")
                if let usage = chunk["usage"] as? [String: Any] { streamedUsage = usage }
                for choice in chunk["choices"] as? [[String: Any]] ?? [] {
                    pieces += (choice["delta"] as? [String: Any])?["content"] as? String ?? ""
                    if let reason = choice["finish_reason"] as? String { reasons.append(reason) }
                }
            }
            // Greedy decoding: the stream is the same answer, cut into pieces.
            #expect(pieces == text)
            #expect(reasons == [choice["finish_reason"] as? String ?? ""])
            #expect(streamedUsage?["completion_tokens"] as? Int == completionTokens)
        }
    }

    /// A stop string that spans several tokens ends the greedy answer where it first appears, without it; the stream
    /// never shows the string's beginning while it waits to see whether the string completes.
    @Test func stopStringsEndTheAnswerWhereTheyFirstAppearStreamedOrNot() async throws {
        try await FMServe.with { server in
            let body = #"{"model":"default","messages":[{"role":"user","content":"Describe a sunny day at the beach."}],"temperature":0,"max_tokens":40"#
            let full = try await server.request("v1/chat/completions", body: body + "}")
            let text = try #require(((try full.json["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String)
            let fullTokens = try #require((try full.json["usage"] as? [String: Any])?["completion_tokens"] as? Int)
            let characters = Array(text)
            try #require(characters.count >= 24, "\(text)")
            let stop = String(characters[(characters.count / 2)..<(characters.count / 2 + 10)])
            let expected = String(text[..<(try #require(text.range(of: stop))).lowerBound])
            let stopField = #","stop":[\#(Self.quoted(stop)),"never appears \u00e9"]"#

            let reply = try await server.request("v1/chat/completions", body: body + stopField + "}")
            #expect(reply.status == 200, "\(reply.text)")
            let choice = try #require((try reply.json["choices"] as? [[String: Any]])?.first)
            #expect((choice["message"] as? [String: Any])?["content"] as? String == expected, "stop \(stop) in \(text)")
            #expect(choice["finish_reason"] as? String == "stop")
            let tokens = try #require((try reply.json["usage"] as? [String: Any])?["completion_tokens"] as? Int)
            #expect(tokens < fullTokens)

            // A stop string met on the last token max_tokens allows ends the answer as a stop, not as the limit.
            func limitedBody(_ limit: Int) -> String {
                body.replacingOccurrences(of: #""max_tokens":40"#, with: #""max_tokens":\#(limit)"#) + stopField + "}"
            }
            let limited = try await server.request("v1/chat/completions", body: limitedBody(tokens))
            let limitedChoice = try #require((try limited.json["choices"] as? [[String: Any]])?.first, "\(limited.text)")
            #expect((limitedChoice["message"] as? [String: Any])?["content"] as? String == expected)
            #expect((try limited.json["usage"] as? [String: Any])?["completion_tokens"] as? Int == tokens)
            #expect(limitedChoice["finish_reason"] as? String == "stop")
            let cut = try await server.request("v1/chat/completions", body: limitedBody(tokens - 1))
            #expect((try cut.json["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String == "length", "\(cut.text)")

            let streamed = try await server.request("v1/chat/completions", body: body + stopField + #","stream":true}"#)
            var pieces = ""
            for event in streamed.events.dropLast() {
                let chunk = try #require(try JSONSerialization.jsonObject(with: Data(event.utf8)) as? [String: Any])
                for choice in chunk["choices"] as? [[String: Any]] ?? [] {
                    pieces += (choice["delta"] as? [String: Any])?["content"] as? String ?? ""
                }
            }
            #expect(pieces == expected)
        }
    }

    /// `logprobs` list every token of a text answer with its log-probability under the model and the likeliest
    /// alternatives, as OpenAI does; under greedy decoding each token is its step's likeliest. With a stop string
    /// they end where the answer does, and a stream carries the same list.
    @Test func logprobsDescribeEveryTokenOfATextAnswerStreamedOrNot() async throws {
        try await FMServe.with { server in
            let body = #"{"messages":[{"role":"user","content":"Describe a sunny day at the beach."}],"temperature":0,"max_tokens":24,"logprobs":true,"top_logprobs":3"#
            func answer(_ reply: FMServe.Reply) throws -> (text: String, entries: [[String: Any]]) {
                #expect(reply.status == 200, "\(reply.text)")
                let choice = try #require((try reply.json["choices"] as? [[String: Any]])?.first)
                return (try #require((choice["message"] as? [String: Any])?["content"] as? String),
                        try #require((choice["logprobs"] as? [String: Any])?["content"] as? [[String: Any]]))
            }
            func bytes(_ entries: [[String: Any]]) -> [UInt8] { entries.flatMap { ($0["bytes"] as? [Int] ?? []).map(UInt8.init) } }

            let reply = try await server.request("v1/chat/completions", body: body + "}")
            let (text, entries) = try answer(reply)
            #expect(entries.count == (try reply.json["usage"] as? [String: Any])?["completion_tokens"] as? Int)
            #expect(bytes(entries) == Array(text.utf8), "the tokens spell the answer")
            for entry in entries {
                let logprob = try #require(entry["logprob"] as? Double)
                let top = try #require(entry["top_logprobs"] as? [[String: Any]])
                let topLogprobs = top.compactMap { $0["logprob"] as? Double }
                #expect(top.count == 3 && topLogprobs.count == 3)
                #expect(logprob <= 0 && topLogprobs == topLogprobs.sorted(by: >))
                #expect(topLogprobs.reduce(0) { $0 + exp($1) } <= 1 + 1e-6, "probabilities of distinct tokens sum to at most 1")
                #expect(top.first?["bytes"] as? [Int] == entry["bytes"] as? [Int] && topLogprobs.first == logprob, "greedy takes the likeliest")
            }

            let characters = Array(text)
            try #require(characters.count >= 24, "\(text)")
            let stop = String(characters[(characters.count / 2)..<(characters.count / 2 + 8)])
            let stopped = try answer(try await server.request("v1/chat/completions", body: body + #","stop":\#(Self.quoted(stop))}"#))
            #expect(stopped.entries.count < entries.count)
            #expect(bytes(stopped.entries).starts(with: Array(stopped.text.utf8)), "the tokens spell the shorter answer")
            let lastStart = bytes(Array(stopped.entries.dropLast())).count
            #expect(lastStart < stopped.text.utf8.count, "no token begins inside the stop string")

            let streamed = try await server.request("v1/chat/completions", body: body + #","stream":true}"#)
            var streamedEntries: [[String: Any]] = []
            for event in streamed.events.dropLast() {
                let chunk = try #require(try JSONSerialization.jsonObject(with: Data(event.utf8)) as? [String: Any])
                for choice in chunk["choices"] as? [[String: Any]] ?? [] {
                    streamedEntries += (choice["logprobs"] as? [String: Any])?["content"] as? [[String: Any]] ?? []
                }
            }
            #expect(bytes(streamedEntries) == bytes(entries))
            #expect(streamedEntries.compactMap { $0["logprob"] as? Double } == entries.compactMap { $0["logprob"] as? Double })
        }
    }

    /// A follow-up request that sends the earlier tool call and its output back without `tools` gets a text
    /// answer, not a copy of the call: OpenAI allows leaving the tools out once the model has what it needs.
    @Test func aFollowUpWithoutToolsAnswersInTextRatherThanRepeatingTheCall() async throws {
        try await FMServe.with { server in
            let history = #"[{"role":"user","content":"What is the weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"Sunny, 21 C"}]"#
            let reply = try await server.request("v1/chat/completions", body: #"{"messages":\#(history),"temperature":0,"max_tokens":40}"#)
            #expect(reply.status == 200, "\(reply.text)")
            let content = try #require(((try reply.json["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String)
            #expect(!content.contains("tool_calls") && !content.hasPrefix("{"), "\(content)")
        }
    }

    /// `max_tokens` bounds the tokens an answer reports, whatever the grammar forces: with tools and `tool_choice`
    /// `none` the text is written inside a hidden wrapper whose closing is forced, and that closing must not
    /// take the answer past the limit.
    @Test func maxTokensBoundsTheAnswerWhenTheGrammarForcesItsEnd() async throws {
        try await FMServe.with { server in
            for limit in 1...12 {
                let body = #"{"messages":[{"role":"user","content":"Say hi."}],"temperature":0,"max_tokens":\#(limit),"tool_choice":"none","tools":[\#(Self.weatherTool)]}"#
                let reply = try await server.request("v1/chat/completions", body: body)
                #expect(reply.status == 200, "max_tokens \(limit): \(reply.text)")
                let json = try reply.json
                let used = try #require((json["usage"] as? [String: Any])?["completion_tokens"] as? Int, "\(reply.text)")
                let reason = try #require((json["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String)
                #expect(used <= limit, "max_tokens \(limit): \(used) tokens, finish reason \(reason)")
                #expect(["stop", "length"].contains(reason))
            }
            // A call the turn must make, cut off by the limit, is a clear 400, never an empty answer without it.
            let named = #"{"type":"function","function":{"name":"get_weather"}}"#
            for (choice, limit) in [(#""required""#, 3), (#""required""#, 12), (named, 8)] {
                let body = #"{"messages":[{"role":"user","content":"What is the weather in Paris?"}],"temperature":0,"max_tokens":\#(limit),"tool_choice":\#(choice),"tools":[\#(Self.weatherTool)]}"#
                let reply = try await server.request("v1/chat/completions", body: body)
                #expect(reply.status == 400 && (try? reply.error["code"] as? String) == "max_tokens_reached", "\(choice), max_tokens \(limit): \(reply.text)")
            }
        }
    }

    /// A conversation of system messages only, or one that ends with a system message, is answered, as OpenAI
    /// answers it: the model speaks next in both.
    @Test func aConversationEndingWithASystemMessageIsAnswered() async throws {
        try await FMServe.with { server in
            for messages in [
                #"[{"role":"system","content":"Greet the user in one short sentence."}]"#,
                #"[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello."},{"role":"developer","content":"Now say goodbye."}]"#,
            ] {
                let reply = try await server.request("v1/chat/completions", body: #"{"messages":\#(messages),"temperature":0,"max_tokens":16}"#)
                #expect(reply.status == 200, "\(messages): \(reply.text)")
                let choice = try #require((try reply.json["choices"] as? [[String: Any]])?.first, "\(reply.text)")
                let content = try #require((choice["message"] as? [String: Any])?["content"] as? String, "\(reply.text)")
                #expect(!content.isEmpty, "\(messages): \(reply.text)")
            }
        }
    }

    /// `top_k` (llama-server's field) and `parallel_tool_calls` change the answer, so they are honoured: sampling
    /// from the one likeliest token is greedy decoding, and with parallel calls off a turn makes one call.
    @Test func topKAndParallelToolCallsAreHonoured() async throws {
        try await FMServe.with { server in
            func content(_ sampling: String) async throws -> String {
                let body = #"{"messages":[{"role":"user","content":"Name three fruits."}],"max_tokens":16,\#(sampling)}"#
                let reply = try await server.request("v1/chat/completions", body: body)
                #expect(reply.status == 200, "\(reply.text)")
                return try #require(((try reply.json["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String)
            }
            let greedy = try await content(#""temperature":0"#)
            let sampled = try await content(#""temperature":1,"seed":3"#)
            try #require(sampled != greedy, "this seed's sample must differ from greedy decoding for the check below to mean anything")
            #expect(try await content(#""temperature":1,"seed":3,"top_k":1"#) == greedy)
            #expect(try await content(#""temperature":1,"seed":3,"top_k":0"#) == sampled)
            // llama-server's seed -1 is a fresh seed each time, not one fixed value.
            var unseeded: Set<String> = []
            for _ in 0..<3 { unseeded.insert(try await content(#""temperature":1,"seed":-1"#)) }
            #expect(unseeded.count > 1, "\(unseeded)")
            // Fields sent with the values that leave sampling as it is are accepted.
            #expect(try await content(#""temperature":0,"logit_bias":{},"min_p":0,"repeat_penalty":1,"frequency_penalty":0"#) == greedy)

            func calls(_ prompt: String, parallel: Bool) async throws -> [[String: Any]] {
                let body = #"{"messages":[{"role":"user","content":"\#(prompt)"}],"temperature":0,"tool_choice":"required","parallel_tool_calls":\#(parallel),"tools":[\#(Self.weatherTool)]}"#
                let reply = try await server.request("v1/chat/completions", body: body)
                #expect(reply.status == 200, "\(reply.text)")
                return try #require(((try reply.json["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["tool_calls"] as? [[String: Any]])
            }
            // Whether the model starts a second call is its own choice; without parallel calls it cannot, whatever
            // the prompt. At least one prompt must draw several calls for that to mean anything.
            var several = false
            for prompt in ["Compare the weather in London and Tokyo.", "What is the weather in Paris, Rome and Madrid?",
                           "Get the weather for Oslo. Then get the weather for Cairo."] {
                if try await calls(prompt, parallel: true).count >= 2 { several = true }
                #expect(try await calls(prompt, parallel: false).count == 1)
            }
            #expect(several, "no prompt drew more than one call with parallel_tool_calls on")
        }
    }

    /// `n` answers, decoded together, each with its index and finish reason; with a seed, answer i samples from
    /// seed + i, so the answers differ. The usage counts the prompt once and every answer's tokens.
    @Test func severalAnswersComeBackWithTheirIndicesStreamedOrNot() async throws {
        try await FMServe.with { server in
            let one = #"{"messages":[{"role":"user","content":"Name three fruits."}],"max_tokens":16,"temperature":1,"seed":3}"#
            let single = try await server.request("v1/chat/completions", body: one)
            let singleUsage = try #require(try single.json["usage"] as? [String: Any])

            let body = one.replacingOccurrences(of: #""seed":3"#, with: #""seed":3,"n":3"#)
            let reply = try await server.request("v1/chat/completions", body: body)
            #expect(reply.status == 200, "\(reply.text)")
            let choices = try #require(try reply.json["choices"] as? [[String: Any]])
            #expect(choices.map { $0["index"] as? Int } == [0, 1, 2])
            let texts = choices.map { ($0["message"] as? [String: Any])?["content"] as? String ?? "" }
            #expect(texts.allSatisfy { !$0.isEmpty })
            #expect(Set(texts).count > 1, "three seeds gave one answer: \(texts)")
            #expect(choices.allSatisfy { ["stop", "length"].contains($0["finish_reason"] as? String ?? "") })
            let usage = try #require(try reply.json["usage"] as? [String: Any])
            #expect(usage["prompt_tokens"] as? Int == singleUsage["prompt_tokens"] as? Int)
            #expect((usage["completion_tokens"] as? Int ?? 0) >= 3)
            #expect((usage["completion_tokens"] as? Int ?? 0) <= 3 * 16)

            let streamed = try await server.request("v1/chat/completions", body: body.replacingOccurrences(of: #""n":3"#, with: #""n":2,"stream":true"#))
            #expect(streamed.status == 200)
            let (pieces, reasons) = try Self.answers(in: streamed, count: 2)
            #expect(pieces.allSatisfy { !$0.isEmpty })
            #expect(reasons[0]?.count == 1 && reasons[1]?.count == 1)
        }
    }

    /// The text of each of a stream's `count` answers, and the finish reasons each was given, from its chunks.
    private static func answers(in stream: FMServe.Reply, count: Int) throws -> (texts: [String], reasons: [Int: [String]]) {
        var texts = Array(repeating: "", count: count)
        var reasons: [Int: [String]] = [:]
        for event in stream.events.dropLast() {
            let chunk = try #require(try JSONSerialization.jsonObject(with: Data(event.utf8)) as? [String: Any])
            for choice in chunk["choices"] as? [[String: Any]] ?? [] {
                let index = try #require(choice["index"] as? Int)
                try #require((0..<count).contains(index))
                texts[index] += (choice["delta"] as? [String: Any])?["content"] as? String ?? ""
                if let reason = choice["finish_reason"] as? String { reasons[index, default: []].append(reason) }
            }
        }
        return (texts, reasons)
    }

    /// Greedy answers of one request are decoded once: they are equal, streamed or not (in a shared batch
    /// llama.cpp's rounding could tip a near-tie between them), the usage counts each answer's tokens, as
    /// OpenAI bills them, and the metrics count the tokens generated.
    @Test func greedyAnswersOfOneRequestAreOneDecode() async throws {
        try await FMServe.with { server in
            let body = #"{"messages":[{"role":"user","content":"Name a famous painter."},{"role":"assistant","content":"Rembrandt."},{"role":"user","content":"Describe a mountain."}],"max_tokens":24,"temperature":0,"n":3}"#
            // The same prompt answered once first leaves it cached, so a batch beside it would evaluate a different
            // number of prompt tokens per sequence (where answers used to differ).
            #expect(try await server.request("v1/chat/completions", body: body.replacingOccurrences(of: #""n":3"#, with: #""n":1"#)).status == 200)
            let before = try #require(try await server.metric("fm_completion_tokens_total"))
            let reply = try await server.request("v1/chat/completions", body: body)
            #expect(reply.status == 200, "\(reply.text)")
            let choices = try #require(try reply.json["choices"] as? [[String: Any]])
            #expect(choices.map { $0["index"] as? Int } == [0, 1, 2])
            let texts = choices.map { ($0["message"] as? [String: Any])?["content"] as? String ?? "" }
            #expect(!texts[0].isEmpty && Set(texts).count == 1, "\(texts)")
            let completion = try #require((try reply.json["usage"] as? [String: Any])?["completion_tokens"] as? Int)
            #expect(completion > 0 && completion % 3 == 0)
            #expect(try await server.metric("fm_completion_tokens_total") == before + completion / 3)

            let streamed = try await server.request("v1/chat/completions", body: body.replacingOccurrences(of: #""n":3"#, with: #""n":2,"stream":true"#))
            #expect(streamed.status == 200)
            #expect(try Self.answers(in: streamed, count: 2).texts == [texts[0], texts[0]])
        }
    }

    @Test func jsonSchemaResponsesAlwaysMatchTheSchema() async throws {
        try await FMServe.with { server in
            let schema = #"{"type":"object","properties":{"mood":{"type":"string","enum":["happy","sad","neutral"]},"score":{"type":"integer","minimum":1,"maximum":5},"words":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3}},"required":["mood","score","words"],"additionalProperties":false}"#
            for text in ["We won the final!", "The train was late again.", "It is Tuesday."] {
                let body = #"{"model":"tiny","messages":[{"role":"user","content":"\#(text)"}],"temperature":0,"response_format":{"type":"json_schema","json_schema":{"name":"Mood","strict":true,"schema":\#(schema)}}}"#
                let reply = try await server.request("v1/chat/completions", body: body)
                #expect(reply.status == 200, "\(reply.text)")
                let choices = try #require(try reply.json["choices"] as? [[String: Any]])
                let content = try #require((choices.first?["message"] as? [String: Any])?["content"] as? String)
                let value = try #require(try JSONSerialization.jsonObject(with: Data(content.utf8)) as? [String: Any], "\(content)")
                #expect(Set(value.keys) == ["mood", "score", "words"])
                #expect(["happy", "sad", "neutral"].contains(value["mood"] as? String ?? ""))
                #expect((1...5).contains(value["score"] as? Int ?? 0))
                #expect((1...3).contains((value["words"] as? [String])?.count ?? 0))
            }
            // `json_object`: any object, greedy and sampled. Every answer parses as one; a runaway object is a clear
            // 400, never a truncated text.
            var answered = 0
            for (text, sampling) in [("Give me a JSON profile of Ada.", #""temperature":0"#), ("Weather in Oslo?", #""temperature":1,"seed":7"#), ("List two fruits with their colours.", #""temperature":1,"seed":7"#)] {
                let body = #"{"messages":[{"role":"system","content":"Answer in JSON."},{"role":"user","content":"\#(text)"}],\#(sampling),"max_tokens":300,"response_format":{"type":"json_object"}}"#
                let reply = try await server.request("v1/chat/completions", body: body)
                guard reply.status == 200 else {
                    #expect(reply.status == 400 && reply.text.contains("max_tokens_reached"), "\(reply.text)")
                    continue
                }
                answered += 1
                let choice = try #require((try reply.json["choices"] as? [[String: Any]])?.first)
                #expect(choice["finish_reason"] as? String == "stop", "\(reply.text)")
                let content = try #require((choice["message"] as? [String: Any])?["content"] as? String)
                #expect(try JSONSerialization.jsonObject(with: Data(content.utf8)) is [String: Any], "\(content)")
            }
            // Which sampled answers end within max_tokens depends on the machine (its float sums decide near-ties);
            // the greedy profile of Ada ends on every machine measured, so the success path is always exercised.
            #expect(answered >= 1)
        }
    }

    @Test func toolsAreCalledWithArgumentsOfTheirSchemaAndTheirOutputIsAnswered() async throws {
        try await FMServe.with { server in
            let ask = #"{"role":"user","content":"What is the weather in Paris?"}"#
            let body = #"{"model":"tiny","messages":[\#(ask)],"temperature":0,"tool_choice":"required","tools":[\#(Self.weatherTool)]}"#
            let reply = try await server.request("v1/chat/completions", body: body)
            #expect(reply.status == 200, "\(reply.text)")
            let choice = try #require((try reply.json["choices"] as? [[String: Any]])?.first)
            #expect(choice["finish_reason"] as? String == "tool_calls")
            let message = try #require(choice["message"] as? [String: Any])
            #expect(message["content"] is NSNull)
            let call = try #require((message["tool_calls"] as? [[String: Any]])?.first)
            let function = try #require(call["function"] as? [String: Any])
            #expect(function["name"] as? String == "get_weather")
            let arguments = try #require(function["arguments"] as? String)
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(arguments.utf8)) as? [String: Any])
            #expect(parsed["city"] is String, "\(arguments)")
            let id = try #require(call["id"] as? String)
            // OpenAI's form: `call_` and letters and digits.
            #expect(id.hasPrefix("call_") && id.count > 5 && id.dropFirst(5).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }, "\(id)")

            // The client runs the tool and sends its output back; with tools off, the model must answer in text.
            let callMessage = #"{"role":"assistant","content":null,"tool_calls":[{"id":"\#(id)","type":"function","function":{"name":"get_weather","arguments":\#(Self.quoted(arguments))}}]}"#
            let output = #"{"role":"tool","tool_call_id":"\#(id)","content":"31 degrees and sunny."}"#
            let second = #"{"model":"tiny","messages":[\#(ask),\#(callMessage),\#(output)],"temperature":0,"max_tokens":40,"tool_choice":"none","tools":[\#(Self.weatherTool)]}"#
            let answer = try await server.request("v1/chat/completions", body: second)
            #expect(answer.status == 200, "\(answer.text)")
            let answerChoice = try #require((try answer.json["choices"] as? [[String: Any]])?.first)
            #expect(answerChoice["finish_reason"] as? String != "tool_calls")
            let text = try #require((answerChoice["message"] as? [String: Any])?["content"] as? String)
            #expect(!text.isEmpty)
        }
    }

    @Test func tagEndpointWritesTheLinesOfFMTag() async throws {
        let input = """
            Today we had a lovely picnic with friends at the beach.
            {"id":"ticket","text":"I can't log in since the update.","source":"mail"}
            {"id":"broken","text":
            """
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-serve-tag-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appendingPathComponent("in.jsonl")
        let outputURL = directory.appendingPathComponent("out.jsonl")
        // A last line that is not UTF-8 is an error line on both, not a text with its byte replaced.
        let body = Data(input.utf8) + Data("\nCaf".utf8) + Data([0xE9]) + Data(" au lait\n".utf8)
        try body.write(to: inputURL)
        let cli = try TagCommandTests.run(["tag", "--preset", "support-ticket", "--file", inputURL.path, "--output", outputURL.path, "--no-cache"])
        // 2: every line written, two of them error lines.
        try #require(cli.status == 2 && cli.stderr.contains("fm tag: 2 records failed"), "\(cli.status) \(cli.stderr)")
        let expected = try String(contentsOf: outputURL, encoding: .utf8)

        try await FMServe.with { server in
            let reply = try await FMServe.request(
                try #require(URL(string: "\(server.url.absoluteString)/v1/tag?preset=support-ticket")), body: body)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.headers["content-type"] == "application/x-ndjson")
            #expect(reply.text == expected)
            let replyLines = reply.text.split(separator: "\n")
            #expect(replyLines.count == 4)
            #expect(replyLines.last?.contains(#""code":"invalid-utf8""#) == true, "\(replyLines.last ?? "")")

            // The JSON form, with a schema of its own.
            let schema = #"{"type":"object","properties":{"positive":{"type":"boolean"}},"required":["positive"]}"#
            // A string is the text as sent (not its JSON literal); a blank one is an error line, as in fm tag.
            let object = try await server.request("v1/tag", body: #"{"texts":["I love it.",{"id":"x","text":"I hate it."},"Two\nlines \"quoted\"","  "]"# + #","schema":\#(schema)}"#)
            #expect(object.status == 200, "\(object.text)")
            let lines = object.text.split(separator: "\n").map { String($0) }
            try #require(lines.count == 4)
            let records = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            #expect(records.map { $0["id"] as? String } == ["1", "x", "3", "4"])
            #expect(records.map { $0["text"] as? String } == ["I love it.", "I hate it.", "Two\nlines \"quoted\"", nil])
            for record in records.prefix(3) {
                #expect((record["result"] as? [String: Any])?["positive"] is Bool, "\(record)")
            }
            #expect((records[3]["error"] as? [String: Any])?["code"] as? String == "empty-text", "\(records[3])")
        }
    }

    @Test func badRequestsGetA4xxJSONErrorAndTheServerStaysUp() async throws {
        try await FMServe.with(arguments: ["--max-tokens", "64", "--max-body-bytes", "4096"]) { server in
            let user = #"[{"role":"user","content":"Hi"}]"#
            let cases: [(body: String, status: Int, param: String?)] = [
                ("{not json", 400, nil),
                ("[1, 2]", 400, nil),
                (#"{"model":5,"messages":\#(user)}"#, 400, "model"),
                (#"{"model":"gpt-4","messages":\#(user)}"#, 404, "model"),
                (#"{"model":"default","messages":"Hi"}"#, 400, "messages"),
                (#"{"model":"default","messages":[]}"#, 400, "messages"),
                (#"{"model":"default","messages":[{"role":"wizard","content":"Hi"}]}"#, 400, "messages[0].role"),
                (#"{"model":"default","messages":[{"role":"user","content":42}]}"#, 400, "messages[0].content"),
                (#"{"model":"default","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}"#, 400, "messages[0].content[0].type"),
                (#"{"model":"default","messages":[{"role":"assistant","content":"Hi"}]}"#, 400, "messages"),
                (#"{"model":"default","messages":[{"role":"tool","tool_call_id":"nope","content":"x"}]}"#, 400, "messages[0].tool_call_id"),
                (#"{"model":"default","messages":\#(user),"temperature":"hot"}"#, 400, "temperature"),
                (#"{"model":"default","messages":\#(user),"max_tokens":100000}"#, 400, "max_tokens"),
                (#"{"model":"default","messages":\#(user),"n":9}"#, 400, "n"),
                (#"{"model":"default","messages":\#(user),"n":0}"#, 400, "n"),
                (#"{"model":"default","messages":\#(user),"stop":["\n"],"response_format":{"type":"json_object"}}"#, 400, "stop"),
                (#"{"model":"default","messages":\#(user),"stop":"\n","tools":[\#(Self.weatherTool)]}"#, 400, "stop"),
                (#"{"model":"default","messages":\#(user),"stop":["\n", 7]}"#, 400, "stop[1]"),
                (#"{"model":"default","messages":\#(user),"logit_bias":{"50":-100}}"#, 400, "logit_bias"),
                (#"{"model":"default","messages":\#(user),"parallel_tool_calls":false}"#, 400, "parallel_tool_calls"),
                (#"{"model":"default","messages":\#(user),"top_logprobs":2}"#, 400, "top_logprobs"),
                (#"{"model":"default","messages":\#(user),"logprobs":true,"top_logprobs":21}"#, 400, "top_logprobs"),
                (#"{"model":"default","messages":\#(user),"logprobs":true,"response_format":{"type":"json_object"}}"#, 400, "logprobs"),
                (#"{"model":"default","messages":\#(user),"logprobs":true,"tools":[\#(Self.weatherTool)]}"#, 400, "logprobs"),
                (#"{"model":"default","messages":\#(user),"min_p":0.05}"#, 400, "min_p"),
                (#"{"model":"default","messages":\#(user),"repeat_penalty":1.1}"#, 400, "repeat_penalty"),
                (#"{"model":"default","messages":\#(user),"top_k":-1}"#, 400, "top_k"),
                (#"{"model":"default","messages":\#(user),"n_predict":16}"#, 400, "n_predict"),
                (#"{"model":"default","messages":\#(user),"ignore_eos":true}"#, 400, "ignore_eos"),
                (#"{"model":"default","messages":\#(user),"dynatemp_range":0.5}"#, 400, "dynatemp_range"),
                (#"{"model":"default","messages":\#(user),"grammar":"root ::= \"yes\""}"#, 400, "grammar"),
                (#"{"model":"default","messages":\#(user),"json_schema":{"type":"object"}}"#, 400, "json_schema"),
                (#"{"model":"default","messages":\#(user),"functions":[{"name":"f","parameters":{}}]}"#, 400, "functions"),
                (#"{"model":"default","messages":\#(user),"response_format":{"type":"json_object","schema":{"type":"object"}}}"#, 400, "response_format.schema"),
                (#"{"model":"default","messages":\#(user),"top_k":5,"top_p":0.5}"#, 400, "top_k"),
                (#"{"model":"default","messages":\#(user),"response_format":{"type":"xml"}}"#, 400, "response_format.type"),
                (#"{"model":"default","messages":\#(user),"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object","properties":{"a":{"not":{"type":"string"}}}}}}}"#, 400, "response_format.json_schema.schema"),
                (#"{"model":"default","messages":\#(user),"tools":[{"type":"retrieval"}]}"#, 400, "tools[0].type"),
                (#"{"model":"default","messages":[{"role":"user","content":[]}]}"#, 400, "messages[0].content"),
                (#"{"model":"default","messages":\#(user),"response_format":{"type":"json_schema","json_schema":{"name":"x","strict":"maybe","schema":{"type":"object"}}}}"#, 400, "response_format.json_schema.strict"),
                (#"{"model":"default","messages":\#(user),"tools":[{"type":"function","function":{"name":"f","strict":1}}]}"#, 400, "tools[0].function.strict"),
                (#"{"model":"default","messages":\#(user),"tool_choice":{"type":"function","function":{"name":"missing"}},"tools":[\#(Self.weatherTool)]}"#, 400, "tool_choice"),
                // A schema beside another type, a choice among no tools, a name a call format cannot carry, the
                // ignored fields of the wrong kind, and output OpenAI offers that this server does not give.
                (#"{"model":"default","messages":\#(user),"response_format":{"type":"json_object","json_schema":{"name":"x","schema":{"type":"object"}}}}"#, 400, "response_format.json_schema"),
                (#"{"model":"default","messages":\#(user),"response_format":{"type":"text","json_schema":{"name":"x","schema":{"type":"object"}}}}"#, 400, "response_format.json_schema"),
                (#"{"model":"default","messages":\#(user),"tool_choice":"auto"}"#, 400, "tool_choice"),
                (#"{"model":"default","messages":\#(user),"tool_choice":"required"}"#, 400, "tool_choice"),
                (#"{"model":"default","messages":\#(user),"tool_choice":{"type":"allowed_tools","allowed_tools":{}},"tools":[\#(Self.weatherTool)]}"#, 400, "tool_choice.type"),
                (#"{"model":"default","messages":\#(user),"tools":[{"type":"function","function":{"name":"a b","parameters":{"type":"object"}}}]}"#, 400, "tools[0].function.name"),
                (#"{"model":"default","messages":\#(user),"user":5}"#, 400, "user"),
                (#"{"model":"default","messages":\#(user),"store":"yes"}"#, 400, "store"),
                (#"{"model":"default","messages":\#(user),"metadata":"x"}"#, 400, "metadata"),
                (#"{"model":"default","messages":\#(user),"metadata":{"a":{"b":1}}}"#, 400, "metadata.a"),
                (#"{"model":"default","messages":\#(user),"modalities":["text","audio"]}"#, 400, "modalities"),
                (#"{"model":"default","messages":\#(user),"stream":true,"stream_options":{"include_obfuscation":true}}"#, 400, "stream_options.include_obfuscation"),
            ]
            for item in cases {
                let reply = try await server.request("v1/chat/completions", body: item.body)
                #expect(reply.status == item.status, "\(item.body) → \(reply.status) \(reply.text)")
                #expect(reply.headers["content-type"] == "application/json", "\(item.body)")
                let error = try reply.error
                #expect(!(error["message"] as? String ?? "").isEmpty, "\(item.body)")
                if let param = item.param { #expect(error["param"] as? String == param, "\(item.body) → \(reply.text)") }
            }
            // The same fields of the right kind, or null, change nothing and are answered.
            let ignored = #"{"model":"default","messages":\#(user),"max_tokens":2,"stream":true,"stream_options":{"include_usage":false,"include_obfuscation":false},"user":"u1","safety_identifier":null,"prompt_cache_key":"k","metadata":{"a":"b"},"store":false,"service_tier":"auto","cache_prompt":true,"id_slot":-1,"modalities":["text"],"tool_choice":null}"#
            let answered = try await server.request("v1/chat/completions", body: ignored)
            #expect(answered.status == 200, "\(answered.text)")
            // The schema error names the keyword it cannot enforce.
            let schemaError = try await server.request("v1/chat/completions", body: try #require(cases.first { $0.param == "response_format.json_schema.schema" }).body).error
            #expect((schemaError["message"] as? String ?? "").contains("not"))

            // Too large a body, a prompt beyond the context window, an unknown route, an unknown preset.
            let huge = #"{"model":"default","messages":[{"role":"user","content":""# + String(repeating: "a", count: 5_000) + #""}]}"#
            let tooLarge = try await server.request("v1/chat/completions", body: huge)
            #expect(tooLarge.status == 413)
            #expect(try tooLarge.error["code"] as? String == "request_too_large")
            let unknown = try await server.request("v1/embeddings", body: "{}")
            #expect(unknown.status == 404)
            _ = try unknown.error
            // A known route asked with the other method: the path is right, so 405 says which method it takes.
            for (path, body, allowed) in [("v1/tag", nil, "POST"), ("v1/chat/completions", nil, "POST"), ("health", "{}", "GET, HEAD")] {
                let wrongMethod = try await server.request(path, body: body)
                #expect(wrongMethod.status == 405, "\(path): \(wrongMethod.text)")
                #expect(wrongMethod.headers["allow"] == allowed, "\(path)")
                #expect(try wrongMethod.error["code"] as? String == "method_not_allowed")
            }
            // HEAD on a GET route: GET's status and headers, no body.
            for path in ["health", "v1/models", "metrics"] {
                let head = try await server.request(path, method: "HEAD")
                let get = try await server.request(path)
                #expect(head.status == 200, "\(path)")
                #expect(head.body.isEmpty, "\(path): \(head.text)")
                #expect(head.headers["content-type"] == get.headers["content-type"], "\(path)")
            }
            // The model card names the weights by content, so a client's cache can tell this model from another
            // served under the same name.
            let models = try await server.request("v1/models")
            let card = ((try JSONSerialization.jsonObject(with: models.body) as? [String: Any])?["data"] as? [[String: Any]])?.first
            #expect(card?["id"] as? String != nil && ((card?["meta"] as? [String: Any])?["content"] as? String)?.hasPrefix("content-sha256:") == true,
                    "\(models.text)")
            #expect(ChatCompletionsLanguageModel.servedModels(inModelList: models.body, named: "default")?.contains("content-sha256:") == true)
            // OpenAI's `created` is a Unix time: when the server started, within the last hour.
            let created = try #require(card?["created"] as? Int)
            #expect(abs(Double(created) - Date().timeIntervalSince1970) < 3600, "\(created)")
            // OpenAI's `models.retrieve`: the same card by name, and a 404 naming the model for another.
            let name = try #require(card?["id"] as? String)
            for path in ["v1/models/\(name)", "v1/models/default"] {
                let retrieved = try await server.request(path)
                #expect(retrieved.status == 200, "\(path): \(retrieved.text)")
                #expect((try JSONSerialization.jsonObject(with: retrieved.body) as? [String: Any])?["id"] as? String == name, "\(path)")
            }
            let other = try await server.request("v1/models/nope")
            #expect(other.status == 404)
            #expect(try other.error["code"] as? String == "model_not_found")
            let preset = try await server.request("v1/tag", body: #"{"texts":["x"],"preset":"nope"}"#)
            #expect(preset.status == 400)
            #expect(try preset.error["param"] as? String == "preset")
            // A JSON body's settings are its own: a query parameter or a misspelt member is refused, not ignored.
            let queried = try await FMServe.request(
                try #require(URL(string: "\(server.url.absoluteString)/v1/tag?preset=support-ticket")), body: Data(#"{"texts":["x"]}"#.utf8))
            #expect(queried.status == 400, "\(queried.text)")
            #expect(try queried.error["param"] as? String == "preset")
            // A parameter given twice would keep one value in silence.
            let twice = try await FMServe.request(
                try #require(URL(string: "\(server.url.absoluteString)/v1/tag?preset=support-ticket&preset=moderation")), body: Data("x\n".utf8))
            #expect(twice.status == 400, "\(twice.text)")
            #expect(try twice.error["param"] as? String == "preset")
            // A value without a name is an unknown parameter; an empty pair (`&&`) is nothing.
            let nameless = try await FMServe.request(
                try #require(URL(string: "\(server.url.absoluteString)/v1/tag?=support-ticket")), body: Data("x\n".utf8))
            #expect(nameless.status == 400, "\(nameless.text)")
            #expect(try nameless.error["param"] as? String == "", "\(nameless.text)")
            let misspelt = try await server.request("v1/tag", body: #"{"texts":["x"],"presets":"support-ticket"}"#)
            #expect(misspelt.status == 400, "\(misspelt.text)")
            #expect(try misspelt.error["param"] as? String == "presets")

            // JSON must be UTF-8: a body that is not is refused, not read with its bytes replaced.
            let latin1 = try await FMServe.request(
                try #require(URL(string: "\(server.url.absoluteString)/v1/chat/completions")),
                body: Data(#"{"model":"default","messages":[{"role":"user","content":"Caf"#.utf8) + Data([0xE9]) + Data(#""}]}"#.utf8))
            #expect(latin1.status == 400, "\(latin1.text)")
            #expect(try latin1.error["code"] as? String == "invalid_utf8")

            // A tool's arguments are an object of named parameters, or a client's `fn(**arguments)` fails.
            let stringTool = #"{"type":"function","function":{"name":"lookup","parameters":{"type":"string"}}}"#
            let notObject = try await server.request("v1/chat/completions", body: #"{"model":"default","messages":\#(user),"tools":[\#(stringTool)]}"#)
            #expect(notObject.status == 400, "\(notObject.text)")
            #expect(try notObject.error["param"] as? String == "tools[0].function.parameters", "\(notObject.text)")
            // A compressed body is refused as such, not read as text that is not UTF-8 (or, for ASCII, as plain).
            let gzipped = try await server.request("v1/chat/completions", body: #"{"model":"default","messages":\#(user)}"#,
                                                   headers: ["Content-Encoding": "gzip"])
            #expect(gzipped.status == 415, "\(gzipped.text)")
            #expect(try gzipped.error["code"] as? String == "unsupported_content_encoding")
            // The router also finds a path with a trailing slash; it is the same route, so it announces the close.
            let slashed = try await server.request("v1/chat/completions/", body: "{not json")
            #expect(slashed.status == 400, "\(slashed.text)")
            #expect(slashed.headers["connection"] == "close", "\(slashed.headers)")
            let slashedGet = try await server.request("v1/chat/completions/")
            #expect(slashedGet.status == 405, "\(slashedGet.text)")
            // The path as sent, slash and all, so the test shows the route was found for it.
            #expect((try slashedGet.error["message"] as? String)?.hasPrefix("/v1/chat/completions/ takes") == true, "\(slashedGet.text)")
            // A tool whose parameters are a reference to an object, or `{}` (no arguments), is an object tool.
            let referenced = ##"{"type":"function","function":{"name":"lookup","parameters":{"$ref":"#/$defs/A","$defs":{"A":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}}}"##
            let empty = #"{"type":"function","function":{"name":"now","parameters":{}}}"#
            let objectTools = try await server.request("v1/chat/completions", body: #"{"model":"default","messages":\#(user),"max_tokens":1,"tool_choice":"auto","tools":[\#(referenced),\#(empty)]}"#)
            // The turn's grammar compiled and generation ran: an answer, or one token too few for its JSON.
            #expect(objectTools.status == 200 || (try? objectTools.error["code"] as? String) == "max_tokens_reached", "\(objectTools.text)")
            // Seeds of the whole 64-bit range, as clients draw them.
            let bigSeed = try await server.request("v1/chat/completions", body: #"{"model":"default","messages":\#(user),"max_tokens":1,"temperature":1,"seed":9223372036854775807}"#)
            #expect(bigSeed.status == 200, "\(bigSeed.text)")

            let health = try await server.request("health")
            #expect(health.status == 200)
        }
        try await FMServe.with { server in
            let words = String(repeating: "committee budget review ", count: 3_000)
            let overflow = try await server.request("v1/chat/completions", body: #"{"model":"default","messages":[{"role":"user","content":"\#(words)"}]}"#)
            #expect(overflow.status == 400, "\(overflow.text)")
            #expect(try overflow.error["code"] as? String == "context_length_exceeded")
            // Streamed, the request fails before any event, so it gets the same 400 instead of a 200 stream.
            let streamed = try await server.request("v1/chat/completions", body: #"{"model":"default","stream":true,"messages":[{"role":"user","content":"\#(words)"}]}"#)
            #expect(streamed.status == 400, "\(streamed.text)")
            #expect(streamed.headers["content-type"] == "application/json")
            #expect(try streamed.error["code"] as? String == "context_length_exceeded")

            // A prompt that fits with a few tokens to spare: the answer runs into the end of the window and comes back
            // cut there with finish_reason length, not as an error about the prompt. Each prompt is measured with
            // max_tokens 1 (the server reuses the shared prefix, so each probe is quick).
            let sentence = "The committee met on Monday to review the budget for the new library. "
            // With `tools`, a tool the turn may not call (tool_choice none): the answer is text, in the tool turn's JSON.
            let tool = #""tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}],"tool_choice":"none","#
            func body(sentences: Int, words: Int, maxTokens: Int?, tools: Bool = false) -> String {
                let text = String(repeating: sentence, count: sentences) + String(repeating: "a ", count: words)
                    + "Now count from 1 to 100, one number per line."
                return #"{"model":"default","temperature":0,\#(tools ? tool : "")"messages":[{"role":"user","content":"\#(text)"}]"#
                    + (maxTokens.map { #","max_tokens":\#($0)}"# } ?? "}")
            }
            func promptTokens(sentences: Int, words: Int, tools: Bool = false) async throws -> Int {
                let reply = try await server.request("v1/chat/completions", body: body(sentences: sentences, words: words, maxTokens: 1, tools: tools))
                return try #require((try reply.json["usage"] as? [String: Any])?["prompt_tokens"] as? Int, "\(reply.text)")
            }
            let window = 4_096
            let first = try await promptTokens(sentences: 280, words: 0)
            let perSentence = try await promptTokens(sentences: 281, words: 0) - first
            let overhead = try await promptTokens(sentences: 1, words: 0, tools: true) - (try await promptTokens(sentences: 1, words: 0))
            // Sends a prompt that leaves `spare` tokens of the window; the answer is either cut at the window's end
            // (true) or whole within it (false). Either way its usage fills at most the window, and no tool is called.
            func answerIsCut(spare: Int, tools: Bool) async throws -> Bool {
                let sentences = 280 + (window - spare - first - (tools ? overhead : 0)) / perSentence - (tools ? 1 : 0)
                let padding = window - spare - (try await promptTokens(sentences: sentences, words: 0, tools: tools))
                // A tokenizer that makes the prompt land elsewhere fails here, not in a negative repeat count.
                try #require((0..<(3 * perSentence)).contains(padding), "padding \(padding)")
                try #require(try await promptTokens(sentences: sentences, words: padding, tools: tools) == window - spare)
                let reply = try await server.request("v1/chat/completions", body: body(sentences: sentences, words: padding, maxTokens: nil, tools: tools))
                #expect(reply.status == 200, "\(reply.text)")
                let choice = try #require((try reply.json["choices"] as? [[String: Any]])?.first, "\(reply.text)")
                let message = choice["message"] as? [String: Any]
                #expect(message?["tool_calls"] == nil, "\(reply.text)")
                let usage = try #require(try reply.json["usage"] as? [String: Any], "\(reply.text)")
                #expect(usage["prompt_tokens"] as? Int == window - spare, "\(reply.text)")
                let written = try #require(usage["completion_tokens"] as? Int, "\(reply.text)")
                #expect(usage["total_tokens"] as? Int == window - spare + written, "\(reply.text)")
                guard choice["finish_reason"] as? String == "length" else {
                    // The model ended its answer within the spare tokens: a whole answer, which is no error either.
                    #expect(choice["finish_reason"] as? String == "stop" && written <= spare, "\(reply.text)")
                    return false
                }
                // Cut: every spare token written (for tools, the JSON around the text among them), and the text so
                // far delivered, not lost behind a 400.
                #expect(written == spare, "\(reply.text)")
                let text = message?["content"] as? String ?? ""
                #expect(!text.isEmpty, "\(reply.text)")
                return true
            }
            // Fewer tokens to spare leave the model less room to finish; one of the two prompts must be cut.
            // Plain text: two or one token. With tools: five or four, three of them the JSON before the text.
            for tools in [false, true] {
                var cut = false
                for spare in tools ? [5, 4] : [2, 1] where !cut {
                    cut = try await answerIsCut(spare: spare, tools: tools)
                }
                #expect(cut, "no answer was cut at the window's end (tools: \(tools))")
            }
        }
    }

    /// A request whose schema has fixed answers waits for a calibration table the first time; the metrics show the
    /// calibration while it runs and count its runs, for chat completions and for `/v1/tag` alike.
    @Test func metricsCountTheRunsOfEachCalibrationOfChoices() async throws {
        // Tables are computed, not read from a store an earlier run wrote, so every calibration shows.
        try await FMServe.with(environment: ["FM_CALIBRATION_CACHE": "off"]) { server in
            #expect(try await server.metric("fm_calibration_runs_total") == 0)
            #expect(try await server.metric("fm_calibrations_running") == 0)
            let schema = #"{"type":"object","properties":{"label":{"type":"string","enum":["ham","spam"]}},"required":["label"],"additionalProperties":false}"#
            let chat = #"{"messages":[{"role":"user","content":"WINNER! Call 0800 555 0199 to claim your prize."}],"temperature":0,"response_format":{"type":"json_schema","json_schema":{"name":"Message","schema":\#(schema)}}}"#
            let reply = try await server.request("v1/chat/completions", body: chat)
            #expect(reply.status == 200, "\(reply.text)")
            // A single request is calibrated by the ordinary reference texts, one run each.
            let reference = CalibrationSample.reference.count
            #expect(try await server.metric("fm_calibration_runs_total") == reference)
            #expect(try await server.metric("fm_calibrations_running") == 0)
            // Eight texts of a job are its own calibration sample; a second job with the same texts reads the table.
            let texts = BatchCalibrationTests.messages.map { #""\#($0)""# }.joined(separator: ",")
            for _ in 0..<2 {
                let tagged = try await server.request("v1/tag", body: #"{"texts":[\#(texts)],"schema":\#(schema)}"#)
                #expect(tagged.status == 200, "\(tagged.text)")
                #expect(tagged.text.split(separator: "\n").count == BatchCalibrationTests.messages.count)
                #expect(try await server.metric("fm_calibration_runs_total") == reference + BatchCalibrationTests.messages.count)
            }
            #expect(try await server.metric("fm_calibrations_running") == 0)
        }
    }

    @Test func metricsCountRequestsTokensAndLatency() async throws {
        try await FMServe.with { server in
            let hi = try await server.request("v1/chat/completions", body: #"{"model":"default","messages":[{"role":"user","content":"Hi"}],"max_tokens":5,"temperature":0}"#)
            // Five, or fewer when the model ends its answer sooner.
            let written = try #require((try hi.json["usage"] as? [String: Any])?["completion_tokens"] as? Int, "\(hi.text)")
            _ = try await server.request("v1/chat/completions", body: "{}")
            let metrics = try await server.request("metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers["content-type"]?.hasPrefix("text/plain") == true)
            let text = metrics.text
            #expect(text.contains(#"fm_requests_total{route="/v1/chat/completions",status="200"} 1"#), "\(text)")
            #expect(text.contains(#"fm_requests_total{route="/v1/chat/completions",status="400"} 1"#), "\(text)")
            #expect((1...5).contains(written) && text.contains("fm_completion_tokens_total \(written)\n"), "\(text)")
            #expect(text.contains("fm_request_duration_seconds_count 2"), "\(text)")
            #expect(text.contains("fm_queue_depth 0"))
            // The threads the next evaluation uses: every core on an idle machine, fewer while others hold them.
            let threads = text.split(separator: "\n").first { $0.hasPrefix("fm_evaluation_threads ") }
                .flatMap { Int($0.dropFirst("fm_evaluation_threads ".count)) }
            #expect(threads.map { (1...ProcessInfo.processInfo.activeProcessorCount).contains($0) } == true, "\(text)")
        }
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast().description
    }
}
