import Foundation

/// The schema a model turn decodes under when the session has tools: either a set of tool calls or the answer.
///
/// ```json
/// {"tool_calls": [{"name": "getWeather", "arguments": {"city": "Paris"}}]}
/// {"response": "It is sunny in Paris."}          // a text answer
/// { ...the requested Generable value... }        // a guided-generation answer
/// ```
///
/// Each call's `name` is a constant and its `arguments` follow that tool's `parameters`, so every call the
/// grammar lets through names a real tool with valid arguments. The tools' schemas are embedded with their
/// type names prefixed by the tool's name, so two tools whose argument types share a name (`Arguments`)
/// don't collide.
enum ToolTurnSchema {
    /// The key of the tool-calls alternative.
    static let toolCallsKey = "tool_calls"
    /// The key of a text answer.
    static let responseKey = "response"
    /// The most calls the model may request in one round.
    static let maximumCallsPerRound = 4

    /// The turn schema: tool calls (when `tools` is not empty) or the answer (`answer`, or text when `nil`);
    /// only tool calls when `callsRequired`.
    static func schema(tools: [Transcript.ToolDefinition], answer: GenerationSchema?, callsRequired: Bool = false,
                       maximumCalls: Int = maximumCallsPerRound) -> GenerationSchema {
        let textAnswer = GenerationSchema.Node.object(.init(name: "Answer", properties: [.init(name: responseKey, node: .string(.init()))]))
        guard !tools.isEmpty else { return answer ?? GenerationSchema(root: textAnswer) }
        var definitions: [GenerationSchema.Definition] = []
        let answerNode = answer?.embedded(into: &definitions) ?? textAnswer
        let calls: [GenerationSchema.Node] = tools.map { tool in
            let parameters = prefixed(tool.parameters, with: tool.name + ".")
            return .object(.init(name: "ToolCall." + tool.name, properties: [
                .init(name: "name", node: .string(.init(choices: [tool.name], isConstant: true))),
                .init(name: "arguments", node: parameters.embedded(into: &definitions)),
            ]))
        }
        let item: GenerationSchema.Node = calls.count == 1 ? calls[0] : .anyOf(.init(name: "ToolCall", choices: calls))
        let callsNode = GenerationSchema.Node.object(.init(name: "ToolCalls", properties: [
            .init(name: toolCallsKey, node: .array(.init(items: item, minimumCount: 1, maximumCount: maximumCalls))),
        ]))
        if callsRequired { return GenerationSchema(root: callsNode, definitions: definitions) }
        return GenerationSchema(root: .anyOf(.init(name: "ToolTurn", choices: [callsNode, answerNode])), definitions: definitions)
    }

    /// What the model chose in a turn decoded under ``schema(tools:answer:)``.
    enum Choice {
        /// Tool calls, in the order the model wrote them.
        case calls([Transcript.ToolCall])
        /// The answer: the text (for text requests) or the value.
        case answer(GeneratedContent)
    }

    /// Reads the model's choice from complete output; `isText` says whether the answer is `{"response": …}`.
    static func choice(in content: GeneratedContent, isText: Bool, toolsAllowed: Bool) -> Choice? {
        if toolsAllowed, case .structure(let properties, let keys) = content.kind, keys == [toolCallsKey],
            case .array(let items)? = properties[toolCallsKey]?.kind {
            let calls = items.compactMap { item -> Transcript.ToolCall? in
                guard case .structure(let call, _) = item.kind, case .string(let name)? = call["name"]?.kind,
                    let arguments = call["arguments"] else { return nil }
                return Transcript.ToolCall(id: UUID().uuidString, toolName: name, arguments: arguments)
            }
            return calls.count == items.count ? .calls(calls) : nil
        }
        guard isText else { return .answer(content) }
        guard case .structure(let properties, _) = content.kind, case .string(let text)? = properties[responseKey]?.kind else {
            return nil
        }
        return .answer(GeneratedContent(kind: .string(text), id: content.id))
    }

    /// Whether `output`, the start of a turn decoded under ``schema(tools:answer:callsRequired:maximumCalls:)``,
    /// has begun the tool calls: its first key has a first character, and it is that of ``toolCallsKey``. The
    /// raw text is read, since a partial parse leaves out a key that is not yet whole.
    static func beginsCalls(_ output: String) -> Bool {
        var rest = Substring(output).drop(while: \.isWhitespace)
        guard rest.first == "{" else { return false }
        rest = rest.dropFirst().drop(while: \.isWhitespace)
        guard rest.first == "\"" else { return false }
        let key = rest.dropFirst().prefix { $0 != "\"" }
        return !key.isEmpty && toolCallsKey.hasPrefix(key)
    }

    /// The text answer of a text request's turn that the token limit ended, `output` being all it wrote: the
    /// response so far, or empty when the hidden wrapper ended before the response began. `nil` when the turn
    /// began tool calls or could only make them (`callsRequired`): calls cut short are malformed, never an answer.
    static func textCutShort(_ output: String, callsRequired: Bool) -> String? {
        guard !callsRequired, !beginsCalls(output) else { return nil }
        return (try? GeneratedContent(json: output)).flatMap(partialText(in:)) ?? ""
    }

    /// The text of a partial `{"response": "…"}`, or `nil` while the output may still be tool calls.
    static func partialText(in content: GeneratedContent) -> String? {
        guard case .structure(let properties, _) = content.kind, case .string(let text)? = properties[responseKey]?.kind else {
            return nil
        }
        return text
    }

    /// `schema` with every type name it defines prefixed, and references to them rewritten.
    static func prefixed(_ schema: GenerationSchema, with prefix: String) -> GenerationSchema {
        var names = Set(schema.definitions.map(\.name))
        if let root = schema.root.typeName { names.insert(root) }
        let root = rename(schema.root, names: names, prefix: prefix)
        let definitions = schema.definitions.map {
            GenerationSchema.Definition(name: prefix + $0.name, node: rename($0.node, names: names, prefix: prefix))
        }
        return GenerationSchema(root: root, definitions: definitions)
    }

    private static func rename(_ node: GenerationSchema.Node, names: Set<String>, prefix: String) -> GenerationSchema.Node {
        func name(_ value: String) -> String { names.contains(value) ? prefix + value : value }
        switch node {
        case .string, .integer, .number, .boolean, .null, .any, .constant:
            return node
        case .array(var array):
            array.items = rename(array.items, names: names, prefix: prefix)
            array.prefixItems = array.prefixItems.map { rename($0, names: names, prefix: prefix) }
            return .array(array)
        case .object(var object):
            object.name = name(object.name)
            object.properties = object.properties.map { property in
                var property = property
                property.node = rename(property.node, names: names, prefix: prefix)
                return property
            }
            object.additionalValues = object.additionalValues.map { rename($0, names: names, prefix: prefix) }
            return .object(object)
        case .enumeration(var enumeration):
            enumeration.name = name(enumeration.name)
            return .enumeration(enumeration)
        case .anyOf(var union):
            union.name = name(union.name)
            union.choices = union.choices.map { rename($0, names: names, prefix: prefix) }
            return .anyOf(union)
        case .reference(let target):
            return .reference(name(target))
        }
    }
}
