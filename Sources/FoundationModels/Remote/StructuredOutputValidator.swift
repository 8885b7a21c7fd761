import FMDecoding

/// Checks a server's structured answer against the request's schema with the same grammar our decoder enforces
/// locally, so a remote answer becomes a value only if local generation could have produced it.
///
/// The grammar reads compact JSON with members in declaration order, while a server may add whitespace or —
/// without enforcement, or with a server that puts required members first — order members differently. JSON
/// objects are unordered, so the answer is parsed, its members put in schema order and written compactly before
/// the grammar reads it; nothing else is changed, so a wrong value is still rejected.
package struct StructuredOutputValidator: Sendable {
    let schema: GenerationSchema
    private let matcher: GrammarMatcher

    /// A vocabulary of single bytes: the grammar's automaton then reads text byte by byte.
    private static let bytes: TokenVocabulary = {
        var tokens: [[UInt8]] = (0...255).map { [UInt8($0)] }
        tokens.append([])
        return TokenVocabulary(tokens: tokens, eosTokenIDs: [256])
    }()

    /// Compiles the schema's grammar.
    ///
    /// - Throws: ``LanguageModelError/unsupportedGenerationGuide(_:)`` when the schema has a guide that cannot be
    ///   checked (the same schemas local generation refuses).
    package init(schema: GenerationSchema) throws {
        self.schema = schema
        do {
            let grammar = try Grammar(compiling: schema.decodingDocument())
            matcher = TokenConstraint(grammar: grammar, vocabulary: Self.bytes).makeMatcher()
        } catch {
            throw LanguageModelError.unsupportedGenerationGuide(.init(
                schemaName: schema.root.typeName, debugDescription: "The schema cannot be checked: \(error)"))
        }
    }

    /// The value of `text` when it is a complete value of the schema.
    ///
    /// - Throws: ``GeneratedContent/ParsingError`` when `text` is not JSON, is cut short, or does not follow the
    ///   schema.
    package func validate(_ text: String) throws(GeneratedContent.ParsingError) -> GeneratedContent {
        let parsed: GeneratedContent
        do {
            // A lone surrogate would be read as U+FFFD, a character the server did not send.
            parsed = try GeneratedContent(jsonRefusingLoneSurrogates: text)
        } catch {
            throw GeneratedContent.ParsingError(rawContent: text, underlyingError: error,
                                                debugDescription: "The server's answer is not JSON: \(text)")
        }
        guard parsed.isComplete else {
            throw GeneratedContent.ParsingError(rawContent: text, debugDescription: "The server's answer is not a complete value: \(text)")
        }
        let canonical = ordered(parsed, as: schema.root, depth: 0)
        guard matcher.acceptsCompletely(canonical.compactJSONString) else {
            throw GeneratedContent.ParsingError(rawContent: text, debugDescription:
                "The server's answer does not follow the schema \(schema.root.typeName ?? "of the request"): \(text)")
        }
        return canonical
    }

    /// `content` with the members of each object in the order `node` declares them; members the schema does not
    /// declare stay at the end, where the grammar rejects them.
    private func ordered(_ content: GeneratedContent, as node: GenerationSchema.Node, depth: Int) -> GeneratedContent {
        // Recursive schemas: a value deeper than this is left as it is (and judged by the grammar).
        guard depth < 64 else { return content }
        switch (node, content.kind) {
        case (.reference(let name), _):
            guard let target = schema.node(named: name) else { return content }
            return ordered(content, as: target, depth: depth + 1)
        case (.object(let object), .structure(let properties, let keys)):
            // A `null` for an optional property means it was left out, as servers that write every parameter
            // (OpenAI-style calls) say it; the grammar writes it only where the schema represents nil explicitly.
            let declared = object.properties.filter { property in
                guard let value = properties[property.name] else { return false }
                guard case .null = value.kind else { return true }
                return !property.isOptional || object.representsNilExplicitly
            }
            var members = declared.map { ($0.name, ordered(properties[$0.name]!, as: $0.node, depth: depth + 1)) }
            let names = Set(object.properties.map(\.name))
            members += keys.filter { !names.contains($0) }.map { ($0, properties[$0]!) }
            return .object(members)
        case (.array(let array), .array(let elements)):
            let items = elements.enumerated().map { index, element in
                ordered(element, as: index < array.prefixItems.count ? array.prefixItems[index] : array.items, depth: depth + 1)
            }
            return GeneratedContent(kind: .array(items))
        case (.anyOf(let union), .structure(_, let keys)):
            // The first alternative that is an object declaring every member decides the order.
            let choice = union.choices.first { choice in
                guard case .object(let object) = resolved(choice) else { return false }
                let names = Set(object.properties.map(\.name))
                return keys.allSatisfy(names.contains)
            }
            return choice.map { ordered(content, as: $0, depth: depth + 1) } ?? content
        case (.anyOf(let union), .array):
            let choice = union.choices.first { if case .array = resolved($0) { true } else { false } }
            return choice.map { ordered(content, as: $0, depth: depth + 1) } ?? content
        default:
            return content
        }
    }

    /// `node`, following references; a reference that names nothing, or a cycle of them, stays as it is.
    private func resolved(_ node: GenerationSchema.Node) -> GenerationSchema.Node {
        schema.resolving(node) ?? node
    }
}
