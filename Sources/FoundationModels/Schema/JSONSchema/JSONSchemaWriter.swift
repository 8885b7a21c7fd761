import FMDecoding
import Foundation

/// Writes schema nodes as JSON Schema objects.
struct JSONSchemaWriter {
    /// The root's name; references to it are written as `#`.
    let rootName: String?

    func object(for node: GenerationSchema.Node) -> GeneratedContent {
        .object(members(for: node))
    }

    func members(for node: GenerationSchema.Node) -> [(String, GeneratedContent)] {
        switch node {
        case .string(let guides):
            return stringMembers(guides)
        case .integer(let bounds):
            return [("type", .text("integer"))] + boundMembers(bounds)
        case .number(let bounds):
            return [("type", .text("number"))] + boundMembers(bounds)
        case .boolean:
            return [("type", .text("boolean"))]
        case .null:
            return [("type", .text("null"))]
        case .any:
            return []
        case .constant(let text):
            return [("const", (try? GeneratedContent(json: text)) ?? .null)]
        case .array(let array):
            var members: [(String, GeneratedContent)] = [("type", .text("array"))]
            if !array.prefixItems.isEmpty {
                members.append(("prefixItems", GeneratedContent(kind: .array(array.prefixItems.map(object(for:))))))
            }
            members.append(("items", object(for: array.items)))
            if let minimum = array.minimumCount { members.append(("minItems", .number(Double(minimum)))) }
            if let maximum = array.maximumCount { members.append(("maxItems", .number(Double(maximum)))) }
            if array.uniqueItems { members.append(("uniqueItems", GeneratedContent(kind: .bool(true)))) }
            return members
        case .object(let object):
            var result = header(object.name, object.description)
            result.append(("type", .text("object")))
            if object.properties.isEmpty, let values = object.additionalValues {
                // A map: only its values' schema, which is how the importer recognises one.
                return result + [("additionalProperties", self.object(for: values))]
            }
            let properties = object.properties.map { property -> (String, GeneratedContent) in
                var schema = members(for: property.node)
                if let description = property.description {
                    schema.insert(("description", .text(description)), at: 0)
                }
                return (property.name, .object(schema))
            }
            result.append(("properties", .object(properties)))
            result.append(("required", .texts(object.properties.filter { !$0.isOptional }.map(\.name))))
            result.append(("additionalProperties", GeneratedContent(kind: .bool(false))))
            result.append(("propertyOrdering", .texts(object.properties.map(\.name))))
            if object.representsNilExplicitly {
                result.append(("x-representNilExplicitly", GeneratedContent(kind: .bool(true))))
            }
            return result
        case .enumeration(let enumeration):
            return header(enumeration.name, enumeration.description)
                + [("type", .text("string")), ("enum", .texts(enumeration.choices))]
        case .anyOf(let union):
            return header(union.name, union.description)
                + [("anyOf", GeneratedContent(kind: .array(union.choices.map(object(for:)))))]
        case .reference(let name):
            return [("$ref", .text(name == rootName ? "#" : "#/$defs/\(Self.pointerToken(name))"))]
        }
    }

    private func stringMembers(_ guides: GenerationSchema.StringGuides) -> [(String, GeneratedContent)] {
        var members: [(String, GeneratedContent)] = [("type", .text("string"))]
        if let choices = guides.choices {
            if guides.isConstant, choices.count == 1 {
                members.append(("const", .text(choices[0])))
            } else {
                members.append(("enum", .texts(choices)))
            }
        }
        // JSON Schema patterns match anywhere in the string, so a whole-string pattern is written anchored.
        var patterns: [GeneratedContent] = []
        if let pattern = guides.pattern {
            // An unknown pattern is written as null so it survives a round trip and still fails lowering.
            patterns.append(pattern.source.map { .text(Self.anchored($0)) } ?? .null)
        }
        patterns += guides.searchPatterns.map(GeneratedContent.text)
        if let first = patterns.first { members.append(("pattern", first)) }
        if let minimum = guides.minimumLength { members.append(("minLength", .number(Double(minimum)))) }
        if let maximum = guides.maximumLength { members.append(("maxLength", .number(Double(maximum)))) }
        if let format = guides.format { members.append(("format", .text(format))) }
        if patterns.count > 1 {
            let more = patterns.dropFirst().map { GeneratedContent.object([("pattern", $0)]) }
            members.append(("allOf", GeneratedContent(kind: .array(more))))
        }
        return members
    }

    /// A definition name as a JSON Pointer token in a URI fragment: `~` and `/` escaped as the pointer syntax
    /// requires, and `%` percent-encoded since references are percent-decoded when read (`a/b` → `a~1b`).
    static func pointerToken(_ name: String) -> String {
        name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            .replacingOccurrences(of: "%", with: "%25")
    }

    /// `source` anchored at both ends, unless it already is.
    static func anchored(_ source: String) -> String {
        let scalars = Array(source.unicodeScalars)
        let trailingBackslashes = scalars.dropLast().reversed().prefix { $0 == "\\" }.count
        if scalars.first == "^", scalars.last == "$", trailingBackslashes % 2 == 0,
            PatternMatcher.topLevelBranches(scalars).count == 1 {
            return source
        }
        return "^(?:\(source))$"
    }

    private func header(_ name: String, _ description: String?) -> [(String, GeneratedContent)] {
        [("title", .text(name))] + (description.map { [("description", .text($0))] } ?? [])
    }

    private func boundMembers(_ bounds: GenerationSchema.NumericBounds) -> [(String, GeneratedContent)] {
        var members: [(String, GeneratedContent)] = []
        if let minimum = bounds.minimum {
            members.append((bounds.isMinimumExclusive ? "exclusiveMinimum" : "minimum", .number(minimum)))
        }
        if let maximum = bounds.maximum {
            members.append((bounds.isMaximumExclusive ? "exclusiveMaximum" : "maximum", .number(maximum)))
        }
        if let divisor = bounds.multipleOf { members.append(("multipleOf", .number(divisor))) }
        return members
    }
}
