extension LanguageModelExecutorGenerationChannel {
    /// A tool-call lifecycle event: a call and its streaming arguments, metadata, usage, or a retraction.
    ///
    /// ```swift
    /// await channel.send(.toolCalls(action: .toolCall(
    ///     id: "call-1", name: "getWeather", action: .appendArguments(#"{"city": "Paris"}"#, tokenCount: 7))))
    /// ```
    ///
    /// The session collects the calls of a request, runs the tools once the executor returns, and sends the
    /// outputs back in the next request's transcript.
    public struct ToolCalls: Event {
        /// The tool-calls entry the event updates; `nil` means the request's current one.
        public var entryID: String?
        /// What to do.
        public var action: Action

        /// ``EventKind`` of tool calls.
        public var kind: EventKind { EventKind(value: .toolCalls) }

        /// One change to a tool-calls entry.
        public enum Action: Sendable {
            /// An update to one call, identified by its `id`.
            case toolCall(ToolCall)
            /// Drops a call the model retracted.
            case removeToolCall(id: String)
            /// Merges metadata into the entry's.
            case updateMetadata(Metadata)
            /// Reports the request's token usage so far.
            case updateUsage(Usage)
        }

        /// An update to one tool call.
        public struct ToolCall: Sendable {
            /// The call's identifier; updates with the same identifier build one call.
            public var id: String
            /// The tool's name.
            public var name: String
            /// What to do.
            public var action: Action

            /// One change to a call.
            public enum Action: Sendable {
                /// Appends JSON text to the call's arguments.
                case appendArguments(ArgumentsFragment)
                /// Merges metadata into the call's.
                case updateMetadata(Metadata)
            }

            /// A piece of a call's arguments, as JSON text.
            public struct ArgumentsFragment: Sendable {
                /// The JSON text.
                public var content: String
                /// The number of tokens the text carries.
                public var tokenCount: Int

                init(content: String, tokenCount: Int) {
                    self.content = content
                    self.tokenCount = tokenCount
                }
            }

            init(id: String, name: String, action: Action) {
                self.id = id
                self.name = name
                self.action = action
            }
        }
    }
}

extension LanguageModelExecutorGenerationChannel.ToolCalls.Action {
    /// An update to the call `id` of the tool `name`.
    public static func toolCall(
        id: String, name: String, action: LanguageModelExecutorGenerationChannel.ToolCalls.ToolCall.Action
    ) -> Self {
        .toolCall(.init(id: id, name: name, action: action))
    }

    /// Merges `values` into the entry's metadata.
    public static func updateMetadata(_ values: [String: any Sendable & Codable & Equatable]) -> Self {
        .updateMetadata(.init(values: values))
    }

    /// Reports the request's token usage so far.
    public static func updateUsage(
        input: LanguageModelExecutorGenerationChannel.Usage.Input,
        output: LanguageModelExecutorGenerationChannel.Usage.Output
    ) -> Self {
        .updateUsage(.init(input: input, output: output))
    }
}

extension LanguageModelExecutorGenerationChannel.ToolCalls.ToolCall.Action {
    /// Appends JSON text, which carries `tokenCount` tokens, to the call's arguments.
    public static func appendArguments(_ content: String, tokenCount: Int) -> Self {
        .appendArguments(.init(content: content, tokenCount: tokenCount))
    }

    /// Merges `values` into the call's metadata.
    public static func updateMetadata(_ values: [String: any Sendable & Codable & Equatable]) -> Self {
        .updateMetadata(.init(values: values))
    }
}

extension LanguageModelExecutorGenerationChannel.Event where Self == LanguageModelExecutorGenerationChannel.ToolCalls {
    /// A tool-call event.
    public static func toolCalls(entryID: String? = nil, action: LanguageModelExecutorGenerationChannel.ToolCalls.Action) -> Self {
        LanguageModelExecutorGenerationChannel.ToolCalls(entryID: entryID, action: action)
    }
}
