/// What dynamic instructions stand for at one moment: the instruction segments and the tools.
struct ResolvedInstructions {
    var segments: [Transcript.Segment] = []
    var tools: [any Tool] = []
}

/// The building blocks that resolve themselves instead of through a body.
protocol PrimitiveDynamicInstructions {
    func resolve(into result: inout ResolvedInstructions)
}

extension DynamicInstructions {
    /// Appends what these instructions stand for now — reading session properties in bodies — to `result`.
    func resolve(into result: inout ResolvedInstructions) {
        if let primitive = self as? any PrimitiveDynamicInstructions {
            primitive.resolve(into: &result)
        } else {
            body.resolve(into: &result)
        }
    }
}

extension Instructions: PrimitiveDynamicInstructions {
    func resolve(into result: inout ResolvedInstructions) {
        result.segments += transcriptSegments
    }
}

extension _ToolInstructions: PrimitiveDynamicInstructions {
    func resolve(into result: inout ResolvedInstructions) {
        result.tools += tools
    }
}

extension TupleDynamicInstructions: PrimitiveDynamicInstructions {
    func resolve(into result: inout ResolvedInstructions) {
        for content in repeat each contents {
            content.resolve(into: &result)
        }
    }
}

extension ConditionalDynamicInstructions: PrimitiveDynamicInstructions {
    func resolve(into result: inout ResolvedInstructions) {
        switch branch {
        case .trueContent(let content): content.resolve(into: &result)
        case .falseContent(let content): content.resolve(into: &result)
        }
    }
}

extension Optional: PrimitiveDynamicInstructions where Wrapped: DynamicInstructions {
    func resolve(into result: inout ResolvedInstructions) {
        self?.resolve(into: &result)
    }
}

extension Never: PrimitiveDynamicInstructions {
    func resolve(into result: inout ResolvedInstructions) {}
}

extension EmptyDynamicInstructions: PrimitiveDynamicInstructions {
    func resolve(into result: inout ResolvedInstructions) {}
}

extension _DynamicInstructionsForEach: PrimitiveDynamicInstructions {
    func resolve(into result: inout ResolvedInstructions) {
        for element in data { content(element).resolve(into: &result) }
    }
}

extension AnyDynamicInstructions: PrimitiveDynamicInstructions {
    func resolve(into result: inout ResolvedInstructions) {
        base.resolve(into: &result)
    }
}

extension ResolvedInstructions {
    /// The transcript's instructions entry for these instructions, with the definitions of the tools that
    /// ask to be described.
    func entry(id: String) -> Transcript.Instructions {
        Transcript.Instructions(
            id: id, segments: segments,
            toolDefinitions: tools.filter(\.includesSchemaInInstructions).map { Transcript.ToolDefinition(tool: $0) })
    }
}
