extension GenerationSchema {
    /// A compact, TypeScript-like sketch of the schema for prompts, including every description and guide.
    ///
    /// The format favours few tokens over formality, because a small model reads it on every request: the root
    /// value first, then each named type it uses as `Name = …`. Keys are quoted as they will appear in the JSON,
    /// `?` marks an optional key, descriptions are `//` comments, string enumerations are inlined as
    /// `"a" | "b"`, and guides read as short phrases:
    ///
    /// ```
    /// // Basic profile information about a cat
    /// {
    ///   "name": string,
    ///   "age": integer from 0 to 20, // The age of the cat
    ///   "toys"?: [Toy] (at most 3 items)
    /// }
    /// Toy = {
    ///   "kind": "ball" | "mouse"
    /// }
    /// ```
    package var promptDescription: String { promptDescription(sortingChoices: false) }

    /// ``promptDescription``, with every enumeration's values listed in one canonical (sorted) order when
    /// `sortingChoices` is set, so the order a schema declares its cases in does not change the prompt.
    package func promptDescription(sortingChoices: Bool) -> String {
        var sketch = PromptSketch(definitions: definitions, sortsChoices: sortingChoices)
        var lines: [String] = []
        if let description = root.typeDescription {
            lines.append("// \(description)")
        }
        let rootText = sketch.describe(root, indent: "", expandNamed: true)
        // A recursive root is referred to by name, so name it.
        if let name = root.typeName, sketch.used.contains(name) {
            lines.append("\(name) = \(rootText)")
        } else {
            lines.append(rootText)
        }
        var printed: Set<String> = [root.typeName].compactMap { $0 }.reduce(into: []) { $0.insert($1) }
        // Describe the named types in the order they were first used; describing one can reveal more.
        var index = 0
        while index < sketch.used.count {
            let name = sketch.used[index]
            index += 1
            guard printed.insert(name).inserted, let node = definitions.first(where: { $0.name == name })?.node else {
                continue
            }
            if let description = node.typeDescription {
                lines.append("// \(description)")
            }
            lines.append("\(name) = " + sketch.describe(node, indent: "", expandNamed: true))
        }
        return lines.joined(separator: "\n")
    }
}

/// Builds the text of ``GenerationSchema/promptDescription``.
private struct PromptSketch {
    let definitions: [GenerationSchema.Definition]
    /// Whether choices are listed sorted rather than in declared order.
    let sortsChoices: Bool
    /// Named types mentioned so far, in order.
    var used: [String] = []

    mutating func describe(_ node: GenerationSchema.Node, indent: String, expandNamed: Bool = false) -> String {
        switch node {
        case .string(let guides):
            if let choices = guides.choices {
                return self.choices(choices)
            }
            var text = "string"
            if let source = guides.pattern?.source {
                text += " matching /\(source)/"
            }
            for source in guides.searchPatterns { text += " containing /\(source)/" }
            if let format = guides.format { text += " (\(format))" }
            if guides.minimumLength != nil || guides.maximumLength != nil {
                text += Self.count(guides.minimumLength, guides.maximumLength, unit: "character")
            }
            return text
        case .integer(let bounds):
            return "integer" + Self.bounds(bounds)
        case .number(let bounds):
            return "number" + Self.bounds(bounds)
        case .boolean:
            return "boolean"
        case .null:
            return "null"
        case .any:
            return "any JSON value"
        case .constant(let text):
            return text
        case .array(let array):
            let elements = array.prefixItems.map { describe($0, indent: indent) } + [describe(array.items, indent: indent)]
            let list = array.prefixItems.isEmpty ? elements[0] : elements.dropLast().joined(separator: ", ") + ", ..."
            return "[\(list)]" + Self.count(array.minimumCount, array.maximumCount, unit: "item")
                + (array.uniqueItems ? " (no repeats)" : "")
        case .object(let object):
            // Named structures appear by name; a nested structure without a definition (from an imported JSON
            // Schema) is spelled out in place.
            guard expandNamed || !definitions.contains(where: { $0.name == object.name }) else {
                return mention(object.name)
            }
            guard !object.properties.isEmpty else {
                return object.additionalValues.map { "{ [key: string]: \(describe($0, indent: indent)) }" } ?? "{}"
            }
            let inner = indent + "  "
            var lines: [String] = []
            for (index, property) in object.properties.enumerated() {
                let key = JSONWriter.quoted(property.name) + (property.isOptional ? "?" : "")
                var line = "\(inner)\(key): \(describe(property.node, indent: inner))"
                if index < object.properties.count - 1 { line += "," }
                if let description = property.description { line += " // \(description)" }
                lines.append(line)
            }
            return "{\n" + lines.joined(separator: "\n") + "\n\(indent)}"
        case .enumeration(let enumeration):
            return choices(enumeration.choices)
        case .anyOf(let union):
            guard expandNamed || !definitions.contains(where: { $0.name == union.name }) else { return mention(union.name) }
            return union.choices.map { describe($0, indent: indent) }.joined(separator: " | ")
        case .reference(let name):
            // Enumerations are short and clearer inline than by name.
            if case .enumeration(let enumeration)? = definitions.first(where: { $0.name == name })?.node {
                return choices(enumeration.choices)
            }
            return mention(name)
        }
    }

    /// The name of a type, remembering to describe it later.
    private mutating func mention(_ name: String) -> String {
        if !used.contains(name) { used.append(name) }
        return name
    }

    private func choices(_ values: [String]) -> String {
        (sortsChoices ? values.sorted() : values).map(JSONWriter.quoted).joined(separator: " | ")
    }

    private static func bounds(_ bounds: GenerationSchema.NumericBounds) -> String {
        let number = JSONWriter.numberText
        let step = bounds.multipleOf.map { ", multiple of \(number($0))" } ?? ""
        if bounds.isMinimumExclusive || bounds.isMaximumExclusive {
            let low = bounds.minimum.map { (bounds.isMinimumExclusive ? " > " : " >= ") + number($0) } ?? ""
            let high = bounds.maximum.map { (bounds.isMaximumExclusive ? " < " : " <= ") + number($0) } ?? ""
            return low + (low.isEmpty || high.isEmpty ? "" : " and") + high + step
        }
        switch (bounds.minimum, bounds.maximum) {
        case (let minimum?, let maximum?): return " from \(number(minimum)) to \(number(maximum))" + step
        case (let minimum?, nil): return " >= \(number(minimum))" + step
        case (nil, let maximum?): return " <= \(number(maximum))" + step
        case (nil, nil): return step.isEmpty ? "" : " (" + step.dropFirst(2) + ")"
        }
    }

    private static func count(_ minimum: Int?, _ maximum: Int?, unit: String) -> String {
        func items(_ count: Int) -> String { count == 1 ? "1 \(unit)" : "\(count) \(unit)s" }
        switch (minimum, maximum) {
        case (let minimum?, let maximum?) where minimum == maximum: return " (exactly \(items(minimum)))"
        case (let minimum?, let maximum?): return " (\(minimum) to \(items(maximum)))"
        case (let minimum?, nil) where minimum > 0: return " (at least \(items(minimum)))"
        case (_, let maximum?): return " (at most \(items(maximum)))"
        default: return ""
        }
    }
}

extension JSONWriter {
    /// `value` as a quoted JSON string.
    static func quoted(_ value: String) -> String {
        var writer = JSONWriter()
        writer.writeString(value)
        return writer.output
    }
}
