extension GeneratedContent {
    /// This content with `id`, and every structure and array inside it with an identifier derived from `id` and
    /// the value's path (`days[2]`, `address.city`). Each snapshot of a streamed response and its final content
    /// get the same identifiers, so a nested element (a row in a SwiftUI `ForEach`) keeps its identity while its
    /// properties stream in.
    package func identified(by id: GenerationID) -> GeneratedContent {
        identified(root: id, path: "", id: id)
    }

    private func identified(root: GenerationID, path: String, id: GenerationID) -> GeneratedContent {
        switch kind {
        case .structure(let properties, let orderedKeys):
            var identified: [String: GeneratedContent] = [:]
            for (key, value) in properties {
                // Escaped, so that a key holding `.` or `[` cannot spell another value's path.
                let childPath = path + "." + Self.pathComponent(key)
                identified[key] = value.identified(root: root, path: childPath, id: GenerationID(derivedFrom: root, path: childPath))
            }
            return GeneratedContent(kind: .structure(properties: identified, orderedKeys: orderedKeys), id: id, isComplete: isComplete)
        case .array(let elements):
            let identified = elements.enumerated().map { index, element in
                let childPath = path + "[\(index)]"
                return element.identified(root: root, path: childPath, id: GenerationID(derivedFrom: root, path: childPath))
            }
            return GeneratedContent(kind: .array(identified), id: id, isComplete: isComplete)
        case .null, .bool, .number, .string:
            // Scalars inside a value have nothing to tell apart; the root keeps the response's identifier.
            var content = self
            if path.isEmpty { content.id = id }
            return content
        }
    }

    /// `key` with `\`, `.` and `[` escaped by a backslash; other keys (all a schema's names) stay as they are.
    static func pathComponent(_ key: String) -> String {
        guard key.contains(where: { $0 == "\\" || $0 == "." || $0 == "[" }) else { return key }
        var escaped = ""
        for character in key {
            if character == "\\" || character == "." || character == "[" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
