import FMDecoding
import Foundation
@testable import FoundationModels
import Testing

// Two tools whose argument types share the name `Arguments` and nest a type of the same name (`Place`).
struct RouteTool: Tool {
    let name = "route"
    let description = "A route between two places."
    @Generable struct Place { var city: String }
    @Generable struct Arguments {
        var from: Place
        var to: Place
    }
    func call(arguments: Arguments) async throws -> String { "" }
}

struct ForecastTool: Tool {
    let name = "forecast"
    let description = "The forecast for a place."
    @Generable struct Place { var latitude: Int }
    @Generable struct Arguments {
        var place: Place
        var days: Int
    }
    func call(arguments: Arguments) async throws -> String { "" }
}

/// The schema a turn decodes under when the session has tools, judged by what its grammar accepts.
struct ToolTurnSchemaTests {
    static let tools = [Transcript.ToolDefinition(tool: RouteTool()), Transcript.ToolDefinition(tool: ForecastTool())]

    static func accepts(_ schema: GenerationSchema, _ text: String) throws -> Bool {
        let grammar = try Grammar(compiling: schema.decodingDocument())
        var matcher = TokenConstraint(grammar: grammar, vocabulary: JSONSchemaImportTests.bytes).makeMatcher()
        for byte in text.utf8 where !matcher.accept(token: Int(byte)) { return false }
        return matcher.canTerminate
    }

    @Test func callsNameARealToolWithThatToolsArguments() throws {
        let schema = ToolTurnSchema.schema(tools: Self.tools, answer: nil)
        #expect(try Self.accepts(schema, #"{"tool_calls":[{"name":"route","arguments":{"from":{"city":"A"},"to":{"city":"B"}}}]}"#))
        #expect(try Self.accepts(schema, #"{"tool_calls":[{"name":"forecast","arguments":{"place":{"latitude":4},"days":2}}]}"#))
        // Each tool's `Place` keeps its own shape: the names did not collide.
        #expect(try !Self.accepts(schema, #"{"tool_calls":[{"name":"forecast","arguments":{"place":{"city":"A"},"days":2}}]}"#))
        #expect(try !Self.accepts(schema, #"{"tool_calls":[{"name":"route","arguments":{"place":{"latitude":4},"days":2}}]}"#))
        #expect(try !Self.accepts(schema, #"{"tool_calls":[{"name":"weather","arguments":{}}]}"#), "an unknown tool")
        let names = Set(schema.definitions.map(\.name))
        #expect(names.isSuperset(of: ["route.Place", "forecast.Place", "route.Arguments", "forecast.Arguments"]))
    }

    @Test func aRoundHasOneToFourCalls() throws {
        let schema = ToolTurnSchema.schema(tools: Self.tools, answer: nil)
        let call = #"{"name":"forecast","arguments":{"place":{"latitude":1},"days":1}}"#
        #expect(try !Self.accepts(schema, #"{"tool_calls":[]}"#))
        for count in 1...ToolTurnSchema.maximumCallsPerRound {
            #expect(try Self.accepts(schema, #"{"tool_calls":["# + Array(repeating: call, count: count).joined(separator: ",") + "]}"))
        }
        let tooMany = Array(repeating: call, count: ToolTurnSchema.maximumCallsPerRound + 1).joined(separator: ",")
        #expect(try !Self.accepts(schema, #"{"tool_calls":["# + tooMany + "]}"))
    }

    @Test func theAnswerIsTextOrTheRequestedValue() throws {
        let text = ToolTurnSchema.schema(tools: Self.tools, answer: nil)
        #expect(try Self.accepts(text, #"{"response":"It is sunny."}"#))
        let guided = ToolTurnSchema.schema(tools: Self.tools, answer: ScriptedPet.generationSchema)
        #expect(try Self.accepts(guided, #"{"name":"Rex","age":3}"#))
        #expect(try !Self.accepts(guided, #"{"response":"Rex"}"#))
        // Without tools the turn is just the answer.
        #expect(try Self.accepts(ToolTurnSchema.schema(tools: [], answer: nil), #"{"response":"hi"}"#))
        #expect(try !Self.accepts(ToolTurnSchema.schema(tools: [], answer: nil), #"{"tool_calls":[]}"#))
    }

    @Test func requiredCallsLeaveNoAnswer() throws {
        let schema = ToolTurnSchema.schema(tools: Self.tools, answer: nil, callsRequired: true)
        #expect(try !Self.accepts(schema, #"{"response":"It is sunny."}"#))
        #expect(try Self.accepts(schema, #"{"tool_calls":[{"name":"route","arguments":{"from":{"city":"A"},"to":{"city":"B"}}}]}"#))
    }

    @Test func theChoiceIsReadFromTheOutput() throws {
        let calls = try GeneratedContent(json: #"{"tool_calls":[{"name":"route","arguments":{"from":{"city":"A"},"to":{"city":"B"}}},{"name":"forecast","arguments":{"place":{"latitude":1},"days":1}}]}"#)
        guard case .calls(let made)? = ToolTurnSchema.choice(in: calls, isText: true, toolsAllowed: true) else {
            Issue.record("tool calls are read as calls")
            return
        }
        #expect(made.map(\.toolName) == ["route", "forecast"])
        #expect(try made[1].arguments.value(Int.self, forProperty: "days") == 1)
        // With tools not allowed, the same output is not an answer either.
        #expect(ToolTurnSchema.choice(in: calls, isText: true, toolsAllowed: false) == nil)

        let text = try GeneratedContent(json: #"{"response":"It is sunny."}"#)
        guard case .answer(let answer)? = ToolTurnSchema.choice(in: text, isText: true, toolsAllowed: true) else {
            Issue.record("a text answer is read as the answer")
            return
        }
        #expect(answer.kind == .string("It is sunny."))
        let value = try GeneratedContent(json: #"{"name":"Rex","age":3}"#)
        guard case .answer(let guided)? = ToolTurnSchema.choice(in: value, isText: false, toolsAllowed: true) else {
            Issue.record("a guided answer is the value itself")
            return
        }
        #expect(guided == value)
        // A call without arguments is no call.
        let broken = try GeneratedContent(json: #"{"tool_calls":[{"name":"route"}]}"#)
        #expect(ToolTurnSchema.choice(in: broken, isText: true, toolsAllowed: true) == nil)
    }

    /// A key is left out of a partial parse until it is whole, so whether calls began is read from the text.
    @Test func callsBeginWithTheFirstCharacterOfTheirKey() {
        for output in [#"{"t"#, #"{"tool"#, #" { "tool_calls"#, #"{"tool_calls":[{"name":"ro"#] {
            #expect(ToolTurnSchema.beginsCalls(output), "\(output)")
        }
        for output in ["", "{", #"{""#, #"{"r"#, #"{"response":"tool"#] {
            #expect(!ToolTurnSchema.beginsCalls(output), "\(output)")
        }
    }

    /// What a text request's turn ended by the token limit answers: its text so far, unless calls began (a model
    /// that chose `tool` and could not fit the forced rest of the call wrote only `{"tool`) or were required.
    @Test func aTurnCutByTheLimitIsTextOnlyWhileItCouldBeText() {
        #expect(ToolTurnSchema.textCutShort(#"{"response":"It is sun"#, callsRequired: false) == "It is sun")
        #expect(ToolTurnSchema.textCutShort(#"{""#, callsRequired: false) == "", "the wrapper ended before the answer began")
        #expect(ToolTurnSchema.textCutShort("", callsRequired: false) == "")
        #expect(ToolTurnSchema.textCutShort(#"{"tool"#, callsRequired: false) == nil)
        #expect(ToolTurnSchema.textCutShort(#"{"tool_calls":[{"name":"route","arguments":{"to":"Pa"#, callsRequired: false) == nil)
        #expect(ToolTurnSchema.textCutShort(#"{""#, callsRequired: true) == nil)
        #expect(ToolTurnSchema.textCutShort("", callsRequired: true) == nil)
    }

    @Test func partialTextAppearsOnlyForATextAnswer() throws {
        #expect(ToolTurnSchema.partialText(in: try GeneratedContent(json: #"{"response":"It is"}"#)) == "It is")
        #expect(ToolTurnSchema.partialText(in: try GeneratedContent(json: #"{"tool_calls":[]}"#)) == nil)
    }
}

extension ToolTurnSchema.Choice: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.calls(let a), .calls(let b)): a.map(\.toolName) == b.map(\.toolName)
        case (.answer(let a), .answer(let b)): a == b
        default: false
        }
    }
}
