import FMDecoding

/// Checks a parsed value against a schema, independently of the grammar compiler.
struct SchemaValidator {
    let document: SchemaDocument

    /// Returns nil when `bytes` is valid compact JSON satisfying the schema, else the reason.
    func violation(in bytes: [UInt8]) -> String? {
        do {
            let value = try StrictJSONParser.parse(bytes)
            return violation(value, document.root, path: "$", depth: 0)
        } catch {
            return "parse error: \(error)"
        }
    }

    func violation(_ value: JSONValue, _ node: SchemaNode, path: String, depth: Int) -> String? {
        guard depth < 200 else { return "\(path): too deep" }
        switch node {
        case .string(let constraint):
            guard case .string(let text) = value else { return "\(path): expected string, got \(value)" }
            switch constraint {
            case .any: return nil
            case .choices(let choices):
                return choices.contains(where: { $0.unicodeScalars.elementsEqual(text.unicodeScalars) })
                    ? nil : "\(path): \(text) not among choices"
            case .pattern(let pattern):
                return PatternOracle.matches(pattern, text) ? nil : "\(path): \(text.debugDescription) does not match /\(pattern)/"
            case .matching(let patterns, let minimumLength, let maximumLength):
                let length = text.unicodeScalars.count
                if length < minimumLength { return "\(path): \(text.debugDescription) shorter than \(minimumLength)" }
                if let maximumLength, length > maximumLength {
                    return "\(path): \(text.debugDescription) longer than \(maximumLength)"
                }
                for pattern in patterns where !PatternOracle.matches(pattern, text) {
                    return "\(path): \(text.debugDescription) does not match /\(pattern)/"
                }
                return nil
            }
        case .integer(let minimum, let maximum):
            guard case .number(let text, let number) = value else { return "\(path): expected integer" }
            guard !text.contains("."), let integer = Int(text) else { return "\(path): \(text) is not an integer" }
            if let minimum, integer < minimum { return "\(path): \(integer) < \(minimum)" }
            if let maximum, integer > maximum { return "\(path): \(integer) > \(maximum)" }
            _ = number
            return nil
        case .number(let minimum, let maximum):
            guard case .number(let text, let number) = value else { return "\(path): expected number" }
            if let minimum, number < minimum { return "\(path): \(text) < \(minimum)" }
            if let maximum, number > maximum { return "\(path): \(text) > \(maximum)" }
            return nil
        case .boolean:
            guard case .bool = value else { return "\(path): expected boolean" }
            return nil
        case .null:
            guard case .null = value else { return "\(path): expected null" }
            return nil
        case .array(let items, let minimumCount, let maximumCount, let uniqueItems):
            guard case .array(let elements) = value else { return "\(path): expected array" }
            if elements.count < minimumCount { return "\(path): \(elements.count) < \(minimumCount) items" }
            if let maximumCount, elements.count > maximumCount { return "\(path): \(elements.count) > \(maximumCount) items" }
            for (index, element) in elements.enumerated() {
                if let problem = violation(element, items, path: "\(path)[\(index)]", depth: depth + 1) { return problem }
                if uniqueItems, elements[..<index].contains(element) { return "\(path)[\(index)]: duplicate \(element)" }
            }
            return nil
        case .tuple(let prefix, let items, let minimumCount, let maximumCount):
            guard case .array(let elements) = value else { return "\(path): expected array" }
            if elements.count < minimumCount { return "\(path): \(elements.count) < \(minimumCount) items" }
            if let maximumCount, elements.count > maximumCount { return "\(path): \(elements.count) > \(maximumCount) items" }
            for (index, element) in elements.enumerated() {
                guard let schema = index < prefix.count ? prefix[index] : items else {
                    return "\(path): \(elements.count) items but only \(prefix.count) positions"
                }
                if let problem = violation(element, schema, path: "\(path)[\(index)]", depth: depth + 1) { return problem }
            }
            return nil
        case .literal(let text):
            guard let expected = try? StrictJSONParser.parse(Array(text.utf8)) else { return "\(path): bad literal \(text)" }
            return value == expected ? nil : "\(path): \(value) is not \(text)"
        case .object(let properties):
            guard case .object(let members) = value else { return "\(path): expected object" }
            var memberIndex = 0
            for property in properties {
                if memberIndex < members.count, members[memberIndex].key == property.name {
                    if let problem = violation(
                        members[memberIndex].value, property.schema, path: "\(path).\(property.name)", depth: depth + 1)
                    {
                        return problem
                    }
                    memberIndex += 1
                } else if !property.isOptional {
                    return "\(path): missing required \(property.name)"
                }
            }
            if memberIndex < members.count { return "\(path): unexpected or misordered key \(members[memberIndex].key)" }
            return nil
        case .dictionary(let values):
            guard case .object(let members) = value else { return "\(path): expected object" }
            for member in members {
                if let problem = violation(member.value, values, path: "\(path).\(member.key)", depth: depth + 1) { return problem }
            }
            return nil
        case .anyOf(let alternatives):
            var reasons: [String] = []
            for alternative in alternatives {
                guard let problem = violation(value, alternative, path: path, depth: depth + 1) else { return nil }
                reasons.append(problem)
            }
            return "\(path): no alternative matched (\(reasons.joined(separator: "; ")))"
        case .reference(let name):
            guard let definition = document.definitions[name] else { return "\(path): undefined \(name)" }
            return violation(value, definition, path: path, depth: depth + 1)
        }
    }
}

/// Regex matching by Swift Regex (unicode-scalar semantics, ASCII-only `\d \w \s`), never by the grammar.
enum PatternOracle {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        guard let regex = try? Regex(pattern) else { return false }
        // As in ECMAScript: `\d` and `\w` are ASCII, `\s` is Unicode white space (which differs from
        // ECMAScript's only in U+0085 and U+FEFF).
        let configured = regex.matchingSemantics(.unicodeScalar).asciiOnlyDigits().asciiOnlyWordCharacters()
        return (try? configured.wholeMatch(in: text)) != nil
    }
}
