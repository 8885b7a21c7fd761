@testable import FMServer
import FMTagging
import FoundationModels
import HTTPTypes
import Testing

/// How a chat-completion body becomes a generation request, without a model: sampling fields, streaming options
/// and the messages' transcript.
@Suite("Chat completion requests")
struct ChatCompletionRequestTests {
    private func request(_ fields: String) throws(APIError) -> ChatCompletionRequest {
        try ChatCompletionRequest(body: JSONField.body(#"{"messages":[{"role":"user","content":"Hi"}]\#(fields)}"#), maximumTokensCap: 64)
    }

    /// Expects `attempt` to be refused with a 400 naming `param` and, when given, saying `words`.
    private func expectRefusal(_ what: String, param: String, saying words: String? = nil,
                               sourceLocation: SourceLocation = #_sourceLocation, _ attempt: () throws(APIError) -> Void) {
        do {
            try attempt()
            Issue.record("accepted \(what)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.status == .badRequest && error.param == param && words.map(error.message.contains) ?? true,
                    "\(what): \(error)", sourceLocation: sourceLocation)
        }
    }

    private func sampling(_ fields: String) throws -> GenerationOptions.SamplingMode? {
        try request(fields).generation(choice: 0).generationOptions.samplingMode
    }

    /// A seed fixes the random draws and nothing else: it samples from the same nucleus as a request without one.
    @Test func aSeedKeepsTheDefaultNucleus() throws {
        #expect(try sampling(#","temperature":1"#) == nil)
        #expect(try sampling(#","temperature":1,"seed":3"#) == .random(probabilityThreshold: 0.9, seed: 3))
        #expect(try sampling(#","temperature":1,"seed":3,"top_p":0.5"#) == .random(probabilityThreshold: 0.5, seed: 3))
        #expect(try sampling(#","temperature":1,"top_p":1"#) == .random(probabilityThreshold: 1, seed: nil))
    }

    /// A seed is any integer of 64 bits, read as written: past 2^53 neighbouring seeds stay apart, and 2^64 is refused
    /// rather than read as the largest seed.
    @Test func aSeedIsReadExactly() throws {
        for (written, seed) in [("9007199254740993", UInt64(9_007_199_254_740_993)), ("9007199254740992", 9_007_199_254_740_992),
                                ("18446744073709551615", .max), ("9223372036854775807", 9_223_372_036_854_775_807),
                                ("-9223372036854775808", UInt64(bitPattern: .min)), ("-2", UInt64(bitPattern: -2)),
                                ("5.0", 5), ("1e3", 1000)] {
            #expect(try sampling(#","temperature":1,"seed":\#(written)"#) == .random(probabilityThreshold: 0.9, seed: seed), "\(written)")
        }
        for written in ["18446744073709551616", "-9223372036854775809", "1.5", "1e30", "18446744073709551616.0", "1.8446744073709552e19"] {
            expectRefusal(written, param: "seed") { () throws(APIError) in _ = try request(#","temperature":1,"seed":\#(written)"#) }
        }
    }

    /// `max_tokens` beside `max_completion_tokens` is checked too: a bad or different value is a 400, not ignored.
    @Test func bothTokenLimitsAreChecked() throws {
        #expect(try request(#","max_completion_tokens":20,"max_tokens":20"#).maximumTokens == 20)
        #expect(try request(#","max_tokens":20"#).maximumTokens == 20)
        #expect(try request(#","max_completion_tokens":20,"max_tokens":null"#).maximumTokens == 20)
        for fields in [#","max_completion_tokens":20,"max_tokens":"lots""#, #","max_completion_tokens":20,"max_tokens":999999"#,
                       #","max_completion_tokens":20,"max_tokens":30"#, #","max_tokens":0"#,
                       #","max_completion_tokens":999999,"max_tokens":999999"#] {
            #expect(throws: APIError.self, "\(fields)") { try request(fields) }
        }
    }

    /// A misspelt constraining keyword in `response_format` is a 400 naming it, since the server cannot warn; other
    /// unknown keywords and annotations stay ignored, as JSON Schema reads them.
    @Test func aMisspeltSchemaKeywordIsRefused() throws {
        func format(_ member: String) -> String {
            #","response_format":{"type":"json_schema","json_schema":{"name":"P","schema":{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}},\#(member)}}}"#
        }
        for (written, meant) in [("requried", "required"), ("maxItem", "maxItems"), ("Required", "required"), ("minimun", "minimum")] {
            do {
                _ = try request(format(#""\#(written)":["tags"]"#))
                Issue.record("accepted \(written)")
            } catch {
                #expect(error.status == .badRequest && error.message.contains("'\(written)'") && error.message.contains("'\(meant)'"), "\(error)")
            }
        }
        for annotation in [#""examples":[{}]"#, #""x-reqired":1"#, #""markdownDescription":"tags""#, #""nullable":false"#, #""required":["tags"]"#] {
            #expect(throws: Never.self, "\(annotation)") { try request(format(annotation)) }
        }
    }

    /// A near miss of an enforced `format` is refused as a misspelt keyword is: its strings would be left free.
    /// Formats of other vocabularies (Pydantic's `uuid4`), and words far from any enforced format, stay annotations.
    @Test func aMisspeltFormatIsRefused() throws {
        func format(_ name: String) -> String {
            #","response_format":{"type":"json_schema","json_schema":{"name":"P","schema":{"type":"object","properties":{"when":{"type":"string","format":"\#(name)"}}}}}"#
        }
        for (written, meant) in [("date-tme", "date-time"), ("Date", "date"), ("UUID", "uuid"), ("hostnme", "hostname")] {
            do {
                _ = try request(format(written))
                Issue.record("accepted \(written)")
            } catch {
                #expect(error.status == .badRequest && error.message.contains("'\(written)'") && error.message.contains("'\(meant)'"), "\(error)")
            }
        }
        for annotation in ["date-time", "color", "int64", "url", "password", "phone-number", "uuid4", "guid"] {
            #expect(throws: Never.self, "\(annotation)") { try request(format(annotation)) }
        }
    }

    /// `top_p` lies in OpenAI's closed range: 0 keeps only the likeliest token.
    @Test func topPZeroIsGreedy() throws {
        #expect(try sampling(#","temperature":1,"top_p":0"#) == .greedy)
        #expect(throws: APIError.self) { try request(#","top_p":-0.1"#) }
        #expect(throws: APIError.self) { try request(#","top_p":1.5"#) }
    }

    /// `stream_options` belongs to streamed requests, as OpenAI answers: sent without `stream`, it is an invalid
    /// request naming it.
    @Test func streamOptionsNeedAStream() throws {
        #expect(try request(#","stream":true,"stream_options":{"include_usage":true}"#).includeUsage)
        #expect(try !request(#","stream_options":null"#).includeUsage)
        #expect(throws: APIError.self) { try request(#","stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}"#) }
        do {
            _ = try request(#","stream_options":{"include_usage":true}"#)
            Issue.record("stream_options without stream was accepted")
        } catch {
            #expect(error.type == "invalid_request_error" && error.param == "stream_options", "\(error)")
        }
    }

    /// `stop` takes up to 16 strings of up to 1,024 bytes: each is checked on every token of the shared engine
    /// loop, so an unbounded list is a 400 naming the field, not a slower server for everyone.
    @Test func stopIsBounded() throws {
        let sixteen = (1...16).map { #""s\#($0)""# }.joined(separator: ",")
        #expect(try request(#","stop":[\#(sixteen)]"#).generation.stopSequences.count == 16)
        // Empty strings stop nothing, are dropped, and do not count.
        #expect(try request(#","stop":[\#(sixteen),""]"#).generation.stopSequences.count == 16)
        let long = String(repeating: "x", count: 1_024)
        #expect(try request(#","stop":"\#(long)""#).generation.stopSequences == [long])
        for fields in [#","stop":[\#(sixteen),"s17"]"#, #","stop":"\#(long)x""#, #","stop":["a","\#(long)x"]"#] {
            do {
                _ = try request(fields)
                Issue.record("accepted \(fields.prefix(60))")
            } catch {
                #expect(error.status == .badRequest && error.param == "stop", "\(error)")
            }
        }
        expectRefusal("a number", param: "stop", saying: "a string or an array of strings") { () throws(APIError) in _ = try request(#","stop":5"#) }
    }

    /// An assistant message that says something before its tool calls keeps its words in the transcript, ahead of
    /// the calls; one without words (content null or empty) has the calls alone.
    @Test func anAssistantsWordsBeforeItsCallsAreKept() throws {
        func entries(_ content: String) throws -> [Transcript.Entry] {
            let call = #"{"id":"c1","type":"function","function":{"name":"getWeather","arguments":"{\"city\":\"Oslo\"}"}}"#
            let messages = #"[{"role":"user","content":"Weather in Oslo?"},{"role":"assistant","content":\#(content),"tool_calls":[\#(call)]},{"role":"tool","tool_call_id":"c1","content":"Rain."}]"#
            return Array(try ChatMessages.transcript(from: JSONField.body(#"{"messages":\#(messages)}"#).required("messages"), tools: []))
        }
        let said = try entries(#""Let me check.""#)
        #expect(said.count == 4)
        guard case .response(let response) = said[1], case .text(let text) = response.segments.first else {
            Issue.record("no response entry before the calls: \(said)")
            return
        }
        #expect(text.content == "Let me check.")
        guard case .toolCalls = said[2] else {
            Issue.record("the calls do not follow the words: \(said)")
            return
        }
        for silent in ["null", #""""#] {
            let calls = try entries(silent)
            #expect(calls.count == 3, "\(silent)")
            guard case .toolCalls = calls[1] else {
                Issue.record("\(silent): \(calls)")
                continue
            }
        }
    }

    /// As OpenAI: an assistant's tool calls are answered by the tool messages right after it, one for each call;
    /// a call left unanswered, answered twice or answered after other messages is a 400 naming the place.
    @Test func toolCallsAreAnsweredRightAfterThem() throws {
        func messages(_ list: String) throws(APIError) -> Transcript {
            try ChatMessages.transcript(from: JSONField.body(#"{"messages":[\#(list)]}"#).required("messages"), tools: [])
        }
        func call(_ ids: String...) -> String {
            let calls = ids.map { #"{"id":"\#($0)","type":"function","function":{"name":"f","arguments":"{}"}}"# }
            return #"{"role":"assistant","content":null,"tool_calls":[\#(calls.joined(separator: ","))]}"#
        }
        func answer(_ id: String) -> String { #"{"role":"tool","tool_call_id":"\#(id)","content":"ok"}"# }
        let ask = #"{"role":"user","content":"Go"}"#
        // Answers in any order, then the conversation goes on.
        #expect(Array(try messages([ask, call("a", "b"), answer("b"), answer("a")].joined(separator: ","))).count == 4)
        #expect(Array(try messages([ask, call("a"), answer("a"), #"{"role":"assistant","content":"Done."}"#, ask].joined(separator: ","))).count == 5)
        // Servers that give every call one id (old llama-server, LM Studio): the answers pair with the calls in order.
        let sameID = try messages([ask, call("", ""), answer(""), answer("")].joined(separator: ","))
        guard case .toolOutput(let second)? = Array(sameID).last else {
            Issue.record("\(sameID)")
            return
        }
        #expect(second.id == "")
        let refused: [(String, String, String)] = [
            ([ask, call("a", "b"), answer("a")].joined(separator: ","), "messages", "'b'"),
            ([ask, call("a"), ask].joined(separator: ","), "messages[2]", "'a'"),
            ([ask, call("a"), #"{"role":"system","content":"x"}"#, answer("a")].joined(separator: ","), "messages[2]", "'a'"),
            ([ask, call("a"), answer("a"), answer("a")].joined(separator: ","), "messages[3].tool_call_id", "answered already"),
            ([ask, call("a"), answer("a"), ask, call("b"), answer("a")].joined(separator: ","), "messages[5].tool_call_id", "answered already"),
            ([ask, call("a", "a"), answer("a")].joined(separator: ","), "messages", "'a'"),
        ]
        for (list, param, words) in refused {
            expectRefusal(list, param: param, saying: words) { () throws(APIError) in _ = try messages(list) }
        }
    }

    /// What OpenAI refuses inside tools, schemas and fields it accepts is refused here too, naming the member: an
    /// empty `tools`, a tool definition's unknown member, a schema name outside OpenAI's rule, a `service_tier` that
    /// is none, and a body whose JSON this server cannot hold says why.
    @Test func openAIsRulesInsideTheFieldsAreKept() throws {
        let tool = #"{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}"#
        let format = #""response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object","properties":{}}"#
        let refused: [(String, String)] = [
            (#","tools":[]"#, "tools"),
            (#","tools":[{"type":"function","function":{"name":"f"},"extra":1}]"#, "tools[0].extra"),
            (#","tools":[{"type":"function","function":{"name":"f","paramters":{}}}]"#, "tools[0].function.paramters"),
            (#",\#(format),"name":"a b"}}"#, "response_format.json_schema.name"),
            (#","service_tier":"bogus""#, "service_tier"),
        ]
        for (fields, param) in refused {
            expectRefusal(fields, param: param) { () throws(APIError) in _ = try request(fields) }
        }
        for fields in [",\"tools\":[\(tool)]", ",\(format)}}", ",\(format),\"name\":\"Reply_1\"}}", #","service_tier":"flex""#] {
            #expect(throws: Never.self, "\(fields)") { try request(fields) }
        }
        // A member sent twice would lose its first value without a word (`"stream":true,"stream":false`).
        #expect(try JSONField.body(#"{"user":"\ud83d\ude00"}"#)["user"]?.string() == "😀", "a whole pair is one character")
        for (body, words) in [(#"{"max_tokens":1e400}"#, "out of range"), (#"{"messages":[}"#, "cannot be read as JSON"),
                              (#"{"stream":true,"stream":false}"#, #"The member "stream" appears twice"#),
                              (#"{"messages":[{"role":"user","role":"system","content":"Hi"}]}"#, #"The member "role" appears twice"#),
                              // An escaped lone surrogate is no character: refused, as text that is not UTF-8 is.
                              (#"{"user":"Hi \ud800"}"#, #"\uD800 is half of a surrogate pair"#),
                              (#"{"user":"\udc00\ud800"}"#, #"\uDC00 is half of a surrogate pair"#),
                              (#"{"user":"\ud800x"}"#, #"\uD800 is half of a surrogate pair"#)] {
            do {
                _ = try JSONField.body(body)
                Issue.record("read \(body)")
            } catch {
                #expect(error.status == .badRequest && error.message.contains(words), "\(body): \(error)")
                #expect(!error.message.hasSuffix(".."), "\(error.message)")
            }
        }
    }

    /// An assistant's earlier refusal, as OpenAI returns it (a `refusal` member or part), is part of the history a
    /// client sends back; a call without its `arguments` is refused, as OpenAI refuses it.
    @Test func anAssistantsRefusalIsHistoryAndACallNeedsItsArguments() throws {
        func entries(_ assistant: String) throws(APIError) -> [Transcript.Entry] {
            let list = #"[{"role":"user","content":"Hi"},\#(assistant),{"role":"user","content":"Why?"}]"#
            return Array(try ChatMessages.transcript(from: JSONField.body(#"{"messages":\#(list)}"#).required("messages"), tools: []))
        }
        for assistant in [#"{"role":"assistant","content":null,"refusal":"I cannot help."}"#,
                          #"{"role":"assistant","content":[{"type":"refusal","refusal":"I cannot help."}]}"#] {
            let history = try entries(assistant)
            guard history.count == 3, case .response(let response) = history[1], case .text(let text) = response.segments.first else {
                Issue.record("\(assistant): \(history)")
                continue
            }
            #expect(text.content == "I cannot help.")
        }
        let refused: [(String, String)] = [
            (#"{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"g"}}]}"#, "messages[1].tool_calls[0].function.arguments"),
            (#"{"role":"user","content":[{"type":"refusal","refusal":"no"}]}"#, "messages[1].content[0].type"),
        ]
        for (message, param) in refused {
            expectRefusal(message, param: param) { () throws(APIError) in _ = try entries(message) }
        }
    }

    /// A system or developer message after the conversation started (OpenAI accepts them anywhere) joins the
    /// instructions, after the first one, instead of failing the request.
    @Test func aLaterSystemMessageJoinsTheInstructions() throws {
        let messages = #"[{"role":"system","content":"Be kind."},{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello."},{"role":"developer","content":"Be brief."},{"role":"user","content":"Why?"}]"#
        let entries = Array(try ChatMessages.transcript(from: JSONField.body(#"{"messages":\#(messages)}"#).required("messages"), tools: []))
        #expect(entries.count == 4)
        guard case .instructions(let instructions) = entries.first, case .text(let text) = instructions.segments.first else {
            Issue.record("no instructions entry first: \(entries)")
            return
        }
        #expect(text.content == "Be kind.\n\nBe brief.")
        guard case .prompt = entries.last else {
            Issue.record("the conversation does not end with the prompt: \(entries)")
            return
        }
    }

    /// The model speaks after the last message unless that message is its own: a conversation of system messages
    /// alone is a prompt to answer, and one that ends with the assistant is refused rather than guessed at.
    @Test func onlyAnAssistantMessageCannotEndTheConversation() throws {
        func entries(_ messages: String) throws(APIError) -> [Transcript.Entry] {
            Array(try ChatMessages.transcript(from: JSONField.body(#"{"messages":\#(messages)}"#).required("messages"), tools: []))
        }
        // Alone, system text is the prompt: some chat templates would drop a system turn that no user turn follows.
        let alone = try entries(#"[{"role":"system","content":"Say hello."},{"role":"developer","content":"Be brief."}]"#)
        #expect(alone.count == 1)
        if case .prompt(let prompt)? = alone.first, case .text(let text)? = prompt.segments.first {
            #expect(text.content == "Say hello.\n\nBe brief.")
        } else {
            Issue.record("not one prompt: \(alone)")
        }
        expectRefusal("empty system text", param: "messages", saying: "no text") { () throws(APIError) in
            _ = try entries(#"[{"role":"system","content":" "}]"#)
        }
        let last = try entries(#"[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello."},{"role":"system","content":"Say bye."}]"#)
        #expect(last.count == 3)
        for list in [#"[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello."}]"#,
                     #"[{"role":"system","content":"Be kind."},{"role":"assistant","content":"Hello."}]"#] {
            expectRefusal(list, param: "messages", saying: "comes from the assistant") { () throws(APIError) in _ = try entries(list) }
        }
    }

    /// A field the server does not know, misspelt or another server's, is a 400 naming it, never an answer to
    /// another question; OpenAI's fields that do not change an answer, and `null` members, are accepted.
    @Test func anUnknownFieldIsRefusedByName() throws {
        for field in [#""max_token":1"#, #""guided_json":{"type":"object"}"#, #""repetition_penalty":1.2"#, #""Stream":true"#] {
            do {
                _ = try request(",\(field)")
                Issue.record("accepted \(field)")
            } catch {
                let name = String(field.dropFirst().prefix { $0 != "\"" })
                #expect(error.status == .badRequest && error.param == name && error.message.contains(name), "\(error)")
            }
        }
        #expect(try request(#","user":"u1","metadata":{"a":"b"},"store":false,"service_tier":"auto","cache_prompt":true"#).maximumTokens == 64)
        #expect(try request(#","safety_identifier":"hash-1","prompt_cache_key":"tagger""#).maximumTokens == 64)
        // llama-server's settings of a sampler that is off (its on-switch at the neutral value) change nothing;
        // `repeat_last_n` is the window of its penalties, which are refused unless neutral.
        #expect(try request(#","mirostat":0,"mirostat_tau":5,"dry_multiplier":0,"dry_base":1.75,"id_slot":-1"#).maximumTokens == 64)
        #expect(try request(#","repeat_penalty":1,"repeat_last_n":64"#).maximumTokens == 64)
        // Not llama-server's name for that window: an unknown field.
        #expect(throws: APIError.self) { try request(#","penalty_last_n":64"#) }
        #expect(try request(#","guided_json":null,"max_token":null"#).maximumTokens == 64)
    }

    /// A member a message does not have in OpenAI's API, or one this server cannot read (the legacy
    /// `function_call`, an audio answer), is a 400 naming it rather than dropped; so is one in `response_format`,
    /// its `json_schema` or `tool_choice`.
    @Test func aMemberThatWouldBeDroppedIsRefusedByName() throws {
        func messages(_ list: String) throws(APIError) -> Transcript {
            try ChatMessages.transcript(from: JSONField.body(#"{"messages":[\#(list)]}"#).required("messages"), tools: [])
        }
        let ask = #"{"role":"user","content":"Go"}"#
        let refused: [(String, String)] = [
            (#"{"role":"user","content":"Hi","foo":1}"#, "messages[0].foo"),
            (#"{"role":"user","content":"Hi","tool_call_id":"a"}"#, "messages[0].tool_call_id"),
            (#"{"role":"system","content":"Hi","tool_calls":[]}"#, "messages[0].tool_calls"),
            (#"{"role":"user","content":"Hi","name":5}"#, "messages[0].name"),
            (ask + #",{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}},"# + ask, "messages[1].function_call"),
            (ask + #",{"role":"assistant","content":"x","audio":{"id":"a1"}},"# + ask, "messages[1].audio"),
            (ask + #",{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}","x":1}}]},{"role":"tool","tool_call_id":"a","content":"ok"}"#,
             "messages[1].tool_calls[0].function.x"),
            (ask + #",{"role":"assistant","content":"Done.","refusal":null,"tool_call_id":"a"},"# + ask, "messages[1].tool_call_id"),
            (#"{"role":"user","content":[{"type":"text","text":"Hi","foo":1}]}"#, "messages[0].content[0].foo"),
            (#"{"role":"user","content":[{"type":"text","txt":"Hi"}]}"#, "messages[0].content[0].txt"),
            (ask + #",{"role":"assistant","content":[{"type":"refusal","refusal":"No.","text":"x"}]},"# + ask, "messages[1].content[0].text"),
        ]
        for (list, param) in refused {
            expectRefusal(list, param: param) { () throws(APIError) in _ = try messages(list) }
        }
        #expect(Array(try messages(#"{"role":"user","content":"Hi","name":"ann"}"#)).count == 1)
        #expect(Array(try messages(#"{"role":"user","content":[{"type":"text","text":"Hi"}]}"#)).count == 1)
        // What OpenAI's examples send back: a tool message's `name`, and a streamed call's `index`.
        let echoed = ask + #",{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","name":"f","content":"ok"}"#
        #expect(Array(try messages(echoed)).count == 3)
        let format = #""response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object","properties":{}}"#
        let tool = #""tools":[{"type":"function","function":{"name":"f"}}]"#
        for (fields, param) in [(#","response_format":{"type":"text","foo":1}"#, "response_format.foo"),
                                (#",\#(format),"strcit":true}}"#, "response_format.json_schema.strcit"),
                                (#",\#(tool),"tool_choice":{"type":"function","function":{"name":"f","foo":1}}"#, "tool_choice.function.foo")] {
            expectRefusal(fields, param: param) { () throws(APIError) in _ = try request(fields) }
        }
        #expect(throws: Never.self) { try request(#",\#(tool),"tool_choice":{"type":"function","function":{"name":"f"}}"#) }
    }

    /// A message without `content` (misspelt, or left out) is a 400 naming it, not an empty prompt.
    @Test func aMessageWithoutContentIsRefused() throws {
        for messages in [#"[{"role":"user","contents":"Hi"}]"#, #"[{"role":"system"},{"role":"user","content":"Hi"}]"#,
                         #"[{"role":"user","content":"Hi"},{"role":"assistant"},{"role":"user","content":"Hi"}]"#] {
            do {
                _ = try ChatMessages.transcript(from: JSONField.body(#"{"messages":\#(messages)}"#).required("messages"), tools: [])
                Issue.record("accepted \(messages)")
            } catch {
                #expect(error.param?.hasSuffix(".content") == true && error.message.contains("required"), "\(error)")
            }
        }
    }

    /// The API key is checked as a Bearer token: the scheme in any case, the key exactly.
    @Test func theBearerSchemeIgnoresCaseAndTheKeyDoesNot() {
        func check(_ credentials: String) -> Bool { BearerCredentials.match(credentials, key: "s3cret") }
        #expect(check("Bearer s3cret") && check("bearer s3cret") && check("BEARER  s3cret"))
        // Lengths 256 and 512 apart: a length difference must not wrap to zero.
        let padded = ["Bearer s3cret" + String(repeating: "A", count: 256), "Bearer s3cret" + String(repeating: "A", count: 512)]
        for wrong in ["Bearer S3cret", "Bearer s3cre", "Bearer s3crett", "Basic s3cret", "s3cret", "Bearer", ""] + padded {
            #expect(!check(wrong), "\(wrong)")
        }
    }

    /// A JSON body with a mistake (a trailing comma, `text` for `texts`) is a 400, not JSONL whose lines are each
    /// tagged as a text; JSONL whose first record is whole stays JSONL, a broken later line an error line of its own.
    @Test func aBrokenJSONTagBodyIsRefusedNotReadAsLines() throws {
        let broken = [
            "{\n  \"texts\": [\"My invoice is wrong.\"],\n  \"preset\": \"support-ticket\",\n}\n",
            "{\"texts\": [\"My invoice is wrong.\"], \"preset\": \"support-ticket\",}\n",
            "{\"text\": [\"My invoice is wrong.\"], \"preset\": \"support-ticket\"}",
            "{\"textz\": [\"My invoice is wrong.\"], \"schema\": {\"type\": \"object\"}}",
            "{\"preset\": \"support-ticket\",\n \"texts\": [\"a\", \"b\"],\n}\n",
            "{\"preset\": \"support-ticket\", \"texts\": [\"a\"],}",
        ]
        for body in broken {
            do {
                let request = try TagRequest(body: Array(body.utf8), query: [:])
                Issue.record("read as \(request.records.count) records: \(body)")
            } catch {
                #expect(error.status == .badRequest, "\(error)")
            }
        }
        let jsonl = "{\"id\": 1, \"text\": \"Buy cheap watches now!\"}\n{\"id\": 2, \"text\": \n{\"id\": 3, \"text\": \"Lunch?\"}\n"
        #expect(try TagRequest(body: Array(jsonl.utf8), query: [:]).records.count == 3)
        #expect(try TagRequest(body: Array("{\"id\": 1, \"text\": \"Lunch?\"}".utf8), query: [:]).records.count == 1)
        let pretty = "{\n  \"texts\": [\"My invoice is wrong.\", \"Lunch?\"],\n  \"preset\": \"support-ticket\"\n}\n"
        #expect(try TagRequest(body: Array(pretty.utf8), query: [:]).records.count == 2)
    }

    /// A JSON body's records are read as written, as JSONL lines are: a long id and a long number in a copied field
    /// keep their digits, also when the body is pretty-printed.
    @Test func aJSONTagBodyKeepsLongNumbersAsWritten() throws {
        let body = """
            {"texts": [
              "Lunch?",
              {"id": 12345678901234567890, "text": "b",
               "post": {"pid": 9007199254740993, "tags": ["a b", "c"]}}
            ]}
            """
        let records = try TagRequest(body: Array(body.utf8), query: [:]).records
        #expect(records.map(\.id) == ["1", "12345678901234567890"])
        let line = TaggingOutput.line(for: records[1], outcome: .success(GeneratedContent(properties: [:])))
        #expect(line == #"{"id":"12345678901234567890","text":"b","post":{"pid":9007199254740993,"tags":["a b","c"]},"result":{}}"#, "\(line)")
    }

    /// A JSONL tag request takes its settings from the query; a misspelt parameter is a 400, not the default schema.
    @Test func aTagRequestRefusesAnUnknownQueryParameter() throws {
        let body = Array("Buy cheap watches now!\n".utf8)
        #expect(try TagRequest(body: body, query: ["preset": "moderation", "instructions": "Be strict."]).records.count == 1)
        do {
            _ = try TagRequest(body: body, query: ["presett": "moderation"])
            Issue.record("accepted presett")
        } catch {
            #expect(error.param == "presett", "\(error)")
        }
    }
}
