import Foundation

/// The fields of a response schema that choose among fixed answers, and the prompt text that presents them
/// as a rubric.
///
/// A schema made only of such fields — enumerations, Bools and numbers — is a *classification*: the model
/// reads the text and fills in each field, and a tagger's preamble ("give the text's topics") would only
/// mislead it. Free strings and string lists are *tags*. A schema with both is mixed and gets both parts.
struct ClassificationRubric {
    /// One field that takes a fixed kind of answer.
    struct Field {
        var name: String
        var description: String?
        /// The allowed values as the prompt lists them (JSON literals), or a phrase for numbers.
        var answer: String
    }

    /// The classification fields, in schema order.
    private(set) var fields: [Field] = []
    /// Whether the schema also has free-text fields (strings, string lists, nested free structures).
    private(set) var hasFreeText = false

    /// Reads the fields of a schema's root structure.
    ///
    /// - Parameter sortsChoices: List each field's choices in one canonical (sorted) order, so the prompt —
    ///   and with it the decision — does not depend on the order the schema declares them in.
    init(schema: GenerationSchema, sortsChoices: Bool) {
        // A reference to a reference, or to the root by its name, reads as the type it ends at.
        func resolve(_ node: GenerationSchema.Node) -> GenerationSchema.Node { schema.resolving(node) ?? node }
        func listed(_ values: [String]) -> String {
            let ordered = sortsChoices ? values.sorted() : values
            return "one of " + ordered.map(JSONWriter.quoted).joined(separator: ", ")
        }
        guard case .object(let object) = resolve(schema.root) else {
            hasFreeText = true
            return
        }
        for property in object.properties {
            let answer: String?
            // A property typed by a named enumeration (a JSON Schema property with a `title`) is described by it.
            var description = property.description
            switch resolve(property.node) {
            case .enumeration(let enumeration):
                answer = listed(enumeration.choices)
                if description?.isEmpty ?? true { description = enumeration.description }
            case .string(let guides) where guides.choices != nil:
                answer = listed(guides.choices ?? [])
            case .boolean:
                answer = "true or false"
            case .integer(let bounds):
                answer = "a whole number" + Self.range(bounds)
            case .number(let bounds):
                answer = "a number" + Self.range(bounds)
            case .array(let array):
                if case .enumeration(let enumeration) = resolve(array.items) {
                    let count = array.maximumCount.map { " (up to \($0), most relevant first)" } ?? " (most relevant first)"
                    answer = "a list of " + listed(enumeration.choices) + count
                } else {
                    answer = nil
                }
            default:
                answer = nil
            }
            if let answer {
                fields.append(Field(name: property.name, description: description, answer: answer))
            } else {
                hasFreeText = true
            }
        }
    }

    /// Whether every field is a classification field.
    var isClassification: Bool { !fields.isEmpty && !hasFreeText }

    /// The rubric: each field with its description and allowed answers.
    var text: String {
        var lines = ["For each field, choose the answer that fits the text best:"]
        for field in fields {
            var line = "- \(JSONWriter.quoted(field.name)): "
            if let description = field.description, !description.isEmpty {
                line += description.trimmingCharacters(in: .whitespacesAndNewlines)
                if !line.hasSuffix(".") { line += "." }
                line += " "
            }
            line += "Answer " + field.answer + "."
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    private static func range(_ bounds: GenerationSchema.NumericBounds) -> String {
        let number = JSONWriter.numberText
        switch (bounds.minimum, bounds.maximum) {
        case (let minimum?, let maximum?): return " from \(number(minimum)) to \(number(maximum))"
        case (let minimum?, nil): return " of at least \(number(minimum))"
        case (nil, let maximum?): return " of at most \(number(maximum))"
        case (nil, nil): return ""
        }
    }
}
